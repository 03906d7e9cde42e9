import type * as grpc from '@grpc/grpc-js';

/**
 * Client-side balancing (DESIGN.md: "Calls between services are balanced over pods on the
 * client side"): every channel resolves all the pods of a service (a headless Service's DNS
 * name, or a static list of addresses) and spreads its calls over them round robin. A frozen
 * pod's connection is found by keepalive pings and skipped; an idempotent read that meets
 * UNAVAILABLE is tried once more, on the next pod; the servers close every connection after a
 * bounded age (startGrpcServer), so a client re-resolves and a new pod gets its share.
 */

/** How often a client pings an open connection, and how long it waits for the answer before it drops it. */
export const DEFAULT_KEEPALIVE_TIME_MS = 10_000;
export const DEFAULT_KEEPALIVE_TIMEOUT_MS = 5_000;

/**
 * The reads of each service, by full service name: they change nothing, so a call that met
 * UNAVAILABLE (a pod gone, or one that cannot reach its database) is made once more, on another
 * pod. Writes are never retried by the channel: a write that reached a pod before its
 * connection broke may have happened. Read off protos/ (every rpc of a service not listed here
 * is a write, or costs too much to make twice).
 */
export const IDEMPOTENT_READS: Record<string, readonly string[]> = {
  'kb.knowledge.v1.KnowledgeService': [
    'ResolveTenant',
    'AuthenticateApiToken',
    'ListCategories',
    'GetCategory',
    'GetEntry',
    'ListEntries',
    'ListEntryVersions',
    'ListTranslations',
    'SearchEntries',
    'EntrySearchAccess',
  ],
  'kb.catalog.v1.CatalogService': ['ListSites', 'GetSite', 'GetProduct', 'SimilarProducts', 'SearchProducts'],
  'kb.similarity.v1.SimilarityService': [
    'Embed',
    'DescribeModel',
    'SimilarProducts',
    'SearchProducts',
    'SearchEntries',
  ],
  'grpc.health.v1.Health': ['Check'],
};

/**
 * The channels' service config (gRPC's service config JSON, as grpc-js reads it): round robin
 * over every resolved address, and one retry of a read on UNAVAILABLE. Retries are throttled
 * per channel (gRPC's token bucket: each failure costs 1 of 10 tokens, each success gives back
 * 0.1; below half, no retry), so a service whose every pod is down is not called twice as often.
 */
export function serviceConfig(reads: Record<string, readonly string[]> = IDEMPOTENT_READS): object {
  return {
    loadBalancingConfig: [{ round_robin: {} }],
    methodConfig: [
      {
        name: Object.entries(reads).flatMap(([service, methods]) => methods.map((method) => ({ service, method }))),
        retryPolicy: {
          maxAttempts: 2,
          initialBackoff: '0.05s',
          maxBackoff: '0.2s',
          backoffMultiplier: 2,
          retryableStatusCodes: ['UNAVAILABLE'],
        },
      },
    ],
    retryThrottling: { maxTokens: 10, tokenRatio: 0.1 },
  };
}

export interface BalancingSettings {
  keepaliveTimeMs?: number;
  keepaliveTimeoutMs?: number;
  /** The reads retried once (default IDEMPOTENT_READS). */
  reads?: Record<string, readonly string[]>;
}

/**
 * Channel options of a balanced client: the service config above and keepalive pings, also
 * while no call is open (a frozen pod's idle connection is dropped before a call is sent to it).
 * grpc-js servers enforce no ping policy (unlike gRPC's C core, they never answer pings with
 * GOAWAY ENHANCE_YOUR_CALM), so a ping every 10 s is accepted.
 */
export function balancingOptions(settings: BalancingSettings = {}): grpc.ChannelOptions {
  return {
    'grpc.service_config': JSON.stringify(serviceConfig(settings.reads)),
    // The config is ours: no TXT lookup of one in DNS.
    'grpc.service_config_disable_resolution': 1,
    'grpc.keepalive_time_ms': settings.keepaliveTimeMs ?? DEFAULT_KEEPALIVE_TIME_MS,
    'grpc.keepalive_timeout_ms': settings.keepaliveTimeoutMs ?? DEFAULT_KEEPALIVE_TIMEOUT_MS,
    'grpc.keepalive_permit_without_calls': 1,
  };
}

const IPV4 = '\\d{1,3}(?:\\.\\d{1,3}){3}:\\d{1,5}';
const IPV6 = '\\[[0-9A-Fa-f:.]+\\]:\\d{1,5}';

/**
 * What a `*_GRPC_ADDR` setting may be: `host:port` (DNS, or an IP), `dns:///host:port` (e.g. a
 * Kubernetes headless Service: every pod's address), or a comma-separated list of IPv4
 * `ip:port` (or IPv6 `[ip]:port`) addresses, e.g. the replicas of `npm start -- --replicas 2`.
 */
export const GRPC_ADDRESS_PATTERN = `^(?:(?:dns:///)?[^\\s:,/\\[\\]]+:\\d{1,5}|${IPV4}(?:,${IPV4})+|${IPV6}(?:,${IPV6})*)$`;

/** In words, for the message naming a bad setting. */
export const GRPC_ADDRESS_EXPECTED = 'host:port, dns:///host:port, or a comma-separated list of ip:port';

/**
 * The grpc-js target of an address setting: a list becomes one `ipv4:` (or `ipv6:`) target,
 * which grpc-js's IP resolver turns into one address per entry; the other forms are targets
 * already (grpc-js resolves a bare `host:port` through DNS too).
 */
export function grpcTarget(address: string): string {
  if (!address.includes(',')) return address;
  return `${address.startsWith('[') ? 'ipv6' : 'ipv4'}:${address}`;
}
