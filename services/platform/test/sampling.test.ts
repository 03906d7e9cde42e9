/** Who decides whether a request is traced: the configuration, never a client's traceparent. */
import { ROOT_CONTEXT, SpanKind, TraceFlags, trace, type Context } from '@opentelemetry/api';
import { tracing } from '@opentelemetry/sdk-node';
import { EdgeSampler, serviceSampler } from '../src/sampling';

const { SamplingDecision } = tracing;
const TRACE = '0af7651916cd43dd8448eb211c80319c';
const remote = (sampled: boolean): Context =>
  trace.setSpanContext(ROOT_CONTEXT, {
    traceId: TRACE,
    spanId: 'b7ad6b7169203331',
    traceFlags: sampled ? TraceFlags.SAMPLED : TraceFlags.NONE,
    isRemote: true,
  });
const local = (sampled: boolean): Context =>
  trace.setSpanContext(ROOT_CONTEXT, {
    traceId: TRACE,
    spanId: 'b7ad6b7169203331',
    traceFlags: sampled ? TraceFlags.SAMPLED : TraceFlags.NONE,
  });

const decide = (
  env: Record<string, string>,
  context: Context,
  kind = SpanKind.SERVER,
  attributes: Record<string, string> = {},
) => serviceSampler(env).shouldSample(context, TRACE, 'GET /api/knowledge/categories', kind, attributes, []).decision;

const ratio0 = { OTEL_TRACES_SAMPLER: 'parentbased_traceidratio', OTEL_TRACES_SAMPLER_ARG: '0' };
const alwaysOn = { OTEL_TRACES_SAMPLER: 'parentbased_always_on' };

test("when an HTTP request carries a sampled traceparent and the ratio is 0, then it is not sampled (the client's flag is a wish)", () => {
  expect(decide(ratio0, remote(true))).toBe(SamplingDecision.NOT_RECORD);
});

test('when the configuration traces everything, then a request with an unsampled traceparent is traced too', () => {
  expect(decide(alwaysOn, remote(false))).toBe(SamplingDecision.RECORD_AND_SAMPLED);
});

test("when a gRPC call carries the calling service's decision, then it is followed either way", () => {
  const grpc = { 'rpc.system': 'grpc' };
  expect(decide(ratio0, remote(true), SpanKind.SERVER, grpc)).toBe(SamplingDecision.RECORD_AND_SAMPLED);
  expect(decide(alwaysOn, remote(false), SpanKind.SERVER, grpc)).toBe(SamplingDecision.NOT_RECORD);
});

test("when a span's parent is in the same process, then it follows the parent", () => {
  expect(decide(ratio0, local(true), SpanKind.INTERNAL)).toBe(SamplingDecision.RECORD_AND_SAMPLED);
  expect(decide(alwaysOn, local(false), SpanKind.INTERNAL)).toBe(SamplingDecision.NOT_RECORD);
});

test('when sampled traceparents arrive over HTTP at ratio 0.1, then a tenth are sampled, whatever trace id the client picked', () => {
  let n = 0;
  const sampler = new EdgeSampler(serviceSampler(ratio0), 0.1, () => (n++ % 10) / 10);
  const decisions = Array.from(
    { length: 1000 },
    () =>
      sampler.shouldSample(remote(true), '00000000000000000000000000000000', 'GET /', SpanKind.SERVER, {}, []).decision,
  );
  expect(decisions.filter((d) => d === SamplingDecision.RECORD_AND_SAMPLED)).toHaveLength(100);
});

test('when no traceparent comes, then the configured ratio decides at the root', () => {
  expect(decide(ratio0, ROOT_CONTEXT)).toBe(SamplingDecision.NOT_RECORD);
  expect(decide(alwaysOn, ROOT_CONTEXT)).toBe(SamplingDecision.RECORD_AND_SAMPLED);
});
