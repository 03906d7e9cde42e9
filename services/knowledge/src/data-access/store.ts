import type { Logger } from '@kb/platform';
import { connectMongo, mapMongoError, DEFAULT_MONGO_SETTINGS, type MongoSettings } from '@kb/mongo';
import { categoriesRepo } from './categories-repo';
import { entriesRepo } from './entries-repo';
import { ensureKnowledgeIndexes, knowledgeModels, type KnowledgeModels } from './models';
import { tenantsRepo } from './tenants-repo';
import { tokensRepo } from './tokens-repo';
import { transactions } from './transactions';

/**
 * The knowledge service's MongoDB: a connection retried in the background (the indexes created
 * before it counts as up), the repositories over its collections, the unit of work of entry
 * writes, and the mapper that turns "MongoDB not reachable" into UNAVAILABLE for the gRPC handlers.
 */
export function openKnowledgeStore(
  uri: string,
  logger: Logger,
  onChange: (up: boolean) => void,
  settings: MongoSettings = DEFAULT_MONGO_SETTINGS,
) {
  let models: KnowledgeModels | undefined;
  const mongo = connectMongo(uri, logger, {
    onChange,
    settings,
    prepare: () => ensureKnowledgeIndexes(models as KnowledgeModels),
  });
  models = knowledgeModels(mongo.connection);
  return {
    entries: entriesRepo(models),
    categories: categoriesRepo(models),
    tenants: tenantsRepo(models),
    tokens: tokensRepo(models),
    transactions: transactions(mongo),
    mapError: mapMongoError,
    /** True while MongoDB is reachable (and the indexes exist). */
    isUp: () => mongo.isUp(),
    /** Throws UNAVAILABLE at once while MongoDB is known down (every gRPC method needs it). */
    assertUp: () => mongo.assertUp(),
    close: () => mongo.close(),
  };
}
