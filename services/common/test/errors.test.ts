import { status } from '@grpc/grpc-js';
import { KIND_TO_GRPC, grpcToHttpStatus } from '../src';

describe('gRPC status to HTTP, as README.md ("Errors") states it', () => {
  test.each([
    [status.INVALID_ARGUMENT, 422],
    [status.NOT_FOUND, 404],
    [status.ABORTED, 409],
    [status.ALREADY_EXISTS, 409],
    [status.PERMISSION_DENIED, 403],
    [status.UNAUTHENTICATED, 401],
    [status.UNAVAILABLE, 503],
    [status.DEADLINE_EXCEEDED, 504],
    [status.RESOURCE_EXHAUSTED, 429],
    [status.INTERNAL, 500],
    [status.UNKNOWN, 500],
  ])('when a service answers %s, then the gateway answers %s', (code, http) => {
    expect(grpcToHttpStatus(code)).toBe(http);
  });

  test('when every error kind goes through gRPC and back, then it keeps its HTTP status', () => {
    const expected = { invalid: 422, bad_request: 422, unauthenticated: 401, forbidden: 403, not_found: 404, conflict: 409, precondition_failed: 412, unavailable: 503, deadline: 504, internal: 500 };
    for (const [kind, http] of Object.entries(expected)) {
      expect([kind, grpcToHttpStatus(KIND_TO_GRPC[kind as keyof typeof KIND_TO_GRPC])]).toEqual([kind, http]);
    }
  });
});
