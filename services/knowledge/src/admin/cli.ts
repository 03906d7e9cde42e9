/**
 * Admin CLI: the stand-in for the product's administration interface and the way a new user
 * gets a token. Talks to MongoDB directly (MONGODB_URI) through the knowledge service's own
 * data access. Usage errors exit 2, other failures 1; `token create` prints the token alone
 * on the last line of stdout so scripts can take it with `tail -n 1`.
 */
import { parseArgs, type ParseArgsConfig } from 'node:util';
import type mongoose from 'mongoose';
import * as grpc from '@grpc/grpc-js';
import {
  AppError,
  CLIENT_OPTIONS,
  ROLES,
  SCOPES,
  indexErrorLine,
  isUuid,
  reindex,
  similarityProto,
  systemCaller,
  typedClient,
  type Logger,
} from '@kb/common';
import { runAdminProcess } from '@kb/common/mongo';
import { entriesRepo } from '../data-access/entries-repo';
import { indexEntries, INDEXER, type EntryIndexOutcome } from '../domain/indexer';
import { ensureKnowledgeIndexes, knowledgeModels, type KnowledgeModels } from '../data-access/models';
import { tenantsRepo, type TenantsRepo } from '../data-access/tenants-repo';
import type { Tenant } from '../domain/types';
import { tokensRepo } from '../data-access/tokens-repo';
import { newApiToken, defaultScopesForRole } from '../domain/tokens';
import { applySettingAssignments, effectiveSettings } from '../domain/tenant-settings';

export const USAGE = `Usage:
  admin tenant create <tenant-id> [--host <hostname>] [--name <text>] [--if-missing]
  admin tenant settings --tenant <tenant-id> [--set key=value ...]
  admin token create --tenant <tenant-id> --role <Admin|Supervisor|Agent|Viewer> [--user <uuid>]
                     [--scopes "knowledge:read knowledge:write"] [--name <text>] [--expires-in <days>]
                     [--workspace <uuid> ...]
  admin token revoke --tenant <tenant-id> <token-id-or-prefix>
  admin reindex entries [--similarity <host:port>]   (default SIMILARITY_GRPC_ADDR, else 127.0.0.1:50053)
  admin index errors [--tenant <tenant-id>] [--kind entries|products]   (documents the search index refused)
  admin index retry [--tenant <tenant-id>] [--kind entries|products] [<id> ...]   (queue them for the indexer again)`;

export class UsageError extends Error {}

const TENANT_ID = /^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/;
const HOSTNAME = /^(?=.{1,253}$)[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)*$/;

type Out = (line: string) => void;

function parse(args: string[], options: NonNullable<ParseArgsConfig['options']>) {
  try {
    const { values, positionals } = parseArgs({ args, options, allowPositionals: true, strict: true });
    return { values: values as Record<string, string | string[] | boolean | undefined>, positionals };
  } catch (err) {
    throw new UsageError((err as Error).message);
  }
}

function requireTenantId(value: unknown): string {
  if (typeof value !== 'string' || !value) throw new UsageError('--tenant <tenant-id> is required');
  if (!TENANT_ID.test(value))
    throw new UsageError(`Invalid tenant id "${value}": lowercase letters, digits and hyphens, 1-63 characters`);
  return value;
}

/** What every command needs: the data access, the output, and the tenant it names. */
interface Admin {
  models: KnowledgeModels;
  tenants: TenantsRepo;
  out: Out;
  existingTenant(id: string): Promise<Tenant>;
}

