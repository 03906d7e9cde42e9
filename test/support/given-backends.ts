/**
 * What a test run leaves on servers it was given (MONGODB_URI / ELASTICSEARCH_URL) rather than
 * started: every test file makes databases and indices of its own (about 165 indices a run), and
 * a developer's long-lived Elasticsearch refuses new indices at its 1,000 open shards after a few
 * runs, failing every test at once. The teardown removes what this run made, known by the run's
 * id in its name (test-names.ts), and nothing else: not the developer's own data, not another
 * run's going on beside it. Backends the run started are thrown away whole instead.
 */
import { createElasticsearchClient } from '@kb/search';
import mongoose from 'mongoose';
import { ofTestRun } from './test-names';

/** Index names per delete: their list is the URL's path, which Elasticsearch bounds at 4 KB. */
const NAMES_PER_DELETE = 40;

export interface GivenBackends {
  mongoUri?: string;
  elasticsearchUrl?: string;
}

/** Drops the databases and deletes the indices of the test run `run`; answers how many. */
export async function removeTestRun(
  given: GivenBackends,
  run: string,
): Promise<{ databases: number; indices: number }> {
  let databases = 0;
  if (given.mongoUri) {
    const connection = await mongoose.createConnection(given.mongoUri, { serverSelectionTimeoutMS: 5000 }).asPromise();
    try {
      const { databases: all } = await connection.db!.admin().listDatabases({ nameOnly: true });
      for (const { name } of all.filter((d) => ofTestRun(d.name, run))) {
        await connection.useDb(name, { useCache: false }).dropDatabase();
        databases++;
      }
    } finally {
      await connection.close();
    }
  }
  let indices = 0;
  if (given.elasticsearchUrl) {
    const es = createElasticsearchClient(given.elasticsearchUrl);
    try {
      const all = await es.cat.indices({ h: 'index', format: 'json', expand_wildcards: 'all' });
      const names = all.flatMap((i) => (i.index && ofTestRun(i.index, run) ? [i.index] : []));
      for (let i = 0; i < names.length; i += NAMES_PER_DELETE) {
        const part = names.slice(i, i + NAMES_PER_DELETE);
        await es.indices.delete({ index: part, ignore_unavailable: true }, { requestTimeout: 60_000 });
        indices += part.length;
      }
    } finally {
      await es.close();
    }
  }
  return { databases, indices };
}
