import { SpanKind, trace, type Attributes, type Context, type Link } from '@opentelemetry/api';
import { tracing } from '@opentelemetry/sdk-node';

type Sampler = tracing.Sampler;
type SamplingResult = tracing.SamplingResult;
const { AlwaysOffSampler, AlwaysOnSampler, ParentBasedSampler, SamplingDecision, TraceIdRatioBasedSampler } = tracing;

/**
 * The sampler OTEL_TRACES_SAMPLER and OTEL_TRACES_SAMPLER_ARG describe (the SDK's own values),
 * and the share of requests it traces when it decides by itself.
 */
function configured(env: NodeJS.ProcessEnv): { sampler: Sampler; ratio: number } {
  const arg = Number(env.OTEL_TRACES_SAMPLER_ARG);
  const probability = env.OTEL_TRACES_SAMPLER_ARG?.trim() && arg >= 0 && arg <= 1 ? arg : 1;
  switch (env.OTEL_TRACES_SAMPLER?.trim()) {
    case 'always_on':
      return { sampler: new AlwaysOnSampler(), ratio: 1 };
    case 'always_off':
      return { sampler: new AlwaysOffSampler(), ratio: 0 };
    case 'traceidratio':
      return { sampler: new TraceIdRatioBasedSampler(probability), ratio: probability };
    case 'parentbased_always_off':
      return { sampler: new ParentBasedSampler({ root: new AlwaysOffSampler() }), ratio: 0 };
    case 'parentbased_traceidratio':
      return {
        sampler: new ParentBasedSampler({ root: new TraceIdRatioBasedSampler(probability) }),
        ratio: probability,
      };
    default: // parentbased_always_on, the SDK's default (and what it falls back to for a value it does not know)
      return { sampler: new ParentBasedSampler({ root: new AlwaysOnSampler() }), ratio: 1 };
  }
}

/**
 * The configured sampler, except for a request that arrives over HTTP with a `traceparent`: a
 * client's sampled flag is a wish, not a decision, or any client could have every one of its
 * requests traced (and, at the default ratio, cost ten times its share). Such a request keeps
 * the client's trace id, so its trace can still be found, but is sampled at the configured
 * ratio by chance: not from the trace id either, which the client chose. A remote parent from a
 * gRPC call (a sibling service of the install, authenticated) is followed as configured.
 */
export class EdgeSampler implements Sampler {
  constructor(
    private readonly inner: Sampler,
    private readonly ratio: number,
    private readonly random: () => number = Math.random,
  ) {}

  shouldSample(
    context: Context,
    traceId: string,
    spanName: string,
    spanKind: SpanKind,
    attributes: Attributes,
    links: Link[],
  ): SamplingResult {
    const parent = trace.getSpanContext(context);
    const fromClient = parent?.isRemote && spanKind === SpanKind.SERVER && attributes['rpc.system'] === undefined;
    if (fromClient)
      return {
        decision: this.random() < this.ratio ? SamplingDecision.RECORD_AND_SAMPLED : SamplingDecision.NOT_RECORD,
      };
    return this.inner.shouldSample(context, traceId, spanName, spanKind, attributes, links);
  }

  toString(): string {
    return `EdgeSampler{ratio=${this.ratio}, otherwise ${this.inner.toString()}}`;
  }
}

/** The services' sampler: OTEL_TRACES_SAMPLER(_ARG) as the SDK reads them, under EdgeSampler's rule. */
export function serviceSampler(env: NodeJS.ProcessEnv = process.env): Sampler {
  const { sampler, ratio } = configured(env);
  return new EdgeSampler(sampler, ratio);
}
