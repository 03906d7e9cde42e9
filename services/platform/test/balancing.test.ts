/**
 * Client-side balancing with real grpc-js servers on 127.0.0.1 (startGrpcServer, as every back
 * service starts its own) and the clients' real channel options (clientOptions, grpcTarget):
 * round robin over a static list of pods, a frozen pod found by keepalive and skipped, a
 * bounded connection age that reconnects without failing a call, one retry of a read on
 * UNAVAILABLE and none of a write. Keepalive and the connection age are shortened to keep each
 * test within a few seconds.
 */
import * as grpc from '@grpc/grpc-js';
import { TcpProxy } from '../../../test/support/tcp-proxy';
import { type similarityV1 } from '../src/contracts';
import { AppError } from '../src/errors';
import { grpcTarget, IDEMPOTENT_READS } from '../src/grpc/balancing';
import { callerSigner } from '../src/grpc/caller-assertion';
import { clientOptions } from '../src/grpc/client';
import { catalogProto, knowledgeProto, similarityProto } from '../src/grpc/proto';
import { startGrpcServer, unary, type GrpcServerHandle } from '../src/grpc/server';
import { typedClient, type TypedClient } from '../src/grpc/typed-client';
import { createLogger } from '../src/logging';

type Client = similarityV1.SimilarityServiceClient;
const Service = () => similarityProto().kb.similarity.v1.SimilarityService;
const SECRET = 'a test secret of at least thirty-two bytes';
const logger = createLogger('balancing-test', 'silent');
const caller = { tenant_id: 'acme', user_id: 'u-1', role: 'admin', scopes: ['knowledge:read'] };

/** A pod: a real server that counts the calls it answered and the connections (client ports) they came on. */
interface Pod {
  name: string;
  handle: GrpcServerHandle;
  reads: number;
  writes: number;
  peers: Set<string>;
  /** What the pod does with a call (default: answers at once). */
  behaviour: (kind: 'read' | 'write') => Promise<void>;
}

const pods: Pod[] = [];
const clients: TypedClient<Client>[] = [];
const proxies: TcpProxy[] = [];

async function startPod(name: string, age?: { maxConnectionAgeMs: number; maxConnectionAgeGraceMs: number }) {
  const pod: Pod = {
    name,
    reads: 0,
    writes: 0,
    peers: new Set(),
    behaviour: async () => undefined,
    handle: undefined as unknown as GrpcServerHandle,
  };
  const serve = (kind: 'read' | 'write') => async (_req: unknown, call: grpc.ServerUnaryCall<unknown, unknown>) => {
    pod[kind === 'read' ? 'reads' : 'writes'] += 1;
    pod.peers.add(call.getPeer());
    await pod.behaviour(kind);
    return kind === 'read' ? { hits: [] } : { results: [] };
  };
  pod.handle = await startGrpcServer({
    host: '127.0.0.1',
    port: 0,
    services: [
      {
        definition: Service().service,
        implementation: {
          SearchEntries: unary(logger, 'SearchEntries', serve('read')),
          IndexEntries: unary(logger, 'IndexEntries', serve('write')),
        },
      },
    ],
    serviceNames: [],
    auth: { audience: 'similarity', keys: { secret: SECRET }, logger },
    ...age,
  });
  pod.handle.setServing('SERVING');
  pods.push(pod);
  return pod;
}

function connect(addresses: string[], keepalive = { keepaliveTimeMs: 500, keepaliveTimeoutMs: 500 }) {
  const client = typedClient(
    'similarity',
    new (Service())(grpcTarget(addresses.join(',')), grpc.credentials.createInsecure(), clientOptions(keepalive)),
    5_000,
    callerSigner({ secret: SECRET }, 'test'),
  );
  clients.push(client);
  return client;
}

const address = (pod: Pod | TcpProxy) => `127.0.0.1:${'handle' in pod ? pod.handle.port : pod.port}`;
const read = (client: TypedClient<Client>) => client.call('SearchEntries', { caller, query: 'x', limit: 1 });
const write = (client: TypedClient<Client>) => client.call('IndexEntries', { caller, entries: [] });
const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** Until every pod of the list has a connection: round robin picks among the ready ones only. */
async function warmUp(client: TypedClient<Client>, ...expected: Pod[]): Promise<void> {
  const until = Date.now() + 3_000;
  while (expected.some((p) => p.reads === 0) && Date.now() < until) {
    await read(client);
    await sleep(20);
  }
  for (const p of pods) {
    p.reads = 0;
    p.writes = 0;
  }
}

afterEach(async () => {
  for (const c of clients.splice(0)) c.close();
  for (const p of proxies.splice(0)) await p.down();
  await Promise.all(pods.splice(0).map((p) => p.handle.shutdown(100)));
});

