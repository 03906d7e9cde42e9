/**
 * Telemetry flushed on shutdown: a service stopped by SIGTERM (a rollout, a scale-down) exports
 * the spans it still holds before it exits. The gateway runs as its entry point runs it (the
 * OpenTelemetry preload, OTEL_* variables) with a batch delay far beyond the test, so the one
 * span it makes can only reach the receiver through the flush at shutdown.
 */
import { freePort } from '@kb/devstack';
import { httpRequest } from '../support/stack';
import { startOtlpReceiver, type OtlpReceiver } from '../support/otlp-receiver';
import { startServiceProcess, type ServiceProcess } from '../support/service-process';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

let receiver: OtlpReceiver;
let gateway: ServiceProcess | undefined;

beforeAll(async () => {
  receiver = await startOtlpReceiver();
});

afterAll(async () => {
  await gateway?.stop('SIGKILL');
  await receiver?.close();
});

test(
  'when a service is stopped with SIGTERM right after answering, ' +
    'then the request span reaches the collector and it exits 0',
  async () => {
    const port = await freePort();
    const unused = `127.0.0.1:${await freePort()}`;
    const service = startServiceProcess('gateway', {
      HOST: '127.0.0.1',
      PORT: String(port),
      TENANT_MODE: 'host',
      // The OpenAPI document needs no back service: these addresses are never called.
      KNOWLEDGE_GRPC_ADDR: unused,
      CATALOG_GRPC_ADDR: unused,
      SIMILARITY_GRPC_ADDR: unused,
      OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
      OTEL_EXPORTER_OTLP_PROTOCOL: 'http/protobuf',
      // Nothing leaves on the batch timer during the test: only the flush at shutdown exports.
      OTEL_BSP_SCHEDULE_DELAY: '60000',
      OTEL_TRACES_SAMPLER: 'parentbased_always_on', // this request's span is the one to flush
    });
    gateway = service;

    // Liveness probes are not traced: waiting on /healthz leaves the exporter's buffer empty.
    const started = Date.now();
    let live = 0;
    while (live !== 200 && Date.now() - started < 30_000) {
      live = await httpRequest(port, 'localhost', '/healthz').then(
        (r) => r.status,
        () => 0,
      );
      if (live !== 200) await sleep(100);
    }
    if (live !== 200) throw new Error(`the gateway did not start:\n${service.log()}`);

    const res = await httpRequest(port, 'localhost', '/api/knowledge/openapi.json');
    expect(res.status).toBe(200);
    expect(receiver.spans).toEqual([]);
    const stopped = service.stop('SIGTERM');
    const code = await service.exited;
    const spans = await receiver
      .waitForSpans(
        (all) =>
          all.some(
            (s) =>
              s.service === 'kb-gateway' &&
              s.kind === 'SERVER' &&
              s.attributes['http.route'] === '/api/knowledge/openapi.json',
          ),
        5_000,
      )
      .catch((err: Error) => {
        throw new Error(`${err.message}\ngateway log:\n${service.log()}`);
      });
    await stopped;
    expect(code).toBe(0);
    expect(spans.filter((s) => s.kind === 'SERVER')).toHaveLength(1);
  },
  60_000,
);
