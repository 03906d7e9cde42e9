/**
 * Starts the real backends once for the whole run (MongoDB-compatible server and
 * Elasticsearch, found as DESIGN.md "Running it" says) and fetches the embedding model.
 * Test workers read the addresses from the environment.
 */
import { ensureEmbeddingModel, startBackends } from '@kb/devstack';

export default async function globalSetup(): Promise<void> {
  const log = (msg: string) => process.stdout.write(`[test backends] ${msg}\n`);
  const started = Date.now();
  const model = await ensureEmbeddingModel(log);
  const backends = await startBackends({ persistent: false, log });
  process.env.MONGODB_URI = backends.mongoUri;
  process.env.ELASTICSEARCH_URL = backends.elasticsearchUrl;
  process.env.KB_BACKENDS_MODE = backends.mode;
  process.env.EMBEDDING_MODEL_DIR = model.dir;
  process.env.EMBEDDING_MODEL_NAME = model.name;
  process.env.EMBEDDING_DIMS = String(model.dims);
  (globalThis as { __kbBackends?: { stop(): Promise<void> } }).__kbBackends = backends;
  log(`${backends.mode} backends ready in ${((Date.now() - started) / 1000).toFixed(1)} s (MongoDB ${backends.mongoUri}, Elasticsearch ${backends.elasticsearchUrl})`);
}
