import { status } from '@grpc/grpc-js';
import {
  AppError,
  HTTP_TO_KIND,
  KIND_TO_GRPC,
  grpcToHttpStatus,
  kindToHttpStatus,
  type ErrorKind,
} from '../src/errors';

describe('gRPC status to HTTP, as docs/api.md ("Errors") states it', () => {
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

  test(
    'when every error kind goes through gRPC and back, then the caller ' +
      'sees the status of its gRPC code (422 for the request-level kinds)',
    () => {
      const expected = {
        invalid: 422,
        bad_request: 422,
        payload_too_large: 422,
        unsupported_media_type: 422,
        unauthenticated: 401,
        forbidden: 403,
        not_found: 404,
        conflict: 409,
        precondition_failed: 412,
        unavailable: 503,
        deadline: 504,
        internal: 500,
      };
      for (const [kind, http] of Object.entries(expected)) {
        expect([kind, grpcToHttpStatus(KIND_TO_GRPC[kind as keyof typeof KIND_TO_GRPC])]).toEqual([kind, http]);
      }
    },
  );
});

describe('error kinds at the gateway', () => {
  const ALL: Record<ErrorKind, number> = {
    invalid: 422,
    bad_request: 400,
    payload_too_large: 413,
    unsupported_media_type: 415,
    unauthenticated: 401,
    forbidden: 403,
    not_found: 404,
    conflict: 409,
    precondition_failed: 412,
    unavailable: 503,
    deadline: 504,
    internal: 500,
  };

  test('when the gateway answers an error kind, then its HTTP status is the one docs/api.md ("Errors") gives', () => {
    for (const kind of Object.keys(KIND_TO_GRPC) as ErrorKind[])
      expect([kind, kindToHttpStatus(kind)]).toEqual([kind, ALL[kind]]);
  });

  test('when a status has a kind, then that kind answers with the same status', () => {
    for (const [http, kind] of Object.entries(HTTP_TO_KIND))
      expect([kind, kindToHttpStatus(kind)]).toEqual([kind, Number(http)]);
  });

  test('when the request-level factories build an error, then each carries its kind and message', () => {
    expect(
      [AppError.badRequest('a'), AppError.payloadTooLarge('b'), AppError.unsupportedMediaType('c')].map((e) => [
        e.kind,
        e.message,
      ]),
    ).toEqual([
      ['bad_request', 'a'],
      ['payload_too_large', 'b'],
      ['unsupported_media_type', 'c'],
    ]);
  });
});
