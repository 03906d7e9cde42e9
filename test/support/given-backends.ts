/**
 * What a test run leaves on servers it was given (MONGODB_URI / ELASTICSEARCH_URL) rather than
 * started: every test file makes databases and indices of its own (about 270 indices a run), and
 * a developer's long-lived Elasticsearch refuses new indices at its 1,000 open shards after a few
 * runs, failing every test at once. The set-up notes what is there; the teardown removes what
 * the run added under a test name (uniqueId's `<word>-<8 hex>`, or the similarity harness's
 * `t-<8 hex>`), and nothing else. Backends the run started are thrown away whole instead.
 */
import mongoose from 'mongoose';

const TEST_NAME = /^(t|kb[a-z]+)-[0-9a-f]{8}(-|$)/;
/** Index names per DELETE: their list is the URL's path, which Elasticsearch bounds at 4 KB. */
const NAMES_PER_DELETE = 40;

export interface GivenBackends {
  mongoUri?: string;
  elasticsearchUrl?: string;
}

export interface Before {
  databases: Set<string>;
  indices: Set<string>;
}

export async function namesOn(given: GivenBackends): Promise<Before> {
  const [databases, indices] = await Promise.all([
    given.mongoUri ? onMongo(given.mongoUri, databaseNames) : [],
    given.elasticsearchUrl ? indexNames(given.elasticsearchUrl) : [],
  ]);
  return { databases: new Set(databases), indices: new Set(indices) };
}

/** Drops the databases and deletes the indices added since `before` under a test name; answers how many. */
export async function removeAdded(
  given: GivenBackends,
  before: Before,
): Promise<{ databases: number; indices: number }> {
  const added = (now: string[], then: Set<string>) => now.filter((n) => !then.has(n) && TEST_NAME.test(n));
  let databases = 0;
  if (given.mongoUri)
    await onMongo(given.mongoUri, async (connection) => {
      for (const name of added(await databaseNames(connection), before.databases)) {
        await connection.useDb(name, { useCache: false }).dropDatabase();
        databases++;
      }
    });
  let indices = 0;
  if (given.elasticsearchUrl) {
    const names = added(await indexNames(given.elasticsearchUrl), before.indices);
    for (let i = 0; i < names.length; i += NAMES_PER_DELETE) {
      const part = names.slice(i, i + NAMES_PER_DELETE);
      const res = await fetch(`${given.elasticsearchUrl}/${part.join(',')}?ignore_unavailable=true`, {
        method: 'DELETE',
      });
      if (!res.ok) throw new Error(`DELETE of ${part.length} test indices answered ${res.status}: ${await res.text()}`);
      indices += part.length;
    }
  }
  return { databases, indices };
}

async function onMongo<T>(uri: string, work: (connection: mongoose.Connection) => Promise<T>): Promise<T> {
  const connection = await mongoose.createConnection(uri, { serverSelectionTimeoutMS: 5000 }).asPromise();
  try {
    return await work(connection);
  } finally {
    await connection.close();
  }
}

async function databaseNames(connection: mongoose.Connection): Promise<string[]> {
  const { databases } = await connection.db!.admin().listDatabases({ nameOnly: true });
  return databases.map((d) => d.name);
}

async function indexNames(url: string): Promise<string[]> {
  const res = await fetch(`${url}/_cat/indices?h=index&format=json&expand_wildcards=all`);
  if (!res.ok) throw new Error(`GET _cat/indices answered ${res.status}`);
  return ((await res.json()) as { index: string }[]).map((i) => i.index);
}
