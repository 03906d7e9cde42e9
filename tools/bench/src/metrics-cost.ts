/**
 * What metrics cost on the request path. An HTTP server on loopback answers each request with
 * one gRPC call to a server on loopback whose handler does nothing (the `unary` wrapper and
 * `callUnary` every service uses), so the time per request is almost all framework and
 * telemetry. Run it under the preload twice and compare the per-request figures:
 *
 *   node --require ./services/platform/telemetry.js tools/bench/dist/metrics-cost.js
 *   OTEL_METRICS_EXPORTER=prometheus OTEL_EXPORTER_PROMETHEUS_PORT=19464 \
 *     node --require ./services/platform/telemetry.js tools/bench/dist/metrics-cost.js
 *
 * It also times one `rpc.server.call.duration` record on its own (no-op meter without the
 * exporter, the SDK's with it). BENCH_REQUESTS (default 3000) requests per round, 5 rounds.
 */
import { randomBytes } from 'node:crypto';
import * as http from 'node:http';
import * as grpc from '@grpc/grpc-js';
import pino from 'pino';
import {
  CLIENT_OPTIONS,
  callerSigner,
  knowledgeProto,
  recordRpcServerCall,
  startGrpcServer,
  typedClient,
  unary,
} from '@kb/platform';

const REQUESTS = Number(process.env.BENCH_REQUESTS) || 3000;
const ROUNDS = 5;

function get(port: number): Promise<void> {
  return new Promise((resolve, reject) => {
    http
      .get({ host: '127.0.0.1', port, path: '/categories', agent }, (res) => {
        res.resume();
        res.on('end', resolve);
      })
      .on('error', reject);
  });
}
const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });

async function main(): Promise<void> {
  const logger = pino({ level: 'silent' });
  const secret = randomBytes(32).toString('base64url');
  const KnowledgeService = knowledgeProto().kb.knowledge.v1.KnowledgeService;
  const server = await startGrpcServer({
    host: '127.0.0.1',
    port: 0,
    services: [
      {
        definition: KnowledgeService.service,
        implementation: { ListCategories: unary(logger, 'ListCategories', async () => ({ categories: [] })) },
      },
    ],
    serviceNames: [],
    auth: { audience: 'knowledge', keys: { secret }, logger },
  });
  const client = typedClient(
    'knowledge',
    new KnowledgeService(`127.0.0.1:${server.port}`, grpc.credentials.createInsecure(), CLIENT_OPTIONS),
    5000,
    callerSigner({ secret }, 'bench'),
  );
  const web = http.createServer((_req, res) => {
    client.call('ListCategories', {}).then(
      () => res.end('[]'),
      () => res.writeHead(500).end(),
    );
  });
  await new Promise<void>((r) => web.listen(0, '127.0.0.1', r));
  const port = (web.address() as { port: number }).port;

  const mode = process.env.OTEL_METRICS_EXPORTER;
  for (let i = 0; i < 300; i++) await get(port); // warm-up
  const rounds: number[] = [];
  for (let round = 1; round <= ROUNDS; round++) {
    const started = process.hrtime.bigint();
    for (let i = 0; i < REQUESTS; i++) await get(port);
    rounds.push(Number(process.hrtime.bigint() - started) / 1e3 / REQUESTS);
  }
  // The fastest round is the least disturbed by whatever else the machine runs.
  process.stdout.write(
    `OTEL_METRICS_EXPORTER=${mode}: ${Math.min(...rounds).toFixed(0)} µs per HTTP request with one gRPC call, ` +
      `best of ${ROUNDS} rounds of ${REQUESTS} (all: ${rounds.map((r) => r.toFixed(0)).join(', ')})\n`,
  );
  const records = 200_000;
  const started = process.hrtime.bigint();
  for (let i = 0; i < records; i++)
    recordRpcServerCall('/kb.knowledge.v1.KnowledgeService/ListCategories', i % 10 ? 'OK' : 'NOT_FOUND', 0.001);
  process.stdout.write(
    `OTEL_METRICS_EXPORTER=${mode}: ${(Number(process.hrtime.bigint() - started) / records).toFixed(0)} ` +
      `ns per rpc.server.call.duration record\n`,
  );
  web.close();
  agent.destroy();
  client.close();
  await server.shutdown(100);
}

void main();
