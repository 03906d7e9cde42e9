import { Option } from 'commander';
import { isTenantId } from '@kb/knowledge';
import { UsageError } from './context';

/** Options that may be given more than once (`--host a --host b`): the help marks them with `...`. */
export const repeatable = new WeakSet<Option>();

/** `--name <value>`, collected into a list when given more than once. */
export function repeatableOption(flags: string, description: string): Option {
  const option = new Option(flags, `${description} (repeatable)`).argParser(
    (value: string, previous: string[] | undefined) => [...(previous ?? []), value],
  );
  repeatable.add(option);
  return option;
}

/** A required option: commander reports it missing (worded "<flags> is required"). */
export const requiredOption = (flags: string, description: string) =>
  new Option(flags, `${description} (required)`).makeOptionMandatory();

export const tenantOption = (description = 'the tenant') => new Option('--tenant <tenant-id>', description);
export const kindOption = () => new Option('--kind <entries|products>', 'only this kind (default: both)');

export const invalidTenantId = (value: string) =>
  new UsageError(`Invalid tenant id "${value}": lowercase letters, digits and hyphens, 1-63 characters`);

export const noSuchTenant = (id: string) =>
  new UsageError(`Tenant "${id}" does not exist (create it with: admin tenant create ${id})`);

/** A tenant id as the knowledge service accepts it. */
export function tenantId(value: string): string {
  if (!isTenantId(value)) throw invalidTenantId(value);
  return value;
}

const HOST_PORT = /^[^\s:]+:\d{1,5}$/;

/** A host:port address given (or found) for the similarity service. */
export function similarityAddress(value: string): string {
  if (!HOST_PORT.test(value)) throw new UsageError(`--similarity must be host:port, got "${value}"`);
  return value;
}
