import type { mongo } from 'mongoose';
import type { CallerSigner } from '@kb/platform';
import type { CatalogAdmin } from '@kb/catalog';
import type { KnowledgeAdmin } from '@kb/knowledge';

/** What every command runs with: where its output goes and the services' admin operations. */
export interface AdminContext {
  /** One line of standard output. */
  out(line: string): void;
  /** Progress bars, per-line problems and refusals met on the way. */
  stderr: NodeJS.WritableStream;
  /** The knowledge service's operations on this run's MongoDB (connected on first use). */
  knowledge(): Promise<KnowledgeAdmin>;
  /** The catalog's operations on this run's MongoDB (connected on first use). */
  catalog(): Promise<CatalogAdmin>;
  /** This run's MongoDB database, for the commands that work on a tenant's documents as a whole (export, import, purge). */
  database(): Promise<mongo.Db>;
  /** host:port of the similarity service, unless `--similarity` says otherwise. */
  similarityAddr(): string;
  /**
   * Signs the calls to the similarity service with the system credential (SERVICE_SYSTEM_SECRET,
   * else the running stack's); undefined without one.
   */
  signer(): CallerSigner | undefined;
  /** The bound on the catalog's calls to the similarity service (default 30 s). */
  deadlineMs?: number;
}

/** A command's failure with its exit code: 2 for a usage error, 1 for anything else. */
export class CliError extends Error {
  constructor(
    message: string,
    readonly exitCode: number,
  ) {
    super(message);
    this.name = 'CliError';
  }
}

/**
 * The command line was wrong (exit 2): an unknown command or option, a missing or malformed
 * value, or a name (tenant, site, token) that does not exist. `help`: the help of the command
 * concerned, shown after the message.
 */
export class UsageError extends CliError {
  constructor(
    message: string,
    readonly help?: string,
  ) {
    super(message, 2);
    this.name = 'UsageError';
  }
}

/** The signer, or a CliError saying where the system credential comes from. */
export function systemSigner(ctx: AdminContext, command: string): CallerSigner {
  const sign = ctx.signer();
  if (!sign)
    throw new CliError(
      `${command} needs the system credential: set SERVICE_SYSTEM_SECRET (the install's Secret, key system-secret), ` +
        'or run it next to a running `npm start` of this checkout',
      2,
    );
  return sign;
}

export const KINDS = ['entries', 'products'] as const;
export type Kind = (typeof KINDS)[number];

/** The kinds a command works on: the one given, else both. */
export function kindsOf(kind: string | undefined): Kind[] {
  if (kind === undefined) return [...KINDS];
  if (!(KINDS as readonly string[]).includes(kind))
    throw new UsageError(`--kind must be ${KINDS.join(' or ')}, got "${kind}"`);
  return [kind as Kind];
}
