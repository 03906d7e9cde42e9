import { Writable } from 'node:stream';
import * as grpc from '@grpc/grpc-js';
import { context, propagation } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import pino from 'pino';
import { type Caller } from '../src/caller';
import { AppError } from '../src/errors';
import { unary } from '../src/grpc/server';

/**
 * The log rule of the services behind the gateway: a served call is logged at `info` only when
 * it failed or its trace is sampled; the request's own line is the gateway's. The sampled flag
 * comes from the caller's traceparent, as the services read it (the SDK's context manager and
 * propagator, no tracer: the API carries the remote context as it is).
 */
const lines: Record<string, unknown>[] = [];
const sink = new Writable({
  write(chunk: Buffer, _encoding, done) {
    lines.push(JSON.parse(chunk.toString()) as Record<string, unknown>);
    done();
  },
});
const logger = pino({ level: 'info' }, sink);

const TRACE = '0af7651916cd43dd8448eb211c80319c';
function call(flags: '01' | '00' | undefined, requestId: string) {
  const metadata = new grpc.Metadata();
  if (flags) metadata.set('traceparent', `00-${TRACE}-b7ad6b7169203331-${flags}`);
  return {
    getPath: () => '/kb.test.v1.TestService/Get',
    getDeadline: () => Infinity,
    metadata,
    request: { caller: { request_id: requestId } },
  } as unknown as grpc.ServerUnaryCall<{ caller: Caller }, object>;
}

async function serve(
  flags: '01' | '00' | undefined,
  outcome: 'ok' | 'not found' | 'crash' | 'unavailable',
): Promise<string> {
  const requestId = `${outcome}-${flags ?? 'none'}-${Math.random()}`;
  const handler = unary(logger, 'Get', async () => {
    if (outcome === 'not found') throw new AppError('not_found', 'Product not found');
    if (outcome === 'crash') throw new Error('boom');
    if (outcome === 'unavailable') {
      const timeout = Object.assign(new Error('Request timed out'), {
        name: 'TimeoutError',
        meta: { body: 'x'.repeat(9) },
      });
      throw AppError.unavailable('Elasticsearch is unavailable', timeout);
    }
    return {};
  });
  await new Promise<void>((resolve) => handler(call(flags, requestId), () => resolve()));
  return requestId;
}

const callLines = (requestId: string) => lines.filter((l) => l.request_id === requestId && l.msg === 'call');

describe('per-call log lines', () => {
  beforeAll(() => {
    context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
    propagation.setGlobalPropagator(new W3CTraceContextPropagator());
  });
  afterAll(() => {
    propagation.disable();
    context.disable();
  });

  test('when a call succeeds and its trace is not sampled (or there is no trace), then it writes no line at info', async () => {
    expect(callLines(await serve('00', 'ok'))).toEqual([]);
    expect(callLines(await serve(undefined, 'ok'))).toEqual([]);
  });

  test('when a call succeeds in a sampled trace, then it writes one line beside its span', async () => {
    const lines = callLines(await serve('01', 'ok'));
    expect(lines).toEqual([expect.objectContaining({ method: 'Get', code: 'OK', level: 30 })]);
  });

  test('when a call fails, then it writes its line whether sampled or not, and an internal error its stack too', async () => {
    expect(callLines(await serve('00', 'not found'))).toEqual([expect.objectContaining({ code: 'NOT_FOUND' })]);
    const crashed = await serve(undefined, 'crash');
    expect(callLines(crashed)).toEqual([expect.objectContaining({ code: 'INTERNAL' })]);
    expect(lines.filter((l) => l.request_id === crashed && l.level === 50)).toEqual([
      expect.objectContaining({
        msg: 'unhandled error in gRPC handler',
        err: expect.objectContaining({ message: 'boom' }),
      }),
    ]);
  });

  test('when a dependency is unavailable, then its own error is logged as one line for the operator and never its request', async () => {
    const requestId = await serve(undefined, 'unavailable');
    expect(callLines(requestId)).toEqual([expect.objectContaining({ code: 'UNAVAILABLE' })]);
    const warned = lines.filter((l) => l.request_id === requestId && l.level === 40);
    expect(warned).toEqual([
      expect.objectContaining({ msg: 'Elasticsearch is unavailable', cause: 'TimeoutError: Request timed out' }),
    ]);
    expect(JSON.stringify(warned)).not.toContain('xxxxxxxxx');
  });

  test('when the level is debug, then the unsampled successful call is written at debug', async () => {
    const debugLines: Record<string, unknown>[] = [];
    const debug = pino(
      { level: 'debug' },
      new Writable({
        write(chunk: Buffer, _e, done) {
          debugLines.push(JSON.parse(chunk.toString()) as Record<string, unknown>);
          done();
        },
      }),
    );
    const handler = unary(debug, 'Get', async () => ({}));
    await new Promise<void>((resolve) => handler(call('00', 'quiet'), () => resolve()));
    expect(debugLines).toEqual([expect.objectContaining({ msg: 'call', code: 'OK', level: 20, request_id: 'quiet' })]);
  });
});
