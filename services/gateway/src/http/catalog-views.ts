import { Type, type Static, type TObject, type TSchema } from '@sinclair/typebox';
import { AppError, type catalogV1, type ValidationIssue } from '@kb/platform';
import { Product, PRODUCT_HIT_FIELDS, Site } from './catalog-schemas';

// catalog.v1 answers → the interface's JSON shapes, read off the response schemas: key order is
// the schema's (the answers' bytes), a proto3 `optional` left out is the interface's null.

const object = (json: string): Record<string, unknown> => (json ? (JSON.parse(json) as Record<string, unknown>) : {});
const isNullable = (schema: TSchema) =>
  Array.isArray(schema.anyOf) && schema.anyOf.some((s: TSchema) => s.type === 'null');

/** Per response schema, its keys in order with their `<key>_json` names and nullability: worked out once. */
const plans = new WeakMap<TObject, { key: string; json: string; nullable: boolean }[]>();
function planOf(schema: TObject) {
  let plan = plans.get(schema);
  if (!plan) {
    plan = Object.entries(schema.properties).map(([key, s]) => ({ key, json: `${key}_json`, nullable: isNullable(s) }));
    plans.set(schema, plan);
  }
  return plan;
}

/** A message in a response schema's shape: each key in the schema's order; `<key>_json` text is the object it encodes. */
function shaped<T extends TObject>(schema: T, message: object): Static<T> {
  const fields = message as Record<string, unknown>;
  const out: Record<string, unknown> = {};
  for (const { key, json: jsonKey, nullable } of planOf(schema)) {
    const json = fields[jsonKey];
    out[key] = typeof json === 'string' ? object(json) : nullable ? (fields[key] ?? null) : fields[key];
  }
  return out as Static<T>;
}

const ProductHitFields = Type.Pick(Product, PRODUCT_HIT_FIELDS);

/** The interface's product response shape. */
export const productJson = (p: catalogV1.Product__Output) => shaped(Product, p);

/** The interface's site response shape. */
export const siteJson = (s: catalogV1.Site__Output) => shaped(Site, s);

/** The interface's product search hit, with `explanation` when the catalog sent one. */
export function productHitJson(h: catalogV1.ProductSearchHit__Output) {
  return {
    ...shaped(ProductHitFields, h),
    score: h.score,
    score_sources: { ...h.score_sources },
    ...(h.explanation_json !== undefined ? { explanation: JSON.parse(h.explanation_json) as unknown } : {}),
  };
}

/** The message's product, which the catalog always sets on success. */
export function requiredProduct(p: catalogV1.Product__Output | null | undefined): catalogV1.Product__Output {
  if (!p) throw new AppError('internal', 'The catalog answered without a product');
  return p;
}

/** Issues in FastAPI's shape: all-digit loc elements are array indexes, numbers again. */
export function issuesJson(issues: catalogV1.Issue__Output[]): ValidationIssue[] {
  return issues.map((i) => ({ loc: i.loc.map((x) => (/^\d+$/.test(x) ? Number(x) : x)), msg: i.msg, type: i.type }));
}
