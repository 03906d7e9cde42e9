import { onDuplicateKey } from '@kb/common';
import type { KnowledgeModels, TenantDoc } from './models';

/** What the repository hands out: the stored document with `id` for `_id`. */
export type TenantRecord = Omit<TenantDoc, '_id' | 'updated_at'> & { id: string };

const toRecord = (d: TenantDoc): TenantRecord => ({
  id: d._id,
  name: d.name,
  hosts: d.hosts ?? [],
  settings: d.settings ?? {},
  created_at: d.created_at,
});

export function tenantsRepo(models: KnowledgeModels) {
  const { Tenant } = models;
  return {
    async findById(id: string): Promise<TenantRecord | null> {
      const doc = await Tenant.findById(id).lean<TenantDoc>();
      return doc ? toRecord(doc) : null;
    },
    async findByHost(host: string): Promise<TenantRecord | null> {
      const doc = await Tenant.findOne({ hosts: host }).lean<TenantDoc>();
      return doc ? toRecord(doc) : null;
    },
    /** Creates the tenant; returns null when the id is taken. */
    async create(input: { id: string; name: string; hosts: string[] }): Promise<TenantRecord | null> {
      const now = new Date();
      const create = () =>
        Tenant.create({
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
      return (await Tenant.findOne({ hosts: host, _id: { $ne: id } }).lean()) !== null;
    },
    async saveSettings(id: string, settings: Record<string, unknown>): Promise<void> {
      await Tenant.updateOne({ _id: id }, { $set: { settings, updated_at: new Date() } });
    },
  };
}
export type TenantsRepo = ReturnType<typeof tenantsRepo>;
