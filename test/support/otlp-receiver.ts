/**
 * A real OTLP/HTTP trace receiver for tests: what an OpenTelemetry collector would be, reduced
 * to collecting spans. Listens on 127.0.0.1, port 0 by default (host networking: containers
 * reach it at the same address); point a service at it with
 * `OTEL_EXPORTER_OTLP_ENDPOINT=<receiver.url>`. Accepts POST /v1/traces as
 * `application/x-protobuf` (the exporters' default, `http/protobuf`) and `application/json`
 * (`http/json`), gzip or not; /v1/metrics and /v1/logs are acknowledged and dropped.
 *
 *   const receiver = await startOtlpReceiver();
 *   // ... OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url, OTEL_BSP_SCHEDULE_DELAY: '100'
 *   const spans = await receiver.waitForSpans((all) => all.some((s) => s.service === 'kb-catalog'), 10_000);
 *   receiver.spansOf(traceId); receiver.tree(traceId); await receiver.close();
 */
import { createServer, type IncomingMessage } from 'node:http';
import { gunzipSync } from 'node:zlib';
import * as protobuf from 'protobufjs';

export type AttributeValue = string | number | boolean | null | AttributeValue[] | { [key: string]: AttributeValue };

/** One span as received, in plain values (ids in lower-case hex, as in a traceparent). */
export interface ReceivedSpan {
  /** The resource's `service.name` (OTEL_SERVICE_NAME). */
  service: string;
  resource: Record<string, AttributeValue>;
  traceId: string;
  spanId: string;
  /** Absent on a root span; for a span continuing a remote trace, the caller's span id. */
  parentSpanId?: string;
  name: string;
  kind: 'UNSPECIFIED' | 'INTERNAL' | 'SERVER' | 'CLIENT' | 'PRODUCER' | 'CONSUMER';
  attributes: Record<string, AttributeValue>;
  status: { code: 'UNSET' | 'OK' | 'ERROR'; message?: string };
  /** Unix epoch nanoseconds, as decimal strings (they do not fit a number). */
  startTimeUnixNano: string;
  endTimeUnixNano: string;
}

export interface OtlpReceiver {
  /** `http://127.0.0.1:<port>`: the value for OTEL_EXPORTER_OTLP_ENDPOINT. */
  readonly url: string;
  readonly port: number;
  /** Every span received so far, in arrival order. */
  readonly spans: readonly ReceivedSpan[];
  /** The spans of one trace received so far. */
  spansOf(traceId: string): ReceivedSpan[];
  /**
   * Resolves with all spans received once `predicate(all spans)` holds; rejects after
   * `timeoutMs` with a summary of what did arrive (exporters batch: expect 100 ms+ of delay).
   */
  waitForSpans(predicate: (spans: readonly ReceivedSpan[]) => boolean, timeoutMs?: number): Promise<ReceivedSpan[]>;
  /** One trace as an indented tree, `service: name (KIND)` per line: for failure messages. */
  tree(traceId: string): string;
  /** Forgets the spans received so far. */
  clear(): void;
  close(): Promise<void>;
}

// The messages of opentelemetry-proto v1 that a trace export carries (fields the receiver does
// not read, such as events and links, are skipped by the decoder as unknown fields).
const OTLP_TRACE_PROTO = `
syntax = "proto3";
package opentelemetry.proto;
message AnyValue {
  oneof value { string string_value = 1; bool bool_value = 2; int64 int_value = 3; double double_value = 4;
    ArrayValue array_value = 5; KeyValueList kvlist_value = 6; bytes bytes_value = 7; }
}
message ArrayValue { repeated AnyValue values = 1; }
message KeyValueList { repeated KeyValue values = 1; }
message KeyValue { string key = 1; AnyValue value = 2; }
message Resource { repeated KeyValue attributes = 1; uint32 dropped_attributes_count = 2; }
message InstrumentationScope { string name = 1; string version = 2; repeated KeyValue attributes = 3; }
message Status { string message = 2; int32 code = 3; }
message Span {
  bytes trace_id = 1; bytes span_id = 2; string trace_state = 3; bytes parent_span_id = 4; string name = 5;
  int32 kind = 6; fixed64 start_time_unix_nano = 7; fixed64 end_time_unix_nano = 8;
  repeated KeyValue attributes = 9; Status status = 15; fixed32 flags = 16;
}
message ScopeSpans { InstrumentationScope scope = 1; repeated Span spans = 2; string schema_url = 3; }
message ResourceSpans { Resource resource = 1; repeated ScopeSpans scope_spans = 2; string schema_url = 3; }
message ExportTraceServiceRequest { repeated ResourceSpans resource_spans = 1; }
`;
const exportRequest = protobuf
  .parse(OTLP_TRACE_PROTO, { keepCase: false })
  .root.lookupType('opentelemetry.proto.ExportTraceServiceRequest');

const KINDS: ReceivedSpan['kind'][] = ['UNSPECIFIED', 'INTERNAL', 'SERVER', 'CLIENT', 'PRODUCER', 'CONSUMER'];
const STATUS_CODES: ReceivedSpan['status']['code'][] = ['UNSET', 'OK', 'ERROR'];

