/**
 * Deadlines passed on at every hop, through a real service: the catalog service (in-process,
 * real MongoDB) serves a product search by calling the similarity service, here a stand-in
 * gRPC server that records the deadline each call arrives with. The catalog's own bound
 * (SIMILARITY_DEADLINE_MS) is far longer than its caller's deadline.
 */
import * as grpc from '@grpc/grpc-js';
import pino from 'pino';
import { catalogProto, deadlineMs, similarityProto } from '@kb/platform';
import { loadCatalogConfig, startCatalogServer, type CatalogServer } from '@kb/catalog';
import { uniqueId } from '../support/stack';
import { assertionMetadata } from '../support/service-auth';

const SIMILARITY_DEADLINE_MS = 30_000;
const CALLER_DEADLINE_MS = 1_500;

let similarity: grpc.Server;
let catalog: CatalogServer;
let client: InstanceType<ReturnType<typeof catalogProto>['kb']['catalog']['v1']['CatalogService']>;
const received: (number | undefined)[] = [];

beforeAll(async () => {
  similarity = new grpc.Server();
  similarity.addService(similarityProto().kb.similarity.v1.SimilarityService.service, {
    SearchProducts: (call: grpc.ServerUnaryCall<unknown, unknown>, cb: grpc.sendUnaryData<unknown>) => {
      received.push(deadlineMs(call.getDeadline()));
      cb(null, { hits: [] });
    },
  });
  const similarityPort = await new Promise<number>((resolve, reject) =>
    similarity.bindAsync('127.0.0.1:0', grpc.ServerCredentials.createInsecure(), (err, p) =>
      err ? reject(err) : resolve(p),
    ),
  );
  const url = new URL(process.env.MONGODB_URI as string);
  url.pathname = `/${uniqueId('kbdeadline')}`;
  catalog = await startCatalogServer(
    loadCatalogConfig({
      ...process.env,
      GRPC_HOST: '127.0.0.1',
      CATALOG_GRPC_PORT: '0',
      MONGODB_URI: url.toString(),
      SIMILARITY_GRPC_ADDR: `127.0.0.1:${similarityPort}`,
      SIMILARITY_DEADLINE_MS: String(SIMILARITY_DEADLINE_MS),
    }),
    pino({ level: 'silent' }),
  );
  client = new (catalogProto().kb.catalog.v1.CatalogService)(
    `127.0.0.1:${catalog.port}`,
    grpc.credentials.createInsecure(),
  );
});

afterAll(async () => {
  client?.close();
  await catalog?.stop();
  similarity?.forceShutdown();
});

const caller = { tenant_id: 'deadline', role: 'Admin', scopes: ['knowledge:read'], request_id: 'r1' };
const search = async (deadline: number) => {
  const metadata = await assertionMetadata(caller, 'catalog', '/kb.catalog.v1.CatalogService/SearchProducts');
  return new Promise<grpc.ServiceError | null>((resolve) =>
    client.SearchProducts({ query: 'chair', limit: 5 }, metadata, { deadline: new Date(deadline) }, (e) => resolve(e)),
  );
};

/** Slack for the time a call spends on the wire and in queues between hops (a CI run once saw 11 ms). */
const TRANSIT_MS = 250;

test(
  'when the catalog calls the similarity service to serve a ' +
    'search, then that call ends no later than the search it serves',
  async () => {
    // MongoDB connects in the background: UNAVAILABLE until it has.
    const started = Date.now();
    while ((await search(Date.now() + 5_000))?.code === grpc.status.UNAVAILABLE && Date.now() - started < 15_000)
      await new Promise((r) => setTimeout(r, 100));
    received.length = 0;
    const deadline = Date.now() + CALLER_DEADLINE_MS;
    expect(await search(deadline)).toBeNull();
    expect(received).toHaveLength(1);
    // On the wire a deadline is a timeout in whole milliseconds, read on arrival at each hop, so
    // two hops' transit (milliseconds; more on a loaded CI machine) is added: far from the 30 s own deadline.
    expect(received[0]!).toBeLessThanOrEqual(deadline + TRANSIT_MS);
    expect(received[0]!).toBeLessThan(Date.now() + SIMILARITY_DEADLINE_MS / 2);
  },
);
