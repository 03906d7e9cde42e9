/**
 * The `_source` fields of search hits kept by document, each at the version it was read at (the
 * index's external version, the product's MongoDB version): a kept source is used only for a hit
 * whose version Elasticsearch reports equal, so it is the document the index holds, field for field.
 * While most hits of an index are kept, its searches ask Elasticsearch for ids, scores and
 * versions only (no `_source` to load, filter and send) and read the few others by id.
 */
export interface HitSources {
  /** The source kept for this document at exactly this version. */
  get(index: string, id: string, version: number): Record<string, unknown> | undefined;
  set(index: string, id: string, version: number, source: Record<string, unknown>): void;
  /** Whether a search of `alias` should leave `_source` out: most of its recent hits were kept. */
  lean(alias: string): boolean;
  /** A search of `alias` had `hits` hits, `missing` of them not kept. */
  observe(alias: string, hits: number, missing: number): void;
}