/**
 * The export request in OTLP/JSON's shape (lowerCamelCase keys, ids as hex): protobuf is
 * decoded into it so that one reader serves both encodings.
 */
interface OtlpAnyValue {
  stringValue?: string;
  boolValue?: boolean;
  intValue?: string | number;
  doubleValue?: number;
  arrayValue?: { values?: OtlpAnyValue[] };
  kvlistValue?: { values?: OtlpKeyValue[] };
  bytesValue?: string;
}
interface OtlpKeyValue {
  key: string;
  value?: OtlpAnyValue;
}
interface OtlpSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  kind?: number | string;
  startTimeUnixNano?: string | number;
  endTimeUnixNano?: string | number;
  attributes?: OtlpKeyValue[];
  status?: { code?: number | string; message?: string };
}
interface OtlpExport {
  resourceSpans?: { resource?: { attributes?: OtlpKeyValue[] }; scopeSpans?: { spans?: OtlpSpan[] }[] }[];
}

const hex = (bytes: Uint8Array | undefined) => (bytes && bytes.length ? Buffer.from(bytes).toString('hex') : '');

function fromProtobuf(body: Buffer): OtlpExport {
  const decoded = exportRequest.toObject(exportRequest.decode(body), {
    longs: String,
    bytes: Array,
    defaults: false,
    oneofs: false,
  });
  // Bytes come back as number arrays: ids as hex, as OTLP/JSON writes them; bytes values as base64.
  const value = (v: Record<string, unknown> | undefined): OtlpAnyValue | undefined => {
    if (!v) return undefined;
    const out = { ...v } as OtlpAnyValue & {
      bytesValue?: unknown;
      arrayValue?: { values?: unknown[] };
      kvlistValue?: { values?: unknown[] };
    };
    if (Array.isArray(v.bytesValue)) out.bytesValue = Buffer.from(v.bytesValue as number[]).toString('base64');
    if (out.arrayValue)
      out.arrayValue = {
        values: (out.arrayValue.values ?? []).map((x) => value(x as Record<string, unknown>)) as OtlpAnyValue[],
      };
    if (out.kvlistValue) out.kvlistValue = { values: keyValues(out.kvlistValue.values as Record<string, unknown>[]) };
    return out;
  };
  const keyValues = (kvs: Record<string, unknown>[] | undefined): OtlpKeyValue[] =>
    (kvs ?? []).map((kv) => ({ key: kv.key as string, value: value(kv.value as Record<string, unknown> | undefined) }));
  const bytes = (b: unknown) => hex(Array.isArray(b) ? Uint8Array.from(b as number[]) : undefined);
  type Decoded = {
    resourceSpans?: {
      resource?: { attributes?: Record<string, unknown>[] };
      scopeSpans?: { spans?: Record<string, unknown>[] }[];
    }[];
  };
  return {
    resourceSpans: ((decoded as Decoded).resourceSpans ?? []).map((rs) => ({
      resource: { attributes: keyValues(rs.resource?.attributes) },
      scopeSpans: (rs.scopeSpans ?? []).map((ss) => ({
        spans: (ss.spans ?? []).map((s) => ({
          ...(s as unknown as OtlpSpan),
          traceId: bytes(s.traceId),
          spanId: bytes(s.spanId),
          parentSpanId: bytes(s.parentSpanId),
          attributes: keyValues(s.attributes as Record<string, unknown>[] | undefined),
        })),
      })),
    })),
  };
}

function plainValue(v: OtlpAnyValue | undefined): AttributeValue {
  if (!v) return null;
  if (v.stringValue !== undefined) return v.stringValue;
  if (v.boolValue !== undefined) return v.boolValue;
  if (v.intValue !== undefined) return Number(v.intValue);
  if (v.doubleValue !== undefined) return Number(v.doubleValue);
  if (v.arrayValue) return (v.arrayValue.values ?? []).map(plainValue);
  if (v.kvlistValue) return plainAttributes(v.kvlistValue.values);
  if (v.bytesValue !== undefined) return v.bytesValue;
  return null;
}

function plainAttributes(kvs: OtlpKeyValue[] | undefined): Record<string, AttributeValue> {
  return Object.fromEntries((kvs ?? []).map((kv) => [kv.key, plainValue(kv.value)]));
}

/** An enum from its number (protobuf, OTLP/JSON) or its proto name (`SPAN_KIND_SERVER`). */
const enumName = <T extends string>(names: T[], v: number | string | undefined, prefix: string): T =>
  (typeof v === 'string' ? names.find((n) => `${prefix}${n}` === v || n === v) : names[v ?? 0]) ?? (names[0] as T);

