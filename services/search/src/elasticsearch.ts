import { Client } from '@elastic/elasticsearch';

/**
 * ELASTICSEARCH_URL: one node's URL, or several separated by commas (nodes of one cluster: the
 * client spreads requests over them and, when one stops answering, marks it dead and sends the
 * request to the next).
 */
export const ELASTICSEARCH_URL_PATTERN = '^https?://[^,\\s]+(\\s*,\\s*https?://[^,\\s]+)*$';
export const ELASTICSEARCH_URL_EXPECTED = 'an http(s):// URL, or several separated by commas';

/** The node URLs of an ELASTICSEARCH_URL value. */
export function elasticsearchNodes(url: string): string[] {
  return url
    .split(',')
    .map((node) => node.trim().replace(/\/+$/, ''))
    .filter((node) => node !== '');
}

/**
 * The Elasticsearch client over the nodes of `url`. Short request timeouts and one retry (on
 * another node when there are several): a request must fail fast (and be answered 503) rather
 * than hang while the cluster is down. Answers are parsed with
 * JSON.parse: the default guard against prototype poisoning (secure-json-parse) protects from
 * hostile JSON, and this cluster is ours; it cost ~2% of the service's CPU under search load.
 */
export function createElasticsearchClient(url: string): Client {
  return new Client({
    nodes: elasticsearchNodes(url),
    requestTimeout: 10_000,
    maxRetries: 1,
    sniffOnStart: false,
    disablePrototypePoisoningProtection: true,
  });
}

/** The client as the domain passes it to this folder's functions (never calling it itself). */
export type ElasticsearchClient = Client;
