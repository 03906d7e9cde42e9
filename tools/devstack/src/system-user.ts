import { spawnSync } from 'node:child_process';
import type { Log } from './log';

/** The unprivileged account Elasticsearch runs as when root starts the stack (it refuses root). */
export const ELASTICSEARCH_USER = 'kbsearch';

/** uid and gid of a system account, created (no home, no login shell) if it does not exist. */
export function ensureSystemUser(name: string, log: Log): { uid: number; gid: number } {
  let ids = lookup(name);
  if (!ids) {
    log(`Creating system user '${name}' to run Elasticsearch, which refuses to run as root.`);
    const made = spawnSync('useradd', ['--system', '--no-create-home', '--shell', '/usr/sbin/nologin', name], {
      encoding: 'utf8',
    });
    ids = lookup(name);
    if (!ids) {
      throw new Error(
        `Could not create system user '${name}' (${made.error?.message ?? made.stderr.trim()}). ` +
          `Create it yourself (useradd --system ${name}) or run as a non-root user.`,
      );
    }
  }
  return ids;
}

function lookup(name: string): { uid: number; gid: number } | undefined {
  const id = (flag: string): number =>
    Number(spawnSync('id', [flag, name], { encoding: 'utf8' }).stdout?.trim() || NaN);
  const uid = id('-u');
  const gid = id('-g');
  return Number.isInteger(uid) && Number.isInteger(gid) ? { uid, gid } : undefined;
}
