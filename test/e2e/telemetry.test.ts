/**
 * Distributed tracing as an operator sees it: with OTEL_EXPORTER_OTLP_ENDPOINT set, the
 * gateway and the knowledge service (started as their entry points start them, with the
 * OpenTelemetry preload) export spans over OTLP, and one request is one trace across gRPC.
 * A real OTLP/HTTP receiver on 127.0.0.1 collects what they send.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { createServer, type Server } from 'node:http';
import * as path from 'node:path';
import { freePort } from '@kb/devstack';
import { httpRequest, uniqueId } from '../support/stack';

const root = path.resolve(__dirname, '../..');
const telemetry = path.join(root, 'services/common/dist/telemetry.js');

interface ExportedSpan {
  service: string;
  traceId: string;
  name: string;
}

let receiver: Server;
const spans: ExportedSpan[] = [];
const children: ChildProcess[] = [];

function collect(body: string): void {
  const payload = JSON.parse(body) as {
    resourceSpans: { resource: { attributes: { key: string; value: { stringValue?: string } }[] }; scopeSpans: { spans: { traceId: string; name: string }[] }[] }[];
  };
  for (const rs of payload.resourceSpans ?? []) {
    const service = rs.resource.attributes.find((a) => a.key === 'service.name')?.value.stringValue ?? '';
    for (const ss of rs.scopeSpans) for (const s of ss.spans) spans.push({ service, traceId: s.traceId, name: s.name });
  }
}

function startService(name: string, env: Record<string, string>): ChildProcess {
  const child = spawn(process.execPath, ['--require', telemetry, path.join(root, 'services', name, 'dist', 'main.js')], {
    env: { ...process.env, ...env, OTEL_SERVICE_NAME: `kb-${name}` },
    stdio: 'ignore',
  });
  children.push(child);
  return child;
}

beforeAll(async () => {
  receiver = createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString()));
    req.on('end', () => {
      if (req.url === '/v1/traces') collect(body);
      res.setHeader('Content-Type', 'application/json');
      res.end('{}');
    });
  });
  await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
});

afterAll(async () => {
  for (const c of children) c.kill('SIGTERM');
  await Promise.all(children.map((c) => new Promise((r) => (c.exitCode !== null ? r(null) : c.once('exit', r)))));
  receiver.close();
});

test('when a request crosses gateway and knowledge service, then both export spans of one trace over OTLP', async () => {
  const otel = {
    OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${(receiver.address() as { port: number }).port}`,
    OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
    OTEL_BSP_SCHEDULE_DELAY: '100',
  };
  const grpcPort = await freePort();
  const httpPort = await freePort();
  const mongo = new URL(process.env.MONGODB_URI as string);
  mongo.pathname = `/${uniqueId('kbotel')}`;
  startService('knowledge', { ...otel, MONGODB_URI: mongo.toString(), KNOWLEDGE_GRPC_PORT: String(grpcPort) });
  startService('gateway', { ...otel, PORT: String(httpPort), KNOWLEDGE_GRPC_ADDR: `127.0.0.1:${grpcPort}` });

  const deadline = Date.now() + 30_000;
  let status = 0;
  while (Date.now() < deadline) {
    status = await httpRequest(httpPort, 'traced.localhost', '/api/knowledge/categories', { token: 'kbt_000000000000_x', headers: { 'X-Request-Id': 'otel-1' } })
      .then((r) => r.status)
      .catch(() => 0);
    if (status === 404) break; // the knowledge service answered: no such tenant
    await new Promise((r) => setTimeout(r, 200));
  }
  expect(status).toBe(404);

  const exported = async (pred: () => boolean) => {
    const until = Date.now() + 10_000;
    while (!pred() && Date.now() < until) await new Promise((r) => setTimeout(r, 100));
    return pred();
  };
  const shared = () => {
    const gatewayTraces = new Set(spans.filter((s) => s.service === 'kb-gateway').map((s) => s.traceId));
    return spans.some((s) => s.service === 'kb-knowledge' && gatewayTraces.has(s.traceId) && /ResolveTenant/.test(s.name));
  };
  expect(await exported(shared)).toBe(true);
}, 60_000);
