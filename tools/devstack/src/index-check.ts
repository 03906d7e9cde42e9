/**
 * MongoDB is the truth and the search indices are derived from it. On a start whose Elasticsearch
 * holds no entry (or no product) while MongoDB holds some, the indices are rebuilt with `admin
 * reindex`, as an operator would after restoring MongoDB alone: otherwise every search would
 * answer nothing, and the indexers, which take only what MongoDB marks as not yet indexed, would
 * never fill them. It happens when Elasticsearch's data went away while MongoDB's stayed, or when
 * `--es-nodes` changes: a cluster keeps its data apart from the single node's, MongoDB is shared.
 */
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import mongoose from 'mongoose';
import { checkoutDir } from './cache';
import type { Log } from './log';

/** The kinds whose index is empty while MongoDB holds documents of them. */
export async function emptyIndices(
  mongoUri: string,
  elasticsearchUrl: string,
  prefix: string,
): Promise<('entries' | 'products')[]> {
  const node = elasticsearchUrl.split(',')[0]!.trim().replace(/\/+$/, '');
  const connection = await mongoose.createConnection(mongoUri, { serverSelectionTimeoutMS: 10_000 }).asPromise();
  try {
    const kinds = [
      ['entries', 'knowledge_entries'],
      ['products', 'products'],
    ] as const;
    const empty: ('entries' | 'products')[] = [];
    for (const [kind, collection] of kinds) {
      const stored = await connection.db!.collection(collection).estimatedDocumentCount();
      if (stored === 0) continue;
      // Top-level documents only (`_count` does not count nested passages); every model's index.
      const res = await fetch(`${node}/${prefix}-${kind}-*/_count?allow_no_indices=true`);
      if (!res.ok) continue; // an index not yet serving: nothing to conclude
      if (((await res.json()) as { count?: number }).count === 0) empty.push(kind);
    }
    return empty;
  } finally {
    await connection.close();
  }
}

/** Runs `admin reindex <kind>` for each kind (it finds this run's services in the run state), its output in the log. */
export async function rebuildIndices(kinds: ('entries' | 'products')[], mongoUri: string, log: Log): Promise<boolean> {
  for (const kind of kinds) {
    const started = Date.now();
    const ok = await new Promise<boolean>((resolve) =>
      execFile(
        process.execPath,
        [join(checkoutDir(), 'tools', 'admin', 'dist', 'main.js'), 'reindex', kind],
        { env: { ...process.env, MONGODB_URI: mongoUri }, maxBuffer: 16 * 1024 * 1024 },
        (err, stdout, stderr) => {
          for (const line of `${stdout}${err ? stderr : ''}`.split('\n').filter((l) => l.trim() !== ''))
            log(`  ${line}`);
          resolve(!err);
        },
      ),
    );
    log(
      `search index of ${kind}: ${ok ? 'rebuilt' : 'NOT rebuilt (see above)'} in ${((Date.now() - started) / 1000).toFixed(1)} s`,
    );
    if (!ok) return false;
  }
  return true;
}
