/**
 * The first node of the run's ELASTICSEARCH_URL (one URL, or several with KB_ES_NODES=3): what a
 * test that calls Elasticsearch itself, or puts a proxy in front of it, talks to. The services are
 * given the whole list.
 */
export const elasticsearchNode = (): string => (process.env.ELASTICSEARCH_URL as string).split(',')[0]!.trim();
