import { onDuplicateKey, type QueryShape } from '@kb/mongo';
import type { Tenant } from '../domain/types';
import type { KnowledgeModels, TenantDoc } from './models';

/** A stored tenant as the domain reads it: `id` for `_id`, defaults for what older documents lack. */
const toRecord = (d: TenantDoc): Tenant => ({
  id: d._id,
  name: d.name,
  hosts: d.hosts ?? [],
  settings: d.settings ?? {},
  created_at: d.created_at,
});

export function tenantsRepo(models: KnowledgeModels) {
  const { Tenant: TenantModel } = models;
  return {
    async findById(id: string): Promise<Tenant | null> {
      const doc = await TenantModel.findById(id).lean<TenantDoc>();
      return doc ? toRecord(doc) : null;
    },
    async findByHost(host: string): Promise<Tenant | null> {
      const doc = await TenantModel.findOne({ hosts: host }).lean<TenantDoc>();
      return doc ? toRecord(doc) : null;
    },
    /** Creates the tenant; returns null when the id is taken. */
    async create(input: { id: string; name: string; hosts: string[] }): Promise<Tenant | null> {
      const now = new Date();
      const create = () =>
        TenantModel.create({
          _id: input.id,
          name: input.name,
          hosts: input.hosts,
          settings: {},
          created_at: now,
          updated_at: now,
        });
      return onDuplicateKey(
        async () => toRecord((await create()).toObject()),
        () => null,
      );
    },
    async hostTakenByOther(host: string, id: string): Promise<boolean> {
      return (await TenantModel.findOne({ hosts: host, _id: { $ne: id } }).lean()) !== null;
    },
    async saveSettings(id: string, settings: Record<string, unknown>): Promise<void> {
      await TenantModel.updateOne({ _id: id }, { $set: { settings, updated_at: new Date() } });
    },
  };
}
export type TenantsRepo = ReturnType<typeof tenantsRepo>;

/** Every query this repository issues, as an index sees it (@kb/mongo query-shapes; docs/mongodb.md). */
export const TENANT_QUERIES: QueryShape[] = [
  { collection: 'tenants', query: 'tenantsRepo findById, saveSettings', eq: ['_id'] },
  { collection: 'tenants', query: 'tenantsRepo findByHost, hostTakenByOther', eq: ['hosts'], residual: ['_id'] },
];
