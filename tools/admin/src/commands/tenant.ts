import { Command } from 'commander';
import { type AdminContext, UsageError } from '../context';
import { gatewayPort } from '../discovery';
import { tenantDataCommands } from './tenant-data';
import { invalidTenantId, noSuchTenant, repeatableOption, requiredOption, tenantId } from '../options';

/** `tenant create`, `tenant settings`: the knowledge service's tenants. */
export function tenantCommands(ctx: AdminContext): Command {
  const tenant = new Command('tenant').description(
    'create a tenant, show or change its settings; export, import or purge all its data',
  );

  tenant
    .command('create')
    .description('create a tenant: it answers at http://<tenant-id>.localhost and at each --host')
    .argument('<tenant-id>', 'lowercase letters, digits and hyphens, 1-63 characters')
    .addOption(repeatableOption('--host <hostname>', 'a host name that addresses the tenant'))
    .option('--name <text>', 'display name (default: the id)')
    .option('--if-missing', 'leave an existing tenant as it is and succeed (the Helm bootstrap Job)')
    .action(async (id: string, opts: { host?: string[]; name?: string; ifMissing?: boolean }) => {
      tenantId(id);
      const result = await (
        await ctx.knowledge()
      ).createTenant({
        id,
        hosts: opts.host ?? [],
        ifMissing: opts.ifMissing === true,
        ...(opts.name !== undefined ? { name: opts.name } : {}),
      });
      switch (result.status) {
        case 'unchanged':
          ctx.out(`Tenant ${id} already exists; left unchanged`);
          return;
        case 'created': {
          const { hosts } = result.tenant;
          ctx.out(`Created tenant ${id}${hosts.length ? ` (hosts: ${hosts.join(', ')})` : ''}`);
          ctx.out(`Local address: http://${id}.localhost:${gatewayPort()}/api/knowledge`);
          return;
        }
        case 'exists':
          throw new UsageError(`Tenant "${id}" already exists`);
        case 'invalid_id':
          throw invalidTenantId(id);
        case 'invalid_host':
          throw new UsageError(`Invalid host name "${result.host}"`);
        case 'host_taken':
          throw new UsageError(`Host "${result.host}" already belongs to another tenant`);
      }
    });

  tenant
    .command('settings')
    .description("show the tenant's effective settings (JSON), after storing the --set assignments")
    .addOption(requiredOption('--tenant <tenant-id>', 'the tenant'))
    .addOption(
      repeatableOption(
        '--set <key=value>',
        'e.g. workspaces_enabled=true, hybrid_weights.description=0.7, role_writable_types.Agent=knowledge,memory',
      ),
    )
    .action(async (opts: { tenant: string; set?: string[] }) => {
      const id = tenantId(opts.tenant);
      const result = await (await ctx.knowledge()).tenantSettings({ tenantId: id, set: opts.set ?? [] });
      switch (result.status) {
        case 'tenant_not_found':
          throw noSuchTenant(id);
        case 'invalid': {
          const detail = result.issues?.map((i) => `${i.path}: ${i.msg}`).join('; ') ?? result.message;
          throw new UsageError(`Invalid setting: ${detail}`);
        }
        case 'ok':
          ctx.out(JSON.stringify(result.settings, null, 2));
      }
    });

  tenantDataCommands(tenant, ctx);
  return tenant;
}
