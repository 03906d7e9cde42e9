/**
 * A minimal OTLP/HTTP receiver (JSON encoding) on 127.0.0.1: the services export their spans to
 * it, and the benchmark reads one traced request back as a per-hop breakdown.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Span {
  service: string;
  scope: string;
  traceId: string;
  spanId: string;
  parentSpanId: string;
  name: string;
  kind: number;
  start: number;
  end: number;
  attributes: Record<string, unknown>;
}

interface OtlpValue {
  stringValue?: string;
  intValue?: string | number;
  doubleValue?: number;
  boolValue?: boolean;
}
interface OtlpAttribute {
  key: string;
  value: OtlpValue;
}

const value = (v: OtlpValue) => v.stringValue ?? v.intValue ?? v.doubleValue ?? v.boolValue;
const attributes = (xs: OtlpAttribute[] = []) => Object.fromEntries(xs.map((a) => [a.key, value(a.value)]));

export class SpanReceiver {
  readonly spans: Span[] = [];
  exported = 0;
  private constructor(private readonly server: Server) {}

  static async start(): Promise<SpanReceiver> {
    let receiver: SpanReceiver | undefined;
    const server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        if (req.url?.startsWith('/v1/traces')) receiver?.accept(Buffer.concat(chunks).toString('utf8'));
        res.writeHead(200, { 'Content-Type': 'application/json' }).end('{}');
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    receiver = new SpanReceiver(server);
    return receiver;
  }

  get url(): string {
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  private accept(body: string): void {
    let parsed: {
      resourceSpans?: {
        resource?: { attributes?: OtlpAttribute[] };
        scopeSpans?: { scope?: { name?: string }; spans?: Record<string, unknown>[] }[];
      }[];
    };
    try {
      parsed = JSON.parse(body);
    } catch {
      return;
    }
    for (const rs of parsed.resourceSpans ?? []) {
      const service = String(attributes(rs.resource?.attributes)['service.name'] ?? '?');
      for (const ss of rs.scopeSpans ?? []) {
        for (const s of ss.spans ?? []) {
          this.exported++;
          this.spans.push({
            service,
            scope: ss.scope?.name ?? '',
            traceId: String(s.traceId),
            spanId: String(s.spanId),
            parentSpanId: String(s.parentSpanId ?? ''),
            name: String(s.name),
            kind: Number(s.kind),
            start: Number(s.startTimeUnixNano) / 1e6,
            end: Number(s.endTimeUnixNano) / 1e6,
            attributes: attributes(s.attributes as OtlpAttribute[]),
          });
        }
      }
    }
    // Only the traced requests are kept for reading; the rest is counted.
    if (this.spans.length > 50_000) this.spans.splice(0, this.spans.length - 50_000);
  }

  trace(traceId: string): Span[] {
    return this.spans.filter((s) => s.traceId === traceId);
  }

  close(): Promise<void> {
    return new Promise((resolve) => this.server.close(() => resolve()));
  }
}

export interface Hop {
  hop: string;
  ms: number;
}

/** Time of `span` not covered by its children (overlapping children counted once). */
function selfTime(span: Span, children: Span[]): number {
  const intervals = children
    .map((c) => [Math.max(c.start, span.start), Math.min(c.end, span.end)] as const)
    .filter(([a, b]) => b > a)
    .sort((x, y) => x[0] - y[0]);
  let covered = 0;
  let until = span.start;
  for (const [a, b] of intervals) {
    if (b <= until) continue;
    covered += b - Math.max(a, until);
    until = b;
  }
  return span.end - span.start - covered;
}

/** What a span stands for in the breakdown: the backend it calls, or the service's own work. */
function category(s: Span, parentOf: (s: Span) => Span | undefined): string {
  // The HTTP request under an Elasticsearch client span is Elasticsearch's answer.
  const parent = parentOf(s);
  if (parent && s.kind === 3 && /http|undici/i.test(s.scope) && category(parent, parentOf) === 'Elasticsearch')
    return 'Elasticsearch';
  const system = String(s.attributes['db.system'] ?? s.attributes['db.system.name'] ?? '');
  if (/mongo/i.test(system) || /mongo/i.test(s.scope)) return 'MongoDB';
  if (/elasticsearch/i.test(system) || /elasticsearch/i.test(s.scope)) return 'Elasticsearch';
  if (s.name.startsWith('embeddings ')) return 'embedder';
  const service = s.service.replace(/^kb-/, '');
  if (s.kind === 3 && /grpc/i.test(s.scope))
    return `gRPC ${service} → ${String(s.attributes['rpc.service'] ?? '').split('.')[1] ?? ''}`;
  if (s.kind === 3 && /http|undici/i.test(s.scope)) return `${service} HTTP client`;
  return `${service} (own work)`;
}

/**
 * A trace as time per hop: each span's self time (its duration minus its children's) summed by
 * category. A gRPC client span's self time is the wire, framing and (de)serialisation between
 * two services; a database span's is the backend's answer as its client sees it.
 */
export function breakdown(spans: Span[]): { total: number; hops: Hop[] } {
  const children = new Map<string, Span[]>();
  for (const s of spans) children.set(s.parentSpanId, [...(children.get(s.parentSpanId) ?? []), s]);
  const ids = new Set(spans.map((s) => s.spanId));
  const roots = spans.filter((s) => !ids.has(s.parentSpanId));
  const total = Math.max(0, ...roots.map((r) => r.end - r.start));
  const byId = new Map(spans.map((s) => [s.spanId, s]));
  const parentOf = (s: Span) => byId.get(s.parentSpanId);
  const byHop = new Map<string, number>();
  for (const s of spans) {
    const hop = category(s, parentOf);
    byHop.set(hop, (byHop.get(hop) ?? 0) + selfTime(s, children.get(s.spanId) ?? []));
  }
  return { total, hops: [...byHop.entries()].map(([hop, ms]) => ({ hop, ms })).sort((a, b) => b.ms - a.ms) };
}
