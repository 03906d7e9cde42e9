import * as grpc from '@grpc/grpc-js';
import { HealthImplementation, type ServingStatus } from 'grpc-health-check';
import { AppError, describeCause, KIND_TO_GRPC, type ValidationIssue } from '../errors';
import type { Logger } from '../logging';
import type { Caller__Output } from '../generated/kb/common/v1/Caller';
import { observeDependencies, recordRpcServerCall } from '../metrics';
import { deadlineMs, servingCall } from './deadline';
import { serverCallSpan } from './tracing';
import { activeTraceSampled } from '../tracing';
import { callerAuthInterceptor, type ServerAuth } from './server-auth';
import { DEFAULT_MAX_CONNECTION_AGE_GRACE_MS, DEFAULT_MAX_CONNECTION_AGE_MS } from '../config';

/**
 * Metadata key carrying FastAPI-style validation issues (JSON, UTF-8) next to INVALID_ARGUMENT.
 * Binary (base64 on the wire): an issue names a key or echoes a value in any script, and
 * grpc-js refuses a string value with a non-ASCII character by throwing, which left the call
 * unanswered until its deadline (a 504 for metadata such as {"Größe": 1} on a strict type).
 */
export const ISSUES_METADATA_KEY = 'kb-validation-issues-bin';
// Trailers travel as one HTTP/2 header block: the issues and the message stay far below its limit.
const MAX_ISSUES_BYTES = 8 * 1024;
const MAX_TEXT = 300;
const MAX_DETAILS = 1000;

const clip = (text: string, max: number) => (text.length > max ? `${text.slice(0, max)}…` : text);

/** The issues as trailing metadata: as many as fit in MAX_ISSUES_BYTES (always the first), each text clipped. */
export function issuesMetadata(issues: ValidationIssue[]): grpc.Metadata {
  const kept: ValidationIssue[] = [];
  let bytes = 2;
  for (const issue of issues) {
    const clipped = {
      loc: issue.loc.map((p) => (typeof p === 'string' ? clip(p, MAX_TEXT) : p)),
      msg: clip(issue.msg, MAX_TEXT),
      type: issue.type,
    };
    bytes += Buffer.byteLength(JSON.stringify(clipped)) + 1;
    if (kept.length > 0 && bytes > MAX_ISSUES_BYTES) break;
    kept.push(clipped);
  }
  const metadata = new grpc.Metadata();
  metadata.set(ISSUES_METADATA_KEY, Buffer.from(JSON.stringify(kept), 'utf8'));
  return metadata;
}

/**
 * Whether a served call gets its own log line at `info`: when it failed (any status but OK) or
 * its trace is sampled (the line then sits beside its span). The request's one line is the
 * gateway's; a line per call on every hop of every request cost CPU and said nothing the
 * gateway's line and the metrics do not. The others are written at `debug`.
 */
export function callLogged(code: grpc.status, sampled: () => boolean = activeTraceSampled): boolean {
  return code !== grpc.status.OK || sampled();
}

export type UnaryHandler<Req, Res> = (request: Req, call: grpc.ServerUnaryCall<Req, Res>) => Promise<Res>;

/**
 * What a service injects to turn the errors of its own dependencies into the error model, e.g.
 * the knowledge and catalog services' MongoDB mapper from `@kb/mongo` ("MongoDB not
 * reachable" → UNAVAILABLE, 503 at the gateway); anything it does not know it returns as it is.
 */
export type ErrorMapper = (err: unknown) => unknown;

const asThrown: ErrorMapper = (err) => err;

/**
 * Wraps an async handler as a grpc-js unary handler: AppErrors (and what `mapError` turns into
 * one) become their status code with the message as details; anything else becomes INTERNAL
 * with a generic message and is logged with its stack (callers never see internals). Every
 * call is recorded in `rpc.server.call.duration` (method, status code) and logged (at `info`
 * when `callLogged`, else at `debug`). The handler
 * runs with the call's deadline as the bound of every call it makes to another service (`callUnary`).
 */
