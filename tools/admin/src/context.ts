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
  /** host:port of the similarity service, unless `--similarity` says otherwise. */
  similarityAddr(): string;
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

export const KINDS = ['entries', 'products'] as const;
export type Kind = (typeof KINDS)[number];

/** The kinds a command works on: the one given, else both. */
export function kindsOf(kind: string | undefined): Kind[] {
  if (kind === undefined) return [...KINDS];
  if (!(KINDS as readonly string[]).includes(kind))
    throw new UsageError(`--kind must be ${KINDS.join(' or ')}, got "${kind}"`);
  return [kind as Kind];
}
