import { randomBytes } from 'node:crypto';

export type IndexKind = 'products' | 'entries';
export const INDEX_KINDS: readonly IndexKind[] = ['products', 'entries'];

/** The model name as it appears in index names: lower case, anything but [a-z0-9] becomes '-'. */
export function modelSlug(model: string): string {
  return model.toLowerCase().replace(/[^a-z0-9]/g, '-');
}

/** The alias searches and writes go through: one per kind, model and dimension. */
export function aliasName(prefix: string, kind: IndexKind | 'embeddings', model: string, dims: number): string {
  return `${prefix}-${kind}-${modelSlug(model)}-${dims}`;
}

/** A concrete index behind `alias`: the alias plus a UTC timestamp and a random suffix (sortable by creation time). */
export function newIndexName(alias: string, now: Date = new Date()): string {
  const stamp = now
    .toISOString()
    .replace(/[-:.TZ]/g, '')
    .slice(0, 17);
  return `${alias}-${stamp}-${randomBytes(3).toString('hex')}`;
}

/** True when `index` is one of the concrete indices that can sit behind `alias`. */
export function isIndexOf(alias: string, index: string): boolean {
  return index.startsWith(`${alias}-`) && /^\d{17}-[0-9a-f]{6}$/.test(index.slice(alias.length + 1));
}
