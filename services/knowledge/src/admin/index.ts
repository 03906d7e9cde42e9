/**
 * The knowledge service's administration, as plain operations on its own data access: what
 * the admin CLI (tools/admin) and the dev stack call. No argument parsing and no wording here.
 */
import type mongoose from 'mongoose';
import { ensureKnowledgeIndexes, knowledgeModels } from '../data-access/models';
import type { ReindexResult } from '@kb/indexing';
import type { Tenant } from '../domain/types';
import { tenantsRepo } from '../data-access/tenants-repo';
import {
  entryIndexErrors,
  reindexEntries,
  retryEntryIndexErrors,
  type IndexErrorRow,
  type ReindexEntriesInput,
} from './entry-index';
import {
  createTenant,
  findTenant,
  tenantSettings,
  type CreateTenantInput,
  type CreateTenantResult,
  type TenantSettingsInput,
  type TenantSettingsResult,
} from './tenants';
import {
  createToken,
  revokeToken,
  type CreateTokenInput,
  type CreateTokenResult,
  type RevokeTokenInput,
  type RevokeTokenResult,
} from './tokens';

export * from './tenants';
export * from './tokens';
export * from './entry-index';
export * from './tenant-data';

/** The operations with the models bound (see each for what it does). */
export interface KnowledgeAdmin {
  createTenant(input: CreateTenantInput): Promise<CreateTenantResult>;
  findTenant(id: string): Promise<Tenant | null>;
  /** The first of `hosts` that another tenant than `id` answers at, if any (an import checks before writing). */
  hostTakenByOther(hosts: readonly string[], id: string): Promise<string | undefined>;
  tenantSettings(input: TenantSettingsInput): Promise<TenantSettingsResult>;
  createToken(input: CreateTokenInput): Promise<CreateTokenResult>;
  revokeToken(input: RevokeTokenInput): Promise<RevokeTokenResult>;
  entryIndexErrors(input: { tenantId?: string }): Promise<IndexErrorRow[]>;
  retryEntryIndexErrors(input: { tenantId?: string; ids?: string[] }): Promise<number>;
  reindexEntries(input: ReindexEntriesInput): Promise<ReindexResult>;
}

/** The operations bound to a MongoDB connection, once the knowledge collections' indexes exist. */
export async function knowledgeAdmin(connection: mongoose.Connection): Promise<KnowledgeAdmin> {
  const models = knowledgeModels(connection);
  await ensureKnowledgeIndexes(models);
  return {
    createTenant: (input) => createTenant(models, input),
    findTenant: (id) => findTenant(models, id),
    hostTakenByOther: async (hosts, id) => {
      for (const host of hosts) if (await tenantsRepo(models).hostTakenByOther(host, id)) return host;
      return undefined;
    },
    tenantSettings: (input) => tenantSettings(models, input),
    createToken: (input) => createToken(models, input),
    revokeToken: (input) => revokeToken(models, input),
    entryIndexErrors: (input) => entryIndexErrors(models, input),
    retryEntryIndexErrors: (input) => retryEntryIndexErrors(models, input),
    reindexEntries: (input) => reindexEntries(models, input),
  };
}
