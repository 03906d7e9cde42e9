import { context, trace, type Span } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { suppressTracing } from '@opentelemetry/core';
import { AlwaysOffSampler, AlwaysOnSampler, BasicTracerProvider } from '@opentelemetry/sdk-trace-base';
import { statementIfRecorded } from '../src/tracing';

/** The MongoDB instrumentation's statement, asked as it asks it: inside the context of the span the command runs under. */
const command = {
  update: 'products',
  updates: [{ q: { tenant_id: 't1', _id: 'p1', version: 3 }, u: { $set: { needs_index: false } } }],
};
const under = (span: Span | undefined, suppressed = false) => {
  let ctx = span ? trace.setSpan(context.active(), span) : context.active();
  if (suppressed) ctx = suppressTracing(ctx);
  return context.with(ctx, () => statementIfRecorded(command));
};

describe('db.query.text of MongoDB spans', () => {
  const manager = new AsyncLocalStorageContextManager().enable();
  beforeAll(() => context.setGlobalContextManager(manager));
  afterAll(() => {
    context.disable();
  });
  const sampled = new BasicTracerProvider({ sampler: new AlwaysOnSampler() }).getTracer('test');
  const unsampled = new BasicTracerProvider({ sampler: new AlwaysOffSampler() }).getTracer('test');

  test('when the command runs under a recorded span, then its shape is written with every value as ?', () => {
    const span = sampled.startSpan('request');
    expect(span.isRecording()).toBe(true);
    expect(under(span)).toBe(
      '{"update":"?","updates":[{"q":{"tenant_id":"?","_id":"?","version":"?"},"u":{"$set":{"needs_index":"?"}}}]}',
    );
    span.end();
  });

  test(
    'when the request is not sampled, when tracing is suppressed (under ' +
      "mongoose's span) or there is no span, then nothing is built",
    () => {
      const notSampled = unsampled.startSpan('request');
      expect(notSampled.isRecording()).toBe(false);
      expect(under(notSampled)).toBe('');
      const span = sampled.startSpan('mongoose');
      expect(under(span, true)).toBe('');
      span.end();
      expect(under(undefined)).toBe('');
    },
  );

  test('when a command refers to itself, then it is written once and marked circular', () => {
    const span = sampled.startSpan('request');
    const loop: Record<string, unknown> = { find: 'x' };
    loop['self'] = loop;
    expect(context.with(trace.setSpan(context.active(), span), () => statementIfRecorded(loop))).toBe(
      '{"find":"?","self":"[Circular]"}',
    );
    span.end();
  });
});