export async function runAdmin(argv: string[], connection: mongoose.Connection, out: Out): Promise<void> {
  const models = knowledgeModels(connection);
  await ensureKnowledgeIndexes(models);
  const tenants = tenantsRepo(models);
  const admin: Admin = {
    models,
    tenants,
    out,
    existingTenant: async (id) => {
      const tenant = await tenants.findById(id);
      if (!tenant) throw new UsageError(`Tenant "${id}" does not exist (create it with: admin tenant create ${id})`);
      return tenant;
    },
  };
  const [group, action, ...rest] = argv;
  if (group === 'tenant' && action === 'create') return createTenant(admin, rest);
  if (group === 'tenant' && action === 'settings') return tenantSettings(admin, rest);
  if (group === 'token' && action === 'create') return createToken(admin, rest);
  if (group === 'token' && action === 'revoke') return revokeToken(admin, rest);
  if (group === 'reindex') return reindexCommand(admin, action, rest);
  if (group === 'index' && (action === 'errors' || action === 'retry')) return indexErrors(admin, action, rest);
  throw new UsageError(group ? `Unknown command "${[group, action].filter(Boolean).join(' ')}"` : 'No command given');
}

async function createTenant({ tenants, out }: Admin, args: string[]): Promise<void> {
  const { values, positionals } = parse(args, {
    host: { type: 'string', multiple: true },
    name: { type: 'string' },
    'if-missing': { type: 'boolean' },
  });
  if (positionals.length !== 1) throw new UsageError('tenant create takes exactly one <tenant-id>');
  const id = requireTenantId(positionals[0]);
  // The Helm chart's bootstrap Job runs on every install and upgrade: an existing tenant is left as it is.
  if (values['if-missing'] && (await tenants.findById(id))) {
    out(`Tenant ${id} already exists; left unchanged`);
    return;
  }
  const hosts = ((values.host as string[] | undefined) ?? []).map((h) => h.toLowerCase());
  for (const host of hosts) {
    if (!HOSTNAME.test(host)) throw new UsageError(`Invalid host name "${host}"`);
    if (await tenants.hostTakenByOther(host, id))
      throw new UsageError(`Host "${host}" already belongs to another tenant`);
  }
  const created = await tenants.create({ id, name: (values.name as string | undefined) ?? id, hosts });
  if (!created) throw new UsageError(`Tenant "${id}" already exists`);
  out(`Created tenant ${id}${hosts.length ? ` (hosts: ${hosts.join(', ')})` : ''}`);
  out(`Local address: http://${id}.localhost:8080/api/knowledge`);
}

async function tenantSettings(admin: Admin, args: string[]): Promise<void> {
  const { values, positionals } = parse(args, { tenant: { type: 'string' }, set: { type: 'string', multiple: true } });
  if (positionals.length) throw new UsageError(`Unexpected argument "${positionals[0]}"`);
  const tenant = await admin.existingTenant(requireTenantId(values.tenant));
  let settings = effectiveSettings(tenant.settings);
  const assignments = (values.set as string[] | undefined) ?? [];
  if (assignments.length) {
    try {
      settings = applySettingAssignments(settings, assignments);
    } catch (err) {
      if (err instanceof AppError) {
        const detail = err.issues?.map((i) => `${i.loc.slice(1).join('.')}: ${i.msg}`).join('; ') ?? err.message;
        throw new UsageError(`Invalid setting: ${detail}`);
      }
      throw err;
    }
    await admin.tenants.saveSettings(tenant.id, settings as unknown as Record<string, unknown>);
  }
  admin.out(JSON.stringify(settings, null, 2));
}

/** `token create`'s options, checked: role, user, scopes, expiry and workspaces. */
function tokenOptions(values: Record<string, string | string[] | boolean | undefined>) {
  const role = values.role as string | undefined;
  if (!role || !(ROLES as readonly string[]).includes(role))
    throw new UsageError(`--role must be one of ${ROLES.join(', ')}`);
  const user = values.user as string | undefined;
  if (user !== undefined && !isUuid(user)) throw new UsageError(`--user must be a uuid, got "${user}"`);
  const scopes =
    values.scopes === undefined ? defaultScopesForRole(role) : String(values.scopes).split(/\s+/).filter(Boolean);
  const unknown = scopes.filter((s) => !(SCOPES as readonly string[]).includes(s));
  if (unknown.length) throw new UsageError(`Unknown scope(s) ${unknown.join(', ')}; known: ${SCOPES.join(' ')}`);
  if (scopes.length === 0) throw new UsageError('--scopes must name at least one scope');
  let expiresAt: Date | null = null;
  if (values['expires-in'] !== undefined) {
    const days = Number(values['expires-in']);
    if (!Number.isFinite(days) || days <= 0) throw new UsageError('--expires-in must be a positive number of days');
    expiresAt = new Date(Date.now() + days * 86_400_000);
  }
  const workspaces = (values.workspace as string[] | undefined) ?? [];
  for (const w of workspaces) if (!isUuid(w)) throw new UsageError(`--workspace must be a uuid, got "${w}"`);
  return { role, user: user ?? null, scopes, expiresAt, workspaces, name: (values.name as string | undefined) ?? null };
}

