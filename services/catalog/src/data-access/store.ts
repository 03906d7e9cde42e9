import type { Logger } from '@kb/platform';
import { connectMongo, mapMongoError, DEFAULT_MONGO_SETTINGS, type MongoSettings } from '@kb/mongo';
import { productsRepo, type ProductsRepo } from './products-repo';
import { sitesRepo, type SitesRepo } from './sites-repo';

/**
 * The catalog's MongoDB: a connection retried in the background (the indexes created before it
 * counts as up), the repositories over its collections, and the mapper that turns "MongoDB not
 * reachable" into UNAVAILABLE for the gRPC handlers.
 */
export function openCatalogStore(
  uri: string,
  logger: Logger,
  onChange: (up: boolean) => void,
  settings: MongoSettings = DEFAULT_MONGO_SETTINGS,
) {
  let sites: SitesRepo | undefined;
  let products: ProductsRepo | undefined;
  const mongo = connectMongo(uri, logger, {
    onChange,
    settings,
    prepare: async () => {
      await (sites as SitesRepo).ensureIndexes();
      await (products as ProductsRepo).ensureIndexes();
    },
  });
  sites = sitesRepo(mongo.connection);
  products = productsRepo(mongo.connection);
  return {
    sites,
    products,
    mapError: mapMongoError,
    /** True while MongoDB is reachable (and the indexes exist). */
    isUp: () => mongo.isUp(),
    /** Throws UNAVAILABLE at once while MongoDB is known down (every gRPC method needs it). */
    assertUp: () => mongo.assertUp(),
    close: () => mongo.close(),
  };
}
