import { Command } from 'commander';
import { ROLES, SCOPES, type Role, type Scope } from '@kb/platform';
import { isUuid } from '@kb/rules';
import { type AdminContext, UsageError } from '../context';
import { noSuchTenant, repeatableOption, requiredOption, tenantId } from '../options';

interface TokenCreateOptions {
  tenant: string;
  role: string;
  user?: string;
  scopes?: string;
  name?: string;
  expiresIn?: string;
  workspace?: string[];
}

/** `token create`'s options, checked: role, user, scopes, expiry and workspaces. */
function tokenInput(opts: TokenCreateOptions) {
  const role = opts.role;
  if (!(ROLES as readonly string[]).includes(role)) throw new UsageError(`--role must be one of ${ROLES.join(', ')}`);
  const user = opts.user;
  if (user !== undefined && !isUuid(user)) throw new UsageError(`--user must be a uuid, got "${user}"`);
  let scopes: Scope[] | undefined;
  if (opts.scopes !== undefined) {
    const given = opts.scopes.split(/\s+/).filter(Boolean);
    const unknown = given.filter((s) => !(SCOPES as readonly string[]).includes(s));
    if (unknown.length) throw new UsageError(`Unknown scope(s) ${unknown.join(', ')}; known: ${SCOPES.join(' ')}`);
    if (given.length === 0) throw new UsageError('--scopes must name at least one scope');
    scopes = given as Scope[];
  }
  let expiresAt: Date | null = null;
  if (opts.expiresIn !== undefined) {
    const days = Number(opts.expiresIn);
    if (!Number.isFinite(days) || days <= 0) throw new UsageError('--expires-in must be a positive number of days');
    expiresAt = new Date(Date.now() + days * 86_400_000);
  }
  const workspaceIds = opts.workspace ?? [];
  for (const w of workspaceIds) if (!isUuid(w)) throw new UsageError(`--workspace must be a uuid, got "${w}"`);
  return {
    role: role as Role,
    userId: user ?? null,
    ...(scopes ? { scopes } : {}),
    expiresAt,
    workspaceIds,
    name: opts.name ?? null,
  };
}

/** `token create`, `token revoke`: API tokens, kept by the knowledge service. */
export function tokenCommands(ctx: AdminContext): Command {
  const token = new Command('token').description('create or revoke API tokens');

  token
    .command('create')
    .description('create an API token; the token alone is the last line of the output')
    .addOption(requiredOption('--tenant <tenant-id>', 'the tenant'))
    .addOption(requiredOption(`--role <${ROLES.join('|')}>`, 'the role the token acts in'))
    .option('--user <uuid>', 'the user the token acts for')
    .option('--scopes <scopes>', `space-separated, from: ${SCOPES.join(' ')} (default: what the role can use)`)
    .option('--name <text>', 'a name to recognise the token by')
    .option('--expires-in <days>', 'expiry, in days from now (default: never)')
    .addOption(repeatableOption('--workspace <uuid>', "a workspace the token's user belongs to"))
    .action(async (opts: TokenCreateOptions) => {
      const id = tenantId(opts.tenant);
      const knowledge = await ctx.knowledge();
      if (!(await knowledge.findTenant(id))) throw noSuchTenant(id);
      const result = await knowledge.createToken({ tenantId: id, ...tokenInput(opts) });
      if (result.status === 'tenant_not_found') throw noSuchTenant(id);
      const expires = result.expiresAt ? `, expires ${result.expiresAt.toISOString()}` : '';
      ctx.out(
        `Created ${result.role} token ${result.id} for tenant ${id} (scopes: ${result.scopes.join(' ')}${expires})`,
      );
      ctx.out(result.token);
    });

  token
    .command('revoke')
    .description('revoke an API token, named by its id, 4 or more leading characters of it, or the token itself')
    .argument('<token-id-or-prefix>', 'the token id, its first characters, or the token')
    .addOption(requiredOption('--tenant <tenant-id>', 'the tenant'))
    .action(async (given: string, opts: { tenant: string }) => {
      const id = tenantId(opts.tenant);
      const result = await (await ctx.knowledge()).revokeToken({ tenantId: id, token: given });
      switch (result.status) {
        case 'tenant_not_found':
          throw noSuchTenant(id);
        case 'too_short':
          throw new UsageError('Give at least 4 characters of the token id');
        case 'no_match':
          throw new UsageError(`No token of tenant ${id} matches "${given}"`);
        case 'ambiguous':
          throw new UsageError(`"${given}" matches ${result.matches} tokens; give more of the id`);
        case 'revoked':
          ctx.out(`Revoked token ${result.id}${result.name ? ` (${result.name})` : ''} of tenant ${id}`);
      }
    });

  return token;
}