async function createToken(admin: Admin, args: string[]): Promise<void> {
  const { values, positionals } = parse(args, {
    tenant: { type: 'string' },
    role: { type: 'string' },
    user: { type: 'string' },
    scopes: { type: 'string' },
    name: { type: 'string' },
    'expires-in': { type: 'string' },
    workspace: { type: 'string', multiple: true },
  });
  if (positionals.length) throw new UsageError(`Unexpected argument "${positionals[0]}"`);
  const tenant = await admin.existingTenant(requireTenantId(values.tenant));
  const { role, user, scopes, expiresAt, workspaces, name } = tokenOptions(values);
  const { id, token, hash } = newApiToken();
  await tokensRepo(admin.models).create({
    id,
    hash,
    tenant_id: tenant.id,
    user_id: user,
    role,
    scopes,
    workspace_ids: workspaces,
    name,
    expires_at: expiresAt,
  });
  admin.out(
    `Created ${role} token ${id} for tenant ${tenant.id} (scopes: ${scopes.join(' ')}${expiresAt ? `, expires ${expiresAt.toISOString()}` : ''})`,
  );
  admin.out(token);
}

async function revokeToken(admin: Admin, args: string[]): Promise<void> {
  const { values, positionals } = parse(args, { tenant: { type: 'string' } });
  const tenant = await admin.existingTenant(requireTenantId(values.tenant));
  if (positionals.length !== 1) throw new UsageError('token revoke takes exactly one <token-id-or-prefix>');
  // Accept the token id, a prefix of it, or the start of the token itself (kbt_<id>…).
  const given = String(positionals[0]).replace(/^kbt_/, '').split('_')[0] ?? '';
  if (given.length < 4) throw new UsageError('Give at least 4 characters of the token id');
  const tokens = tokensRepo(admin.models);
  const matches = await tokens.findByIdPrefix(tenant.id, given);
  if (matches.length === 0) throw new UsageError(`No token of tenant ${tenant.id} matches "${positionals[0]}"`);
  if (matches.length > 1)
    throw new UsageError(`"${positionals[0]}" matches ${matches.length} tokens; give more of the id`);
  const match = matches[0]!;
  await tokens.revoke(tenant.id, match.id);
  admin.out(`Revoked token ${match.id}${match.name ? ` (${match.name})` : ''} of tenant ${tenant.id}`);
}

async function reindexCommand(admin: Admin, kind: string | undefined, args: string[]): Promise<void> {
  const { values, positionals } = parse(args, { similarity: { type: 'string' } });
  if (kind !== 'entries' || positionals.length)
    throw new UsageError('reindex takes exactly one kind: entries (products are reindexed by the catalog)');
  const address = (values.similarity as string | undefined) ?? process.env.SIMILARITY_GRPC_ADDR ?? '127.0.0.1:50053';
  if (!/^[^\s:]+:\d{1,5}$/.test(address)) throw new UsageError(`--similarity must be host:port, got "${address}"`);
  await reindexEntries(admin.models, address, admin.out);
}

