import type { SpanReceiver } from './spans';

/** The services' settings that export their traces to the benchmark's receiver. */
export const tracingOn = (receiver: SpanReceiver) => ({
  OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
  OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
  OTEL_BSP_SCHEDULE_DELAY: '1000',
});
