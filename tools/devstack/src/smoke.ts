// Starts the backends the way tests do, checks each answers, stops them and times it all:
//   node tools/devstack/dist/smoke.js [--persistent]
// Uses the MongoDB driver that mongoose brings, found from the repository root.
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { checkoutDir } from './cache';
import { startBackends } from './backends';

interface MinimalMongoClient {
  db(name: string): {
    collection(name: string): {
      insertOne(doc: object): Promise<unknown>;
      findOne(q: object): Promise<unknown>;
      countDocuments(): Promise<number>;
    };
  };
  close(): Promise<void>;
}

async function main(): Promise<void> {
  const started = Date.now();
  const log = (msg: string): void =>
    console.log(`[${((Date.now() - started) / 1000).toFixed(1).padStart(5)} s] ${msg}`);
  const backends = await startBackends({ persistent: process.argv.includes('--persistent'), log });
  try {
    log(`mode=${backends.mode} mongo=${backends.mongoUri} es=${backends.elasticsearchUrl}`);
    const first = backends.elasticsearchUrl.split(',')[0] as string;
    const health = (await (await fetch(`${first}/_cluster/health`)).json()) as { status: string };
    log(`Elasticsearch cluster health: ${health.status}`);

    const rootRequire = createRequire(join(checkoutDir(), 'package.json'));
    const mongoosePath = rootRequire.resolve('mongoose');
    const { MongoClient } = createRequire(mongoosePath)('mongodb') as {
      MongoClient: { connect(uri: string): Promise<MinimalMongoClient> };
    };
    const client = await MongoClient.connect(backends.mongoUri);
    const smoke = client.db('devstack-smoke').collection('smoke');
    await smoke.insertOne({ at: new Date(), pid: process.pid });
    log(`MongoDB insert + find: ${JSON.stringify(await smoke.findOne({ pid: process.pid }))}`);
    // More than one only when data is kept between runs (--persistent).
    log(`MongoDB documents in devstack-smoke.smoke: ${await smoke.countDocuments()}`);
    await client.close();
  } finally {
    const stopping = Date.now();
    await backends.stop();
    log(`stopped in ${((Date.now() - stopping) / 1000).toFixed(1)} s`);
  }
}

main().catch((err: unknown) => {
  console.error(err instanceof Error ? err.message : err);
  process.exit(1);
});
