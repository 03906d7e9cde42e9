/**
 * Telemetry flushed on shutdown: a service stopped by SIGTERM (a rollout, a scale-down) exports
 * the spans it still holds before it exits. The gateway runs as its entry point runs it (the
 * OpenTelemetry preload, OTEL_* variables) with a batch delay far beyond the test, so the one
 * span it makes can only reach the receiver through the flush at shutdown.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import * as path from 'node:path';
import { freePort } from '@kb/devstack';
import { httpRequest } from '../support/stack';
import { startOtlpReceiver, type OtlpReceiver } from '../support/otlp-receiver';

const root = path.resolve(__dirname, '../..');
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

let receiver: OtlpReceiver;
let gateway: ChildProcess | undefined;
let log = '';

beforeAll(async () => {
  receiver = await startOtlpReceiver();
});

afterAll(async () => {
  if (gateway && gateway.exitCode === null && gateway.signalCode === null) {
    gateway.kill('SIGKILL');
    await new Promise((r) => gateway?.once('exit', r));
  }
  await receiver?.close();
});

test('when a service is stopped with SIGTERM right after answering, then the request span reaches the collector and it exits 0', async () => {
  const port = await freePort();
  const unused = `127.0.0.1:${await freePort()}`;
  const { OTEL_EXPORTER_OTLP_ENDPOINT: _o, OTEL_TRACES_EXPORTER: _t, OTEL_TRACES_SAMPLER: _s, OTEL_TRACES_SAMPLER_ARG: _a, ...inherited } = process.env;
  const child = spawn(process.execPath, ['--require', path.join(root, 'services/common/dist/telemetry.js'), path.join(root, 'services/gateway/dist/main.js')], {
    env: {
      ...inherited,
      HOST: '127.0.0.1',
      PORT: String(port),
      TENANT_MODE: 'host',
      // The OpenAPI document needs no back service: these addresses are never called.
      KNOWLEDGE_GRPC_ADDR: unused,
      CATALOG_GRPC_ADDR: unused,
      SIMILARITY_GRPC_ADDR: unused,
      OTEL_SERVICE_NAME: 'kb-gateway',
      OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
      OTEL_EXPORTER_OTLP_PROTOCOL: 'http/protobuf',
      // Nothing leaves on the batch timer during the test: only the flush at shutdown exports.
      OTEL_BSP_SCHEDULE_DELAY: '60000',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  gateway = child;
  child.stdout?.on('data', (c: Buffer) => (log += c.toString()));
  child.stderr?.on('data', (c: Buffer) => (log += c.toString()));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));

  // Liveness probes are not traced: waiting on /healthz leaves the exporter's buffer empty.
  const started = Date.now();
  let live = 0;
  while (live !== 200 && Date.now() - started < 30_000) {
    live = await httpRequest(port, 'localhost', '/healthz').then((r) => r.status, () => 0);
    if (live !== 200) await sleep(100);
  }
  if (live !== 200) throw new Error(`the gateway did not start:\n${log}`);

  const res = await httpRequest(port, 'localhost', '/api/knowledge/openapi.json');
  expect(res.status).toBe(200);
  expect(receiver.spans).toEqual([]);
  child.kill('SIGTERM');

  const code = await exited;
  const spans = await receiver
    .waitForSpans((all) => all.some((s) => s.service === 'kb-gateway' && s.kind === 'SERVER' && s.attributes['http.route'] === '/api/knowledge/openapi.json'), 5_000)
    .catch((err: Error) => {
      throw new Error(`${err.message}\ngateway log:\n${log}`);
    });
  expect(code).toBe(0);
  expect(spans.filter((s) => s.kind === 'SERVER')).toHaveLength(1);
}, 60_000);
