/**
 * Deadlines passed on at every hop, with real grpc-js servers on 127.0.0.1: an outer service
 * whose `unary` handler calls an inner one (typedClient) on behalf of its caller, as knowledge
 * and catalog call similarity. The inner server records the deadline each call arrived with.
 */
import * as grpc from '@grpc/grpc-js';
import { type similarityV1 } from '../src/contracts';
import { AppError } from '../src/errors';
import { callerSigner } from '../src/grpc/caller-assertion';
import { deadlineMs, servingCall } from '../src/grpc/deadline';
import { similarityProto } from '../src/grpc/proto';
import { unary } from '../src/grpc/server';
import { typedClient, type TypedClient } from '../src/grpc/typed-client';
import { createLogger } from '../src/logging';
import { backgroundSpan } from '../src/tracing';

type Client = similarityV1.SimilarityServiceClient;
const Service = () => similarityProto().kb.similarity.v1.SimilarityService;
const OWN_DEADLINE_MS = 10_000;
const logger = createLogger('deadline-test', 'silent');

let inner: grpc.Server;
let outer: grpc.Server;
let innerClient: TypedClient<Client>;
let outerClient: Client;
/** Deadlines (epoch ms) the inner server received, in order. */
let received: (number | undefined)[] = [];
/** Deadlines (epoch ms) the outer service's client sent the inner calls with (an interceptor reads them). */
let sent: (number | undefined)[] = [];
/** When each inner call was started by the client, and when it arrived at the inner server (epoch ms). */
let sentAt: number[] = [];
let arrivedAt: number[] = [];
const recordDeadline: grpc.Interceptor = (options, next) => {
  sentAt.push(Date.now());
  sent.push(options.deadline === undefined ? undefined : deadlineMs(options.deadline));
  return new grpc.InterceptingCall(next(options));
};
/** What the outer handler does with its call: the default passes it on, as a service does. */
let outerWork: (call: grpc.ServerUnaryCall<unknown, unknown>) => Promise<unknown>;
let outerDeadlines: (number | undefined)[] = [];

async function listen(server: grpc.Server): Promise<number> {
  return new Promise((resolve, reject) =>
    server.bindAsync('127.0.0.1:0', grpc.ServerCredentials.createInsecure(), (err, port) =>
      err ? reject(err) : resolve(port),
    ),
  );
}

const search = () => innerClient.call('SearchEntries', { query: 'x', limit: 1 });

beforeAll(async () => {
  inner = new grpc.Server();
  inner.addService(Service().service, {
    SearchEntries: (call: grpc.ServerUnaryCall<unknown, unknown>, cb: grpc.sendUnaryData<unknown>) => {
      arrivedAt.push(Date.now());
      received.push(deadlineMs(call.getDeadline()));
      cb(null, { hits: [] });
    },
  });
  const innerPort = await listen(inner);
  innerClient = typedClient(
    'similarity',
    new (Service())(`127.0.0.1:${innerPort}`, grpc.credentials.createInsecure(), { interceptors: [recordDeadline] }),
    OWN_DEADLINE_MS,
    // The inner server here is a bare grpc-js one: it reads no assertion.
    callerSigner({ secret: 'a test secret of at least thirty-two bytes' }, 'test'),
  );

  outer = new grpc.Server();
  outer.addService(Service().service, {
    SearchEntries: unary(logger, 'SearchEntries', async (_req: similarityV1.SearchEntriesRequest__Output, call) => {
      outerDeadlines.push(deadlineMs(call.getDeadline()));
      await outerWork(call as grpc.ServerUnaryCall<unknown, unknown>);
      return { hits: [] };
    }),
  });
  const outerPort = await listen(outer);
  outerClient = new (Service())(`127.0.0.1:${outerPort}`, grpc.credentials.createInsecure());
});

afterAll(() => {
  innerClient.close();
  outerClient.close();
  inner.forceShutdown();
  outer.forceShutdown();
});

beforeEach(() => {
  received = [];
  sent = [];
  sentAt = [];
  arrivedAt = [];
  outerDeadlines = [];
  outerWork = () => search();
});

/** Calls the outer service with a deadline `ms` from now (none when undefined). */
function callOuter(ms: number | undefined): Promise<grpc.ServiceError | null> {
  const options = ms === undefined ? {} : { deadline: new Date(Date.now() + ms) };
  return new Promise((resolve) => outerClient.SearchEntries({ query: 'x', limit: 1 }, options, (err) => resolve(err)));
}

describe('deadlines passed on to the services a call calls', () => {
  test('when the incoming call has less time left than the own bound, then the inner call ends no later than the outer one', async () => {
    expect(await callOuter(2_000)).toBeNull();
    const [outerDeadline] = outerDeadlines;
    expect(outerDeadline).toBeDefined();
    expect(sent[0]!).toBeLessThanOrEqual(outerDeadline!);
    // On the wire a deadline is a timeout in whole milliseconds, read on arrival: the time the
    // inner server was given is at most what the outer call had left when the inner one started
    // (plus rounding). Transit is not counted, so a loaded machine cannot fail this.
    const given = received[0]! - arrivedAt[0]!;
    expect(given).toBeLessThanOrEqual(outerDeadline! - sentAt[0]! + 5);
    expect(given).toBeLessThanOrEqual(2_000);
    expect(given).toBeGreaterThan(0);
  });

  test('when the incoming call has more time than the own bound, then the inner call has the own bound', async () => {
    const started = Date.now();
    expect(await callOuter(60_000)).toBeNull();
    expect(received[0]!).toBeGreaterThan(started + OWN_DEADLINE_MS - 1_000);
    expect(received[0]!).toBeLessThanOrEqual(Date.now() + OWN_DEADLINE_MS + 50);
  });

  test('when the incoming call has no deadline, then the inner call has the own bound', async () => {
    const started = Date.now();
    expect(await callOuter(undefined)).toBeNull();
    expect(outerDeadlines[0]).toBeUndefined();
    expect(received[0]!).toBeGreaterThan(started + OWN_DEADLINE_MS - 1_000);
  });

  test('when the incoming call has no time left, then the inner call is not made and fails with deadline (DEADLINE_EXCEEDED)', async () => {
    let failure: unknown;
    outerWork = async () => {
      await new Promise((r) => setTimeout(r, 400));
      await search().catch((err: unknown) => (failure = err));
    };
    const err = await callOuter(200);
    expect(err?.code).toBe(grpc.status.DEADLINE_EXCEEDED);
    await new Promise((r) => setTimeout(r, 400));
    expect(failure).toBeInstanceOf(AppError);
    expect((failure as AppError).kind).toBe('deadline');
    expect(received).toEqual([]);
  });

  test('when background work starts while a call is served, then it keeps its own bound', async () => {
    outerWork = () => backgroundSpan('background pass', {}, () => search());
    const started = Date.now();
    expect(await callOuter(2_000)).toBeNull();
    expect(received[0]!).toBeGreaterThan(started + OWN_DEADLINE_MS - 1_000);
  });

  test('when the served deadline has passed, then callUnary answers deadline at once without calling', async () => {
    const started = Date.now();
    await expect(servingCall(Date.now() - 1, search)).rejects.toMatchObject({ kind: 'deadline' });
    expect(Date.now() - started).toBeLessThan(100);
    expect(received).toEqual([]);
  });
});
