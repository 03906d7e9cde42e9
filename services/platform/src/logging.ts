import pino, { type Logger } from 'pino';
import { isSpanContextValid, trace } from '@opentelemetry/api';

export type { Logger };

/**
 * JSON logs on stdout. Every line carries the active trace and span ids (when a span is
 * active) so logs and traces join; request ids are added with `logger.child({request_id})`.
 */
export function createLogger(service: string, level = process.env.LOG_LEVEL ?? 'info'): Logger {
  return pino({
    name: service,
    level,
    base: { service },
    timestamp: pino.stdTimeFunctions.isoTime,
    formatters: { level: (label) => ({ level: label }) },
    mixin() {
      const context = trace.getActiveSpan()?.spanContext();
      if (!context || !isSpanContextValid(context)) return {};
      return { trace_id: context.traceId, span_id: context.spanId };
    },
  });
}
