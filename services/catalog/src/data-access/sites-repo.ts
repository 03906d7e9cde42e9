import { Schema, type Connection, type Model } from 'mongoose';
import {
  byIdQuery,
  onDuplicateKey,
  parentGuardPath,
  parentGuardQueries,
  type QueryShape,
  parentGuardStore,
  tenantScoped,
  withId,
  withMongoId,
  type ParentGuardState,
} from '@kb/mongo';
import type { Site, SiteChanges, SiteView } from '../domain/types';

/** A stored site: the domain's Site (domain/types.ts) with `_id` for `id`, and the guard's state. */
export type SiteDoc = Omit<Site, 'id'> & {
  _id: string;
  /** Deletes and the writes that refer to the site (products, the default pointer) meet here; never answered. */
  guard?: ParentGuardState;
};

/**
 * The tenant's default site as ONE pointer document per tenant (instead of a flag on every
 * site): switching the default is a single atomic write, so there is never zero or two
 * defaults, even under concurrent updates and without transactions.
 */
interface DefaultSiteDoc {
  _id: string; // tenant id
  tenant_id: string;
  site_id: string;
}

const siteSchema = new Schema<SiteDoc>(
  {
    _id: { type: String, required: true },
    tenant_id: { type: String, required: true },
    slug: { type: String, required: true },
    name: { type: String, required: true },
    domain: { type: String, default: null },
    language: { type: String, required: true },
    site_type: { type: String, required: true },
    platform: { type: String, default: null },
    config: { type: Schema.Types.Mixed, default: {} },
    created_at: { type: Date, required: true },
    ...parentGuardPath,
  },
  { collection: 'sites', versionKey: false, minimize: false, autoIndex: false },
);
siteSchema.plugin(tenantScoped);
siteSchema.index({ tenant_id: 1, slug: 1 }, { unique: true });
// The tenant's sites oldest first (who becomes the default when it has none).
siteSchema.index({ tenant_id: 1, created_at: 1, _id: 1 });

const defaultSiteSchema = new Schema<DefaultSiteDoc>(
  {
    _id: { type: String, required: true },
    tenant_id: { type: String, required: true },
    site_id: { type: String, required: true },
  },
  { collection: 'default_sites', versionKey: false, autoIndex: false },
);
defaultSiteSchema.plugin(tenantScoped);

/** The sites' models on one connection. */
export function siteModels(connection: Connection) {
  const SiteModel: Model<SiteDoc> =
    (connection.models.Site as Model<SiteDoc> | undefined) ?? connection.model<SiteDoc>('Site', siteSchema);
  const DefaultSite: Model<DefaultSiteDoc> =
    (connection.models.DefaultSite as Model<DefaultSiteDoc> | undefined) ??
    connection.model<DefaultSiteDoc>('DefaultSite', defaultSiteSchema);
  return { SiteModel, DefaultSite };
}

export function sitesRepo(connection: Connection) {
  const { SiteModel, DefaultSite } = siteModels(connection);

  const defaultId = async (tenantId: string): Promise<string | undefined> =>
    (await DefaultSite.findOne({ tenant_id: tenantId, _id: tenantId }).lean<DefaultSiteDoc>())?.site_id;
  const view = ({ guard: _guard, ...s }: SiteDoc, def: string | undefined): SiteView => ({
    ...withId(s),
    is_default: s._id === def,
  });

  return {
    /** Creates the indexes before the first write (autoIndex is off; see the knowledge service). */
    ensureIndexes: async () => {
      await SiteModel.createIndexes();
      await DefaultSite.createIndexes();
    },
    /** The default first, then by slug. */
    async list(tenantId: string): Promise<SiteView[]> {
      const [sites, def] = await Promise.all([
        SiteModel.find({ tenant_id: tenantId }).sort({ slug: 1 }).lean<SiteDoc[]>(),
        defaultId(tenantId),
      ]);
      return sites.map((s) => view(s, def)).sort((a, b) => Number(b.is_default) - Number(a.is_default));
    },
    /** A site by uuid or by slug. */
    async find(tenantId: string, idOrSlug: string): Promise<SiteView | null> {
      const site = await SiteModel.findOne({
        tenant_id: tenantId,
        $or: [{ _id: idOrSlug }, { slug: idOrSlug }],
      }).lean<SiteDoc>();
      return site ? view(site, await defaultId(tenantId)) : null;
    },
    /** Inserts; false when the tenant already has a site with this slug (the unique index refused it). */
    insert: (site: Site): Promise<boolean> =>
      onDuplicateKey(
        async () => {
          await SiteModel.create(withMongoId(site));
          return true;
        },
        () => false,
      ),
    async update(tenantId: string, id: string, set: SiteChanges): Promise<void> {
      if (Object.keys(set).length > 0) await SiteModel.updateOne({ tenant_id: tenantId, _id: id }, { $set: set });
    },
    /** Where a delete and the writes that refer to a site meet (domain/site-guard.ts); the only way a site is deleted. */
    guard: parentGuardStore(SiteModel),
    /** The id of the tenant's default site, if it has one. */
    defaultId,
    /** The tenant's sites, oldest first (who becomes the default when it has none). */
    oldestFirst: async (tenantId: string): Promise<Pick<Site, 'id'>[]> =>
      (
        await SiteModel.find({ tenant_id: tenantId }, { _id: 1 })
          .sort({ created_at: 1, _id: 1 })
          .lean<Pick<SiteDoc, '_id'>[]>()
      ).map((d) => withId(d)),
    /** Makes the site the default (atomic; replaces the previous default). */
    async setDefault(tenantId: string, siteId: string): Promise<void> {
      await DefaultSite.updateOne(
        { tenant_id: tenantId, _id: tenantId },
        { $set: { site_id: siteId } },
        { upsert: true },
      );
    },
    /** Makes the site the default only when the tenant has none yet (its first site). */
    async setDefaultIfNone(tenantId: string, siteId: string): Promise<void> {
      // A concurrent first site that won the insert is the default: nothing to do.
      await onDuplicateKey(
        () =>
          DefaultSite.updateOne(
            { tenant_id: tenantId, _id: tenantId },
            { $setOnInsert: { site_id: siteId } },
            { upsert: true },
          ),
        () => undefined,
      );
    },
    /** Removes the default pointer while it names this site. */
    async clearDefault(tenantId: string, siteId: string): Promise<void> {
      await DefaultSite.deleteOne({ tenant_id: tenantId, _id: tenantId, site_id: siteId });
    },
    count: (tenantId: string) => SiteModel.countDocuments({ tenant_id: tenantId }),
  };
}
export type SitesRepo = ReturnType<typeof sitesRepo>;

/** Every query this repository issues, as an index sees it (@kb/mongo query-shapes; docs/mongodb.md). */
export const SITE_QUERIES: QueryShape[] = [
  { collection: 'sites', query: 'sitesRepo list', eq: ['tenant_id'], sort: { slug: 1 } },
  { collection: 'sites', query: 'sitesRepo count', eq: ['tenant_id'] },
  // By uuid or by slug, in one $or: a tenant's sites are few, each checked.
  { collection: 'sites', query: 'sitesRepo find', eq: ['tenant_id'], residual: ['_id', 'slug'] },
  { collection: 'sites', query: 'sitesRepo oldestFirst', eq: ['tenant_id'], sort: { created_at: 1, _id: 1 } },
  byIdQuery('sites', 'sitesRepo update'),
  parentGuardQueries('sites'),
  byIdQuery('default_sites', 'sitesRepo defaultId, setDefault, setDefaultIfNone, clearDefault', ['site_id']),
];