export function unary<Req extends { caller?: Caller__Output | null }, Res>(
  logger: Logger,
  method: string,
  handler: UnaryHandler<Req, Res>,
  mapError: ErrorMapper = asThrown,
): grpc.handleUnaryCall<Req, Res> {
  return (call, callback) =>
    serverCallSpan(call.getPath(), call.metadata, (endSpan) => {
      const requestId = call.request.caller?.request_id || undefined;
      const started = process.hrtime.bigint();
      const done = (code: grpc.status) => {
        const seconds = Number(process.hrtime.bigint() - started) / 1e9;
        const name = grpc.status[code];
        const level = callLogged(code) ? 'info' : 'debug';
        if (logger.isLevelEnabled(level))
          logger[level]({ method, request_id: requestId, code: name, ms: seconds * 1e3 }, 'call');
        recordRpcServerCall(call.getPath(), name, seconds);
        endSpan(code);
      };
      const deadline = deadlineMs(call.getDeadline());
      servingCall(deadline, () => handler(call.request, call)).then(
        (response) => {
          done(grpc.status.OK);
          callback(null, response);
        },
        (thrown: unknown) => {
          const err = mapError(thrown);
          if (err instanceof AppError) {
            const metadata = err.issues ? issuesMetadata(err.issues) : new grpc.Metadata();
            done(KIND_TO_GRPC[err.kind]);
            // What the dependency itself said (a timeout, a 429, a refused connection): the caller
            // gets the kind only, the operator the reason.
            if (err.cause !== undefined)
              logger.warn(
                { method, request_id: requestId, code: err.kind, cause: describeCause(err.cause) },
                err.message,
              );
            callback({ code: KIND_TO_GRPC[err.kind], details: clip(err.message, MAX_DETAILS), metadata });
            return;
          }
          done(grpc.status.INTERNAL);
          logger.error({ err, method, request_id: requestId }, 'unhandled error in gRPC handler');
          callback({ code: grpc.status.INTERNAL, details: 'Internal error' });
        },
      );
    });
}

/** `unary` with the service's error mapper bound: a service's handler table reads `unary(logger, 'Method', handler)`. */
export type Unary = <Req extends { caller?: Caller__Output | null }, Res>(
  logger: Logger,
  method: string,
  handler: UnaryHandler<Req, Res>,
) => grpc.handleUnaryCall<Req, Res>;

/**
 * `requireUp`, when given, runs before every handler: it throws (UNAVAILABLE) while a dependency
 * every method needs is known down, so the call is refused at once instead of waiting on it.
 */
export const unaryMapping =
  (mapError: ErrorMapper, requireUp?: () => void): Unary =>
  (logger, method, handler) =>
    unary(
      logger,
      method,
      requireUp
        ? async (request, call) => {
            requireUp();
            return handler(request, call);
          }
        : handler,
      mapError,
    );

/**
 * Health name for a liveness probe: SERVING once the service has started (its slow start-up
 * work, such as loading the embedding model, done) and until it shuts down, whatever its
 * dependencies do. "" (readiness) is the same but for the drain: it turns NOT_SERVING as soon as
 * the service starts shutting down. Neither follows MongoDB or Elasticsearch (their states are
 * "dependency:<name>"): a database election would otherwise take every replica out of its
 * Service at once, or a liveness probe restart healthy pods through an outage no restart fixes.
 */
const LIVENESS_HEALTH_NAME = 'liveness';

export interface GrpcServerHandle {
  readonly port: number;
  readonly health: HealthImplementation;
  setServing(status: ServingStatus): void;
  /**
   * Start-up is done: the service ("" and its names) and the liveness name turn SERVING (call it
   * where the service says it is listening). They stay so until `shutdown`, whatever the
   * dependencies ("dependency:<name>") do.
   */
  setLive(): void;
  shutdown(graceMs?: number): Promise<void>;
}

