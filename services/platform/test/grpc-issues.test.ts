import { status, type ServiceError } from '@grpc/grpc-js';
import { type ValidationIssue } from '../src/errors';
import { fromServiceError } from '../src/grpc/client';
import { issuesMetadata } from '../src/grpc/server';

/** What the gateway makes of an INVALID_ARGUMENT carrying these issues. */
function roundTrip(issues: ValidationIssue[]): ValidationIssue[] | undefined {
  const err = Object.assign(new Error('invalid'), {
    code: status.INVALID_ARGUMENT,
    details: 'invalid',
    metadata: issuesMetadata(issues),
  }) as ServiceError;
  return fromServiceError(err, 'knowledge').issues;
}

describe('validation issues across gRPC', () => {
  test('when an issue names a key in another script, then it arrives as sent (a string header would refuse it)', () => {
    const issues = [
      { loc: ['body', 'metadata', 'Größe'], msg: 'Extra inputs are not permitted', type: 'extra_forbidden' },
      { loc: ['body', 'metadata', '\u{F4B4C}😀'], msg: 'x', type: 'y' },
    ];
    expect(roundTrip(issues)).toEqual(issues);
  });

  test('when there are hundreds of long issues, then the first ones arrive within the trailer bound, texts clipped', () => {
    const issues = Array.from({ length: 500 }, (_, i) => ({
      loc: ['body', 'metadata', `${'k'.repeat(1000)}${i}`],
      msg: 'm'.repeat(1000),
      type: 'extra_forbidden',
    }));
    const metadata = issuesMetadata(issues);
    const bytes = (metadata.get('kb-validation-issues-bin')[0] as Buffer).length;
    expect(bytes).toBeLessThanOrEqual(8 * 1024);
    const arrived = roundTrip(issues)!;
    expect(arrived.length).toBeGreaterThan(0);
    expect(arrived[0]!.loc.slice(0, 2)).toEqual(['body', 'metadata']);
    expect((arrived[0]!.loc[2] as string).length).toBeLessThanOrEqual(301);
  });
});
