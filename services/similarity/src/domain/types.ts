/** What indexing one document came to, as the IndexEntries and IndexProducts answers carry it. */
export interface IndexResult {
  id: string;
  status: 'indexed' | 'stale' | 'failed';
  /** How its vectors came about: computed, cached or reused. */
  embeddings: string;
  /** Why it was refused ('' otherwise). */
  error: string;
}