describe('client-side balancing', () => {
  it('when a client is given a static list of two pods, then its calls are spread over both in turn', async () => {
    const [a, b] = [await startPod('a'), await startPod('b')];
    const client = connect([address(a), address(b)]);
    await warmUp(client, a, b);
    for (let i = 0; i < 20; i++) await read(client);
    expect([a.reads, b.reads]).toEqual([10, 10]);
  });

  it('when a pod freezes, then keepalive drops its connection and the calls go to the other pod', async () => {
    const [a, b] = [await startPod('a'), await startPod('b')];
    const proxy = new TcpProxy(new URL(`http://${address(a)}`));
    proxies.push(proxy);
    await proxy.up();
    const client = connect([address(proxy), address(b)]);
    await warmUp(client, a, b);
    proxy.freeze();
    // A read sent to the frozen pod waits until keepalive (0.5 s + 0.5 s here) drops the
    // connection, then is tried again on the other pod: no read fails, none waits its deadline.
    const took: number[] = [];
    for (let i = 0; i < 10; i++) {
      const started = Date.now();
      await read(client);
      took.push(Date.now() - started);
    }
    expect(Math.max(...took)).toBeLessThan(2_500);
    // Once the frozen pod's connection is gone, every call goes straight to the other pod.
    expect(took.slice(-5).every((ms) => ms < 200)).toBe(true);
    expect(a.reads).toBe(0);
    expect(b.reads).toBe(10);
  });

  it('when a connection reaches its maximum age, then it is replaced without failing a call in flight', async () => {
    const a = await startPod('a', { maxConnectionAgeMs: 1_000, maxConnectionAgeGraceMs: 3_000 });
    const client = connect([address(a)]);
    await read(client);
    // A slow call spans the age's GOAWAY: it ends within the grace, on the old connection.
    a.behaviour = () => sleep(1_500);
    const slow = read(client);
    await sleep(200);
    a.behaviour = async () => undefined;
    const fast: Promise<unknown>[] = [];
    for (let i = 0; i < 25; i++) {
      fast.push(read(client));
      await sleep(100);
    }
    await expect(slow).resolves.toBeDefined();
    await expect(Promise.all(fast)).resolves.toHaveLength(25);
    // Each connection is a client port of its own: more than one in the 2.7 s the calls took.
    expect(a.peers.size).toBeGreaterThanOrEqual(2);
  });

  it('when a pod drains while a call runs on a connection past its age, then the call completes and the drain waits for it', async () => {
    // Two GOAWAYs (the age's, then the drain's) and keepalive pings every 0.5 s meanwhile: the
    // client's ping on the closing connection would end the call (grpc-js-fixes.ts). A service
    // closes its databases once the drain resolves, so the drain must wait for the call too.
    const a = await startPod('a', { maxConnectionAgeMs: 300, maxConnectionAgeGraceMs: 30_000 });
    const client = connect([address(a)]);
    await read(client);
    let finish = () => undefined as void;
    a.behaviour = () => new Promise<void>((resolve) => (finish = resolve));
    const slow = write(client);
    await sleep(600); // past the age (±10 %): its GOAWAY is sent, the call still runs
    let drained = false;
    const drain = a.handle.shutdown(10_000).then(() => (drained = true));
    await sleep(300);
    expect(drained).toBe(false);
    finish();
    await expect(slow).resolves.toMatchObject({ results: [] });
    await drain;
    expect(drained).toBe(true);
    pods.splice(pods.indexOf(a), 1);
  });

  it('when a pod drains for longer than the keepalive interval, then the calls it runs complete', async () => {
    const a = await startPod('a');
    const client = connect([address(a)]);
    await read(client);
    let finish = () => undefined as void;
    a.behaviour = () => new Promise<void>((resolve) => (finish = resolve));
    const slow = write(client);
    await sleep(100);
    const drain = a.handle.shutdown(10_000);
    await sleep(1_200); // two keepalive intervals after the drain's GOAWAY
    finish();
    await expect(slow).resolves.toMatchObject({ results: [] });
    await drain;
    pods.splice(pods.indexOf(a), 1);
  });

  it('when a pod answers UNAVAILABLE, then a read is tried once more on the other pod and a write is not', async () => {
    const [a, b] = [await startPod('a'), await startPod('b')];
    const client = connect([address(a), address(b)]);
    await warmUp(client, a, b);
    a.behaviour = async () => {
      throw new AppError('unavailable', 'MongoDB not reachable');
    };
    for (let i = 0; i < 4; i++) await expect(read(client)).resolves.toBeDefined();
    // Every read was answered by b, some after a refused them first; none twice by a.
    expect(b.reads).toBe(4);
    expect(a.reads).toBeGreaterThanOrEqual(1);
    expect(a.reads).toBeLessThanOrEqual(4);

    const outcomes = await Promise.allSettled([write(client), write(client)]);
    // Round robin sends one write to each pod; the one a refused fails, and is not sent to b.
    expect(a.writes).toBe(1);
    expect(b.writes).toBe(1);
    const failed = outcomes.filter((o) => o.status === 'rejected') as PromiseRejectedResult[];
    expect(failed).toHaveLength(1);
    expect(failed[0]?.reason).toMatchObject({ kind: 'unavailable' });
  });

  it('when the retried methods are listed, then each is a read the protos declare', () => {
    const protos: Record<string, grpc.ServiceDefinition> = {
      'kb.knowledge.v1.KnowledgeService': knowledgeProto().kb.knowledge.v1.KnowledgeService.service,
      'kb.catalog.v1.CatalogService': catalogProto().kb.catalog.v1.CatalogService.service,
      'kb.similarity.v1.SimilarityService': Service().service,
    };
    const writes = /^(Create|Update|Delete|Upsert|BulkUpsert|Index|Assign|Forget|BeginReindex|FinishReindex)/;
    for (const [service, methods] of Object.entries(IDEMPOTENT_READS)) {
      for (const method of methods) expect(method).not.toMatch(writes);
      if (service === 'grpc.health.v1.Health') continue;
      for (const method of methods) expect(Object.keys(protos[service] ?? {})).toContain(method);
    }
  });
});
