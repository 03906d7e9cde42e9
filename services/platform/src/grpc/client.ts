import * as grpc from '@grpc/grpc-js';
import { AppError, HTTP_TO_KIND, grpcToHttpStatus, type ValidationIssue } from '../errors';
import { ISSUES_METADATA_KEY } from './server';
import { recordRpcClientCall } from '../metrics';
import { outgoingDeadline } from './deadline';
import { clientCallSpan } from './tracing';
import { ASSERTION_REFUSED_METADATA_KEY } from './server-auth';
import { CALLER_ASSERTION_METADATA_KEY, type CallerSigner } from './caller-assertion';
import { balancingOptions, type BalancingSettings } from './balancing';
import { applyGrpcJsFixes } from './grpc-js-fixes';

// Before any channel connects: calls let finish by a GOAWAY are not cut by the next keepalive ping.
applyGrpcJsFixes();

/** Default deadline of a call from one service to another. */
export const DEFAULT_DEADLINE_MS = 10_000;

type UnaryMethod<Req, Res> = (
  request: Req,
  metadata: grpc.Metadata,
  options: grpc.CallOptions,
  callback: (err: grpc.ServiceError | null, response?: Res) => void,
) => grpc.ClientUnaryCall;

/**
 * Calls a unary method with a deadline (every call has one) and turns a gRPC error into an
 * AppError of the matching kind, so the gateway can answer with the status docs/api.md ("Errors") gives. The
 * call is recorded in `rpc.client.call.duration` (method, status code). Made while serving a
 * call (`unary`), it ends no later than that call's deadline; with none left, it is not made.
 * It carries the caller assertion `sign` makes for the request's caller, this service and method.
 */
export async function callUnary<Req, Res>(
  client: grpc.Client,
  method: UnaryMethod<Req, Res>,
  request: Req,
  options: { service: string; deadlineMs?: number; sign: CallerSigner },
): Promise<Res> {
  const deadline = outgoingDeadline(options.deadlineMs ?? DEFAULT_DEADLINE_MS);
  // The caller has stopped waiting: nobody would read the answer.
  if (deadline <= Date.now())
    return Promise.reject(new AppError('deadline', `No time left to call the ${options.service} service`));
  // grpc-js puts the full path ("/kb.similarity.v1.SimilarityService/IndexProducts") on each generated method.
  const path = (method as { path?: string }).path ?? `${options.service}/${method.name}`;
  const metadata = new grpc.Metadata();
  const caller = (request as { caller?: Parameters<CallerSigner>[0]['caller'] }).caller;
  metadata.set(
    CALLER_ASSERTION_METADATA_KEY,
    await options.sign({ caller, audience: options.service, method: path, deadline }),
  );
  const started = process.hrtime.bigint();
  const endSpan = clientCallSpan(path, metadata);
  return new Promise<Res>((resolve, reject) => {
    method.call(client, request, metadata, { deadline: new Date(deadline) }, (err, response) => {
      endSpan(err ? err.code : grpc.status.OK);
      recordRpcClientCall(
        path,
        grpc.status[err ? err.code : grpc.status.OK] ?? String(err?.code),
        Number(process.hrtime.bigint() - started) / 1e9,
      );
      if (err) reject(fromServiceError(err, options.service));
      else resolve(response as Res);
    });
  });
}

export function fromServiceError(err: grpc.ServiceError, service: string): AppError {
  const http = grpcToHttpStatus(err.code);
  const kind = HTTP_TO_KIND[http] ?? 'internal';
  if (kind === 'internal') return new AppError('internal', 'Internal error');
  // The service refused this process's own proof (a secret that differs between services): an
  // error of the install, not of the client's token, whose 401 would mislead it.
  if (err.metadata?.get(ASSERTION_REFUSED_METADATA_KEY).length)
    return new AppError('internal', `The ${service} service refused this install's caller assertion`);
  // A transport failure (the service is not reachable) says nothing the caller should see
  // beyond which service is missing; a service's own UNAVAILABLE names the dependency.
  if (kind === 'unavailable' && (!err.details || /No connection established|ECONNREFUSED|connect/i.test(err.details))) {
    return new AppError('unavailable', `The ${service} service is unavailable`);
  }
  // Our own deadline ran out ("Deadline exceeded…" from grpc-js): name the service called. A
  // service that did answer, with its own dependency's deadline error, keeps its message, so
  // the 504 names the service that was slow (e.g. similarity behind knowledge).
  if (kind === 'deadline' && (!err.details || /^Deadline exceeded/i.test(err.details))) {
    return new AppError('deadline', `The ${service} service did not answer in time`);
  }
  let issues: ValidationIssue[] | undefined;
  const raw = err.metadata?.get(ISSUES_METADATA_KEY)[0];
  if (kind === 'invalid' && Buffer.isBuffer(raw)) {
    try {
      issues = JSON.parse(raw.toString('utf8')) as ValidationIssue[];
    } catch {
      issues = undefined;
    }
  }
  return new AppError(kind, err.details || kind, issues);
}

/**
 * Channel options of every client: balanced over the service's pods (round robin, keepalive,
 * one retry of a read on UNAVAILABLE: grpc/balancing.ts, with `settings` from the service's
 * GRPC_KEEPALIVE_* settings); reconnect quickly after a backend restarts; no channelz
 * bookkeeping (nothing serves it).
 */
export function clientOptions(settings: BalancingSettings = {}): grpc.ClientOptions {
  return {
    ...balancingOptions(settings),
    'grpc.enable_channelz': 0,
    'grpc.initial_reconnect_backoff_ms': 200,
    'grpc.max_reconnect_backoff_ms': 2000,
    'grpc.max_receive_message_length': 16 * 1024 * 1024,
  };
}

/** `clientOptions()` with the default keepalive (the admin CLI, tools, tests). */
export const CLIENT_OPTIONS: grpc.ClientOptions = clientOptions();
