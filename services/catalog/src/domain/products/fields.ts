import { randomUUID } from 'node:crypto';
import { isDeepStrictEqual } from 'node:util';
import {
  DECIMAL_FIELDS,
  PRODUCT_DEFAULTS,
  PRODUCT_INPUT_FIELDS,
  type DecimalField,
  type ProductInput,
  exactDecimal,
} from '@kb/rules';
import type { Product, ProductFields, ProductSet } from '../types';

/** What an omitted field is stored as, when not null; collections are fresh per product. */
const OMITTED: { [K in keyof ProductFields]?: () => ProductFields[K] } = {
  ...(Object.fromEntries(Object.entries(PRODUCT_DEFAULTS).map(([k, v]) => [k, () => v])) as {
    [K in keyof typeof PRODUCT_DEFAULTS]: () => ProductFields[K];
  }),
  attributes: () => ({}),
  properties: () => ({}),
  additional_images: () => [],
  search_keywords: () => [],
};

const isDecimalField = (k: string): k is DecimalField => (DECIMAL_FIELDS as readonly string[]).includes(k);

/** The fields a product input writes: every input field, defaults for what was omitted, exact decimals. */
export function fieldsOf(input: ProductInput, source: string): ProductFields {
  const out: Record<string, unknown> = {};
  for (const k of PRODUCT_INPUT_FIELDS) {
    const v = input[k];
    if (isDecimalField(k)) out[k] = v == null ? null : (exactDecimal(v as string) ?? null);
    else out[k] = v ?? OMITTED[k]?.() ?? null;
  }
  out.source = source;
  return out as ProductFields;
}

/** Whether the stored product already has exactly these fields (the write would change nothing). */
export function sameFields(doc: Product, fields: ProductFields): boolean {
  const stored: Record<string, unknown> = {};
  for (const k of Object.keys(fields) as (keyof ProductFields)[]) stored[k] = doc[k] ?? null;
  // The channel a sync came through (api, import) is not content: the same product is unchanged.
  return isDeepStrictEqual({ ...stored, source: null }, { ...fields, source: null });
}

/** Only a non-blank similarity_text makes a product an anchor of its own. */
export const hasSimilarityAnchor = (fields: Pick<ProductFields, 'similarity_text'>) =>
  Boolean(fields.similarity_text && fields.similarity_text.trim());

/** The same sync_hash as the stored version: the content to embed is the same, the vectors are kept. */
export const keepsVectors = (existing: Product | null, fields: Pick<ProductFields, 'sync_hash'>) =>
  Boolean(existing && existing.sync_hash !== null && existing.sync_hash === fields.sync_hash);

/** The parent's id, unless there is none yet or it is the product itself. */
export const parentIdOf = (parent: Product | null, productId: string) =>
  parent && parent.id !== productId ? parent.id : null;

/** `id`: the product's id if the write goes as planned (the stored one's, or `newId` for a new one). */
export type WritePlan = {
  kind: 'write';
  key: string;
  id: string;
  newId: string;
  set: ProductSet;
  reuseVectors: boolean;
  externalId: string | null;
};
export type Plan = { kind: 'unchanged'; existing: Product } | WritePlan;

/** What a product write will do, given the stored product with its key and its parent. */
export function planWrite(fields: ProductFields, existing: Product | null, parent: Product | null, now: Date): Plan {
  if (existing && sameFields(existing, fields)) return { kind: 'unchanged', existing };
  const newId = randomUUID();
  const reuseVectors = keepsVectors(existing, fields);
  return {
    kind: 'write',
    key: fields.external_id ?? newId,
    id: existing?.id ?? newId,
    newId,
    externalId: fields.external_id,
    reuseVectors,
    set: {
      ...fields,
      parent_product_id: parentIdOf(parent, existing?.id ?? newId),
      translation_group_id: existing?.translation_group_id ?? null,
      has_similarity_anchor: hasSimilarityAnchor(fields),
      needs_index: true,
      reuse_vectors: reuseVectors,
      last_synced_at: now,
      updated_at: now,
    },
  };
}
