import { status } from '@grpc/grpc-js';

/** The error kinds behind docs/api.md's "Errors" table; each maps to one gRPC code and one HTTP status. */
export type ErrorKind =
  | 'invalid' // 422
  | 'bad_request' // 400
  | 'payload_too_large' // 413
  | 'unsupported_media_type' // 415
  | 'unauthenticated' // 401
  | 'forbidden' // 403
  | 'not_found' // 404
  | 'conflict' // 409
  | 'precondition_failed' // 412
  | 'unavailable' // 503
  | 'deadline' // 504
  | 'internal'; // 500

/** One validation problem in the FastAPI shape: {loc, msg, type}. */
export interface ValidationIssue {
  loc: (string | number)[];
  msg: string;
  type: string;
}

/**
 * An error meant for the caller: its message is safe to show. Anything else thrown is
 * reported as a generic 500 and logged with its stack. A `cause` (the dependency's own error
 * behind an `unavailable`) is never shown to the caller: the service logs it.
 */
export class AppError extends Error {
  constructor(
    readonly kind: ErrorKind,
    message: string,
    readonly issues?: ValidationIssue[],
    options?: ErrorOptions,
  ) {
    super(message, options);
    this.name = 'AppError';
  }

  static invalid(issues: ValidationIssue[]): AppError {
    return new AppError('invalid', issues.map((i) => i.msg).join('; '), issues);
  }
  static notFound(message: string): AppError {
    return new AppError('not_found', message);
  }
  static forbidden(message: string): AppError {
    return new AppError('forbidden', message);
  }
  static conflict(message: string): AppError {
    return new AppError('conflict', message);
  }
  static unavailable(message: string, cause?: unknown): AppError {
    return new AppError('unavailable', message, undefined, cause === undefined ? undefined : { cause });
  }
  static badRequest(message: string): AppError {
    return new AppError('bad_request', message);
  }
  static payloadTooLarge(message: string): AppError {
    return new AppError('payload_too_large', message);
  }
  static unsupportedMediaType(message: string): AppError {
    return new AppError('unsupported_media_type', message);
  }
}

/**
 * A dependency's error as one line for the log: its name, HTTP status when it has one and
 * message, clipped. Never the error object itself: an Elasticsearch client error carries the
 * whole request (documents, vectors) in its `meta`.
 */
export function describeCause(cause: unknown): string {
  if (!(cause instanceof Error))
    return clipLine(typeof cause === 'string' ? cause : (JSON.stringify(cause) ?? String(cause)));
  const { statusCode, body } = cause as { statusCode?: unknown; body?: { error?: { reason?: unknown } } };
  // An Elasticsearch response names its error type in the message and why in the body's reason.
  const reason = typeof body?.error?.reason === 'string' ? ` (${body.error.reason})` : '';
  return clipLine(`${cause.name}${typeof statusCode === 'number' ? ` ${statusCode}` : ''}: ${cause.message}${reason}`);
}

const clipLine = (s: string, max = 500) => {
  const line = s.replace(/\s+/g, ' ').trim();
  return line.length > max ? `${line.slice(0, max - 1)}…` : line;
};

/**
 * Kinds about the HTTP request itself (its bytes, size or media type): only the gateway raises
 * them, and gRPC has no code of their own, so they cross it as INVALID_ARGUMENT.
 */
const HTTP_ONLY_STATUS: Partial<Record<ErrorKind, number>> = {
  bad_request: 400,
  payload_too_large: 413,
  unsupported_media_type: 415,
};

export const KIND_TO_GRPC: Record<ErrorKind, status> = {
  invalid: status.INVALID_ARGUMENT,
  bad_request: status.INVALID_ARGUMENT,
  payload_too_large: status.INVALID_ARGUMENT,
  unsupported_media_type: status.INVALID_ARGUMENT,
  unauthenticated: status.UNAUTHENTICATED,
  forbidden: status.PERMISSION_DENIED,
  not_found: status.NOT_FOUND,
  conflict: status.ABORTED,
  precondition_failed: status.FAILED_PRECONDITION,
  unavailable: status.UNAVAILABLE,
  deadline: status.DEADLINE_EXCEEDED,
  internal: status.INTERNAL,
};

/**
 * gRPC status → HTTP status, as docs/api.md ("Errors") states it: 422 for both argument codes,
 * 409 for both conflict codes, 500 for codes with no HTTP meaning.
 */
export function grpcToHttpStatus(code: status): number {
  switch (code) {
    case status.INVALID_ARGUMENT:
    case status.OUT_OF_RANGE:
      return 422;
    case status.NOT_FOUND:
      return 404;
    case status.ABORTED:
    case status.ALREADY_EXISTS:
      return 409;
    case status.FAILED_PRECONDITION:
      return 412;
    case status.PERMISSION_DENIED:
      return 403;
    case status.UNAUTHENTICATED:
      return 401;
    case status.RESOURCE_EXHAUSTED:
      return 429;
    case status.UNAVAILABLE:
      return 503;
    case status.DEADLINE_EXCEEDED:
      return 504;
    default:
      return 500;
  }
}

/**
 * An error kind's HTTP status: the one its gRPC code maps to, so the two tables cannot drift;
 * the request-level kinds, which have no gRPC code of their own, have theirs.
 */
export function kindToHttpStatus(kind: ErrorKind): number {
  return HTTP_ONLY_STATUS[kind] ?? grpcToHttpStatus(KIND_TO_GRPC[kind]);
}

/** The kind a caller's error takes from the HTTP status of its gRPC code (the request-level 400, 413 and 415 never cross gRPC). */
export const HTTP_TO_KIND: Record<number, ErrorKind> = {
  401: 'unauthenticated',
  403: 'forbidden',
  404: 'not_found',
  409: 'conflict',
  412: 'precondition_failed',
  422: 'invalid',
  503: 'unavailable',
  504: 'deadline',
};