function plainSpans(payload: OtlpExport): ReceivedSpan[] {
  const out: ReceivedSpan[] = [];
  for (const rs of payload.resourceSpans ?? []) {
    const resource = plainAttributes(rs.resource?.attributes);
    for (const ss of rs.scopeSpans ?? []) {
      for (const s of ss.spans ?? []) {
        out.push({
          service: String(resource['service.name'] ?? ''),
          resource,
          traceId: s.traceId.toLowerCase(),
          spanId: s.spanId.toLowerCase(),
          ...(s.parentSpanId ? { parentSpanId: s.parentSpanId.toLowerCase() } : {}),
          name: s.name,
          kind: enumName(KINDS, s.kind, 'SPAN_KIND_'),
          attributes: plainAttributes(s.attributes),
          status: {
            code: enumName(STATUS_CODES, s.status?.code, 'STATUS_CODE_'),
            ...(s.status?.message ? { message: s.status.message } : {}),
          },
          startTimeUnixNano: String(s.startTimeUnixNano ?? '0'),
          endTimeUnixNano: String(s.endTimeUnixNano ?? '0'),
        });
      }
    }
  }
  return out;
}

async function readBody(req: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  const body = Buffer.concat(chunks);
  return /gzip/i.test(req.headers['content-encoding'] ?? '') ? gunzipSync(body) : body;
}

/** Renders a trace as a tree: each span under its parent, siblings by start time. */
function renderTree(spans: ReceivedSpan[]): string {
  const ids = new Set(spans.map((s) => s.spanId));
  const children = new Map<string, ReceivedSpan[]>();
  for (const s of spans) {
    const key = s.parentSpanId && ids.has(s.parentSpanId) ? s.parentSpanId : '';
    children.set(key, [...(children.get(key) ?? []), s]);
  }
  const lines: string[] = [];
  const walk = (parent: string, depth: number) => {
    const list = (children.get(parent) ?? []).sort((a, b) =>
      BigInt(a.startTimeUnixNano) < BigInt(b.startTimeUnixNano) ? -1 : 1,
    );
    for (const s of list) {
      const orphan = depth === 0 && s.parentSpanId ? ` [parent ${s.parentSpanId} not in trace]` : '';
      lines.push(
        `${'  '.repeat(depth)}${s.service}: ${s.name} (${s.kind}${s.status.code === 'ERROR' ? ', ERROR' : ''})${orphan}`,
      );
      walk(s.spanId, depth + 1);
    }
  };
  walk('', 0);
  return lines.join('\n');
}

export async function startOtlpReceiver(options: { host?: string; port?: number } = {}): Promise<OtlpReceiver> {
  const spans: ReceivedSpan[] = [];
  const waiters = new Set<() => void>();
  const server = createServer((req, res) => {
    const type = (req.headers['content-type'] ?? '').split(';')[0]?.trim().toLowerCase() ?? '';
    const protobufBody = type === 'application/x-protobuf';
    const answer = (status: number, body?: string) => {
      res.statusCode = status;
      if (protobufBody) res.setHeader('Content-Type', 'application/x-protobuf');
      else res.setHeader('Content-Type', 'application/json');
      // An empty Export*ServiceResponse: zero bytes in protobuf, {} in JSON.
      res.end(body ?? (protobufBody ? '' : '{}'));
    };
    if (req.method !== 'POST' || !['/v1/traces', '/v1/metrics', '/v1/logs'].includes(req.url ?? '')) {
      req.resume();
      return answer(404, JSON.stringify({ message: 'not an OTLP/HTTP path' }));
    }
    if (!protobufBody && type !== 'application/json') {
      req.resume();
      return answer(415, JSON.stringify({ message: `unsupported content type ${type}` }));
    }
    readBody(req).then(
      (body) => {
        if (req.url === '/v1/traces') {
          try {
            spans.push(
              ...plainSpans(protobufBody ? fromProtobuf(body) : (JSON.parse(body.toString('utf8')) as OtlpExport)),
            );
          } catch (err) {
            return answer(400, JSON.stringify({ message: `undecodable export: ${(err as Error).message}` }));
          }
          for (const wake of waiters) wake();
        }
        answer(200);
      },
      (err: Error) => answer(400, JSON.stringify({ message: err.message })),
    );
  });
  const host = options.host ?? '127.0.0.1';
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, host, resolve);
  });
  const port = (server.address() as { port: number }).port;

  const spansOf = (traceId: string) => spans.filter((s) => s.traceId === traceId.toLowerCase());
  return {
    url: `http://${host.includes(':') ? `[${host}]` : host}:${port}`,
    port,
    spans,
    spansOf,
    tree: (traceId) => renderTree(spansOf(traceId)),
    clear: () => void spans.splice(0),
    waitForSpans(predicate, timeoutMs = 10_000) {
      return new Promise((resolve, reject) => {
        const check = () => {
          if (!predicate(spans)) return false;
          finish();
          resolve([...spans]);
          return true;
        };
        const timer = setTimeout(() => {
          finish();
          const seen = [...new Set(spans.map((s) => `${s.service}: ${s.name}`))].slice(0, 60).join('; ');
          reject(
            new Error(
              `OTLP receiver: spans not as expected after ${timeoutMs} ms (${spans.length} received: ${seen || 'none'})`,
            ),
          );
        }, timeoutMs);
        const finish = () => {
          clearTimeout(timer);
          waiters.delete(check);
        };
        if (!check()) waiters.add(check);
      });
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
