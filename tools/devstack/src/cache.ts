import { createHash } from 'node:crypto';
import { mkdirSync, realpathSync, statSync, chmodSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join, resolve } from 'node:path';

/** The checkout this code runs from (tools/<tool>/{src,dist} → three levels up). */
export function checkoutDir(): string {
  return realpathSync(resolve(__dirname, '..', '..', '..'));
}

/** Short stable key of the checkout path: two checkouts never share run state or data. */
export function checkoutKey(): string {
  return createHash('sha256').update(checkoutDir()).digest('hex').slice(0, 12);
}

/** `$KB_CACHE_DIR`, else `$XDG_CACHE_HOME/knowledge-service`, else `~/.cache/knowledge-service`. */
export function cacheDir(): string {
  if (process.env.KB_CACHE_DIR) return resolve(process.env.KB_CACHE_DIR);
  const xdg = process.env.XDG_CACHE_HOME;
  return join(xdg ? resolve(xdg) : join(homedir(), '.cache'), 'knowledge-service');
}

/** Folder of the run-state files of this checkout. */
export function runDir(): string {
  return join(cacheDir(), 'run', checkoutKey());
}

const SHARED_ROOT_DIR = '/var/tmp/knowledge-service';

/**
 * Base folder for Elasticsearch's home and data. When root runs the stack, Elasticsearch runs as
 * an unprivileged user that must be able to reach these folders; root's cache usually sits under
 * /root (mode 700), so then a world-traversable folder under /var/tmp is used instead.
 */
export function elasticsearchBaseDir(): string {
  const cache = cacheDir();
  if (process.getuid?.() !== 0 || othersCanTraverse(cache)) return cache;
  mkdirSync(SHARED_ROOT_DIR, { recursive: true });
  // /var/tmp is writable by everyone: never run what another user could have planted there.
  const owner = statSync(SHARED_ROOT_DIR).uid;
  if (owner !== 0) {
    throw new Error(
      `${SHARED_ROOT_DIR} belongs to uid ${owner}, not root; remove it or set KB_CACHE_DIR to a folder outside /root.`,
    );
  }
  chmodSync(SHARED_ROOT_DIR, 0o755);
  return SHARED_ROOT_DIR;
}

/** True when every existing folder on the way to `dir` has the x bit for others. */
function othersCanTraverse(dir: string): boolean {
  for (let d = resolve(dir); ; d = dirname(d)) {
    try {
      if ((statSync(d).mode & 0o001) === 0) return false;
    } catch {
      // not created yet: it will be created with mode 755
    }
    if (d === dirname(d)) return true;
  }
}

/** mkdir -p with mode 755 on what it creates, whatever the umask (other users may need to read). */
export function mkdirShared(dir: string): string {
  const created = mkdirSync(dir, { recursive: true });
  if (created) {
    for (let d = resolve(dir); d.length >= created.length; d = dirname(d)) chmodSync(d, 0o755);
  }
  return dir;
}