/** grpc.health.v1 that also keeps the dependencies' states ("dependency:<name>") for `kb.dependency.up`. */
class DependencyHealth extends HealthImplementation {
  readonly dependencies = new Map<string, boolean>();
  override setStatus(service: string, status: ServingStatus): void {
    super.setStatus(service, status);
    if (service.startsWith('dependency:'))
      this.dependencies.set(service.slice('dependency:'.length), status === 'SERVING');
  }
}

/**
 * Starts a gRPC server with the given services and grpc.health.v1, every call but health
 * authenticated by its caller assertion before any handler runs. Health names: "" (the
 * whole server: ready, i.e. started and not draining), the service's full name, "liveness"
 * (started, see LIVENESS_HEALTH_NAME)
 * and one per dependency ("dependency:mongodb" …),
 * so the gateway's /readyz can say which dependency is down; the same states are the
 * service's `kb.dependency.up` gauge.
 */
export async function startGrpcServer(options: {
  host: string;
  port: number;
  services: { definition: grpc.ServiceDefinition; implementation: grpc.UntypedServiceImplementation }[];
  serviceNames: string[];
  /** How callers prove they belong to the install (every call but health; server-auth.ts). */
  auth: ServerAuth;
  /**
   * GRPC_MAX_CONNECTION_AGE_MS / _GRACE_MS (config.ts): a client's connection is closed after
   * this age (GOAWAY, ±10 % jitter), its calls in flight given the grace to finish; the client
   * reconnects and re-resolves the service's pods, so a pod added since gets its share.
   */
  maxConnectionAgeMs?: number;
  maxConnectionAgeGraceMs?: number;
}): Promise<GrpcServerHandle> {
  // channelz (grpc-js's per-call bookkeeping for its debug service) is off: nothing here serves it.
  // The clients' keepalive pings (grpc/balancing.ts) need nothing here: grpc-js servers accept pings at any rate.
  const server = new grpc.Server({
    'grpc.max_receive_message_length': 16 * 1024 * 1024,
    'grpc.enable_channelz': 0,
    'grpc.max_connection_age_ms': options.maxConnectionAgeMs ?? DEFAULT_MAX_CONNECTION_AGE_MS,
    'grpc.max_connection_age_grace_ms': options.maxConnectionAgeGraceMs ?? DEFAULT_MAX_CONNECTION_AGE_GRACE_MS,
    interceptors: [callerAuthInterceptor(options.auth)],
  });
  const health = new DependencyHealth({ '': 'NOT_SERVING', [LIVENESS_HEALTH_NAME]: 'NOT_SERVING' });
  health.addToServer(server);
  const unobserve = observeDependencies(() => health.dependencies);
  for (const s of options.services) server.addService(s.definition, s.implementation);
  const port = await new Promise<number>((resolve, reject) =>
    server.bindAsync(`${options.host}:${options.port}`, grpc.ServerCredentials.createInsecure(), (err, p) =>
      err ? reject(err) : resolve(p),
    ),
  );
  const setServing = (status: ServingStatus) => {
    health.setStatus('', status);
    for (const name of options.serviceNames) health.setStatus(name, status);
  };
  return {
    port,
    health,
    setServing,
    setLive: () => {
      setServing('SERVING');
      health.setStatus(LIVENESS_HEALTH_NAME, 'SERVING');
    },
    shutdown: (graceMs = 5000) =>
      new Promise<void>((resolve) => {
        unobserve();
        setServing('NOT_SERVING');
        health.setStatus(LIVENESS_HEALTH_NAME, 'NOT_SERVING');
        // Let in-flight calls finish; force after the grace period.
        const timer = setTimeout(() => {
          server.forceShutdown();
          resolve();
        }, graceMs);
        server.tryShutdown(() => {
          clearTimeout(timer);
          resolve();
        });
      }),
  };
}
