import { Schema, type Connection, type Model } from 'mongoose';
import { tenantScoped } from '@kb/common';

export interface SiteDoc {
  _id: string;
  tenant_id: string;
  slug: string;
  name: string;
  domain: string | null;
  language: string;
  site_type: string;
  platform: string | null;
  config: Record<string, unknown>;
  is_default: boolean;
  created_at: Date;
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
    is_default: { type: Boolean, default: false },
    created_at: { type: Date, required: true },
  },
  { collection: 'sites', versionKey: false, minimize: false, autoIndex: false },
);
siteSchema.plugin(tenantScoped);
siteSchema.index({ tenant_id: 1, slug: 1 }, { unique: true });

export function sitesRepo(connection: Connection) {
  const Site: Model<SiteDoc> = (connection.models.Site as Model<SiteDoc> | undefined) ?? connection.model<SiteDoc>('Site', siteSchema);
  return {
    /** Creates the indexes before the first write (autoIndex is off; see the knowledge service). */
    ensureIndexes: () => Site.createIndexes(),
    async list(tenantId: string): Promise<SiteDoc[]> {
      return Site.find({ tenant_id: tenantId }).sort({ is_default: -1, slug: 1 }).lean<SiteDoc[]>();
    },
    /** A site by uuid or by slug. */
    async find(tenantId: string, idOrSlug: string): Promise<SiteDoc | null> {
      return Site.findOne({ tenant_id: tenantId, $or: [{ _id: idOrSlug }, { slug: idOrSlug }] }).lean<SiteDoc>();
    },
  };
}
export type SitesRepo = ReturnType<typeof sitesRepo>;
