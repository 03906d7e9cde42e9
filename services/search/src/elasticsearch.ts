import { Client } from '@elastic/elasticsearch';

/**
 * The Elasticsearch client. Short request timeouts and one retry: a request must fail fast
 * (and be answered 503) rather than hang while the cluster is down. Answers are parsed with
 * JSON.parse: the default guard against prototype poisoning (secure-json-parse) protects from
 * hostile JSON, and this cluster is ours; it cost ~2% of the service's CPU under search load.
 */
export function createElasticsearchClient(url: string): Client {
  return new Client({
    node: url,
    requestTimeout: 10_000,
    maxRetries: 1,
    sniffOnStart: false,
    disablePrototypePoisoningProtection: true,
  });
}

/**
 * True when the cluster answers its health API within `timeoutMs` (GET / is not served by every
 * distribution).
 */
export async function elasticsearchIsUp(client: Client, timeoutMs = 3000): Promise<boolean> {
  try {
    const health = await client.cluster.health({}, { requestTimeout: timeoutMs, maxRetries: 0 });
    return health.status !== 'red';
  } catch {
    return false;
  }
}

/** The client as the domain passes it to this folder's functions (never calling it itself). */
export type ElasticsearchClient = Client;