/** `index errors`: the entries the search index refused; `index retry`: queues them (or the given ids) again. */
async function indexErrors({ models, out }: Admin, action: 'errors' | 'retry', args: string[]): Promise<void> {
  const { values, positionals } = parse(args, { tenant: { type: 'string' }, kind: { type: 'string' } });
  const kind = values.kind as string | undefined;
  if (kind !== undefined && kind !== 'entries' && kind !== 'products')
    throw new UsageError(`--kind must be entries or products, got "${kind}"`);
  const tenant = values.tenant === undefined ? undefined : requireTenantId(values.tenant);
  // --kind products is the catalog's part (npm run admin runs both): nothing to do here.
  if (kind === 'products') return;
  const repo = entriesRepo(models);
  const scope = tenant ? ` in tenant ${tenant}` : '';
  if (action === 'errors') {
    if (positionals.length) throw new UsageError(`Unexpected argument "${positionals[0]}"`);
    const refused = await repo.indexErrors(tenant);
    for (const e of refused)
      if (e.index_error) out(indexErrorLine('entries', { ...e, queued: e.index_pending, index_error: e.index_error }));
    out(
      refused.length
        ? `${refused.length} entries refused by the search index${scope}`
        : `No entries refused by the search index${scope}`,
    );
    return;
  }
  const queued = await repo.retryIndexErrors(tenant, positionals);
  out(
    `Queued ${queued} refused entries for indexing again${scope} (the running knowledge service's indexer takes them)`,
  );
}

/** The CLI's stand-in for a service logger: a refusal met during a reindex is worth a line on stderr. */
const stderrLogger = {
  error: (fields: Record<string, unknown>, msg: string) =>
    process.stderr.write(`${msg}: ${fields.entry_id} (${fields.error})\n`),
} as unknown as Logger;

/**
 * Rebuilds the entries index from MongoDB (the rules: @kb/common reindex). Searches keep using
 * the old index until the swap; with any entry not indexed (other than refused), there is no
 * swap and the command fails.
 */
async function reindexEntries(models: KnowledgeModels, address: string, out: Out): Promise<void> {
  const similarity = typedClient(
    'similarity',
    new (similarityProto().kb.similarity.v1.SimilarityService)(
      address,
      grpc.credentials.createInsecure(),
      CLIENT_OPTIONS,
    ),
    60_000,
  );
  const caller = systemCaller(INDEXER, '');
  const repo = entriesRepo(models);
  try {
    const result = await reindex({
      kind: 'entries',
      similarity,
      caller,
      pageSize: 200,
      page: (after, limit) => repo.allAfter(after, limit),
      indexPage: async (entries, targetIndex) => {
        const outcome: EntryIndexOutcome = { indexed: new Map(), refused: new Set() };
        // Refused entries are recorded as index errors, as the knowledge service's indexer does.
        await indexEntries({ repo, logger: stderrLogger, similarity }, caller, entries, { targetIndex }, outcome);
        return { indexed: outcome.indexed.size, refused: outcome.refused.size };
      },
      requeueWrittenSince: (since) => repo.markChangedSince(since),
      onBegun: (target) => out(`Reindexing entries into ${target.index} (alias ${target.alias})`),
      onPage: (done) => out(`  ${done} entries`),
    });
    if (!result.finished) {
      throw new Error(
        `${result.failed} of ${result.done} entries could not be indexed${result.error ? ` (${result.error})` : ''}; the alias still points at the old index`,
      );
    }
    const removed = result.finished.removed_indices.length
      ? `; removed ${result.finished.removed_indices.join(', ')}`
      : '';
    out(
      `Reindexed ${result.indexed} entries (${result.refused} failed); alias ${result.alias} -> ${result.index}${removed}; ${result.finished.requeued} written meanwhile are queued for the indexer`,
    );
  } finally {
    similarity.close();
  }
}

export async function main(argv = process.argv.slice(2)): Promise<number> {
  return runAdminProcess({
    argv,
    usage: USAGE,
    isUsageError: (err) => err instanceof UsageError,
    run: async (connection, out) => {
      await runAdmin(argv, connection, out);
      return 0;
    },
  });
}

if (require.main === module) {
  void main().then((code) => process.exit(code));
}
