import { LRUCache } from 'lru-cache';
import { untraced, type Logger } from '@kb/platform';
import {
  type ProductVectorField,
  hitSourceFields,
  productVectorPath,
  readTenantAnchors,
  type ElasticsearchClient,
  type HitSources,
} from '@kb/search';
import { ANCHORS_KEPT, type KeptAnchors } from './anchor-cache';
import { HIT_FIELDS } from './hit-sources';
import type { IndexWatches } from './index-watch';

export const PRELOAD_AGAIN_MS = 60_000;

/**
 * Whether a similar search starts reading its tenant's vectors ahead (per index and field): the
 * first time, and again when one of its anchors is not kept once PRELOAD_AGAIN_MS have passed
 * since the last read started (a catalogue that grew since), never more often.
 */
export function readAheadDue(startedAt: number | undefined, anchorNotKept: boolean, now = Date.now()): boolean {
  return startedAt === undefined || (anchorNotKept && now - startedAt >= PRELOAD_AGAIN_MS);
}
const PRELOAD_PAGE = 25;
const PRELOAD_PAUSE_MS = 5;
/** Tenant, index and field triples whose last read-ahead start is remembered. */
const READS_AHEAD_KEPT = 10_000;

/** The fields a kept hit has: those of `source` that `fields` names and it holds. */
const pick = (source: Record<string, unknown>, fields: readonly string[]) =>
  Object.fromEntries(fields.filter((f) => f in source).map((f) => [f, source[f]]));
const hitFields = hitSourceFields(HIT_FIELDS);

/** Per tenant, index and field: when the background read of its products' vectors started (readAheadDue). */
export type ReadAheadStarts = LRUCache<string, number>;
export const readAheadStarts = (): ReadAheadStarts => new LRUCache<string, number>({ max: READS_AHEAD_KEPT });

/** What the read-ahead reads through and fills. */
export interface ReadAheadState {
  es: ElasticsearchClient;
  watches: IndexWatches;
  anchors: KeptAnchors;
  /** Absent when no hits are kept (HIT_CACHE_CHARS 0). */
  hitSources: HitSources | undefined;
  readAheads: ReadAheadStarts;
  logger: Logger;
}

/**
 * Starts reading the tenant's products' vectors of `field` into the anchor cache in the
 * background, when due (readAheadDue): `ids` are the anchors of the search that asks.
 */
export function readAnchorsAhead(
  state: ReadAheadState,
  tenantId: string,
  index: string,
  field: string,
  ids: string[],
): void {
  const { es, watches, anchors, hitSources, readAheads, logger } = state;
  if (field === 'hybrid') return;
  const key = `${tenantId}\u0000${index}\u0000${field}`;
  if (
    !readAheadDue(
      readAheads.get(key),
      ids.some((id) => !anchors.get(id)),
    )
  )
    return;
  readAheads.set(key, Date.now());
  void untraced(async () => {
    // The index's state before the first page is read: while it holds, what the pages say holds.
    await watches.of(index).touch();
    const before = watches.of(index).state()?.value;
    return readTenantAnchors(
      es,
      index,
      tenantId,
      field as ProductVectorField,
      ANCHORS_KEPT,
      (a) => {
        const { index: concrete, source, ...rest } = a;
        const vector = productVectorPath(field as ProductVectorField);
        // The anchor as a search reads it: the tenant, and the vector only where the product has one.
        const anchor = { ...rest, source: pick(source, ['tenant_id', vector]) };
        if (!anchors.get(a.id)) anchors.set(anchor, before ?? null); // what a search read itself is as recent
        // The hit this product makes, kept at its version: the searches that find it need no `_source`.
        if (hitSources && a.version !== undefined) hitSources.set(concrete, a.id, a.version, pick(source, hitFields));
        return true;
      },
      // Small pages with a pause between: searches running meanwhile wait for a page at most.
      { size: PRELOAD_PAGE, between: () => new Promise((r) => setTimeout(r, PRELOAD_PAUSE_MS)) },
      hitSources ? hitFields : [],
    );
  }).catch((err: unknown) => {
    readAheads.delete(key); // tried again by the next search
    logger.warn({ err: (err as Error).message, tenant_id: tenantId }, 'reading anchor vectors ahead failed');
  });
}
