import { Type, type Static } from '@sinclair/typebox';
import { Value } from '@sinclair/typebox/value';
import { AppError, FIELD_LIMITS, jsonShapeProblem, keyIssues, numberToken, tooDeepIssue, validationIssues, type ValidationIssue } from '@kb/common';
import { DECIMAL_FIELDS, DECIMAL_PATTERN, MAX_DECIMAL_DIGITS, parseKeepingNumbers, resolveNumbers, toDecimal128 } from './exact-json';

const Str = (opts: { maxLength?: number; minLength?: number } = {}) => Type.Union([Type.String(opts), Type.Null()]);
const Decimal = Type.Union([Type.String({ pattern: DECIMAL_PATTERN }), Type.Null()]);

/**
 * A product write as the catalog receives it: the interface's body, with prices and rating as
 * exact decimal strings (they arrive as JSON numbers at the edge and never become floats).
 * Unknown fields are refused; omitted ones take their defaults.
 */
export const ProductInput = Type.Object(
  {
    title: Type.String({ minLength: 1, maxLength: FIELD_LIMITS.productTitle }),
    language: Type.String({ minLength: 2, maxLength: 5 }),
    external_id: Type.Optional(Str({ maxLength: 200 })),
    description: Type.Optional(Str({ maxLength: FIELD_LIMITS.longText })),
    short_description: Type.Optional(Str({ maxLength: FIELD_LIMITS.text })),
    sku: Type.Optional(Str({ maxLength: 100 })),
    gtin: Type.Optional(Str({ maxLength: 50 })),
    brand: Type.Optional(Str({ maxLength: 200 })),
    category: Type.Optional(Str({ maxLength: FIELD_LIMITS.category })),
    attributes: Type.Optional(Type.Record(Type.String(), Type.Unknown())),
    properties: Type.Optional(Type.Record(Type.String(), Type.Unknown())),
    price_current: Type.Optional(Decimal),
    price_msrp: Type.Optional(Decimal),
    price_special: Type.Optional(Decimal),
    price_on_request: Type.Optional(Type.Boolean()),
    currency: Type.Optional(Type.String({ maxLength: 3 })),
    image_url: Type.Optional(Str({ maxLength: FIELD_LIMITS.url })),
    product_url: Type.Optional(Str({ maxLength: FIELD_LIMITS.url })),
    additional_images: Type.Optional(Type.Array(Type.String({ maxLength: FIELD_LIMITS.url }), { maxItems: FIELD_LIMITS.images })),
    availability: Type.Optional(Str({ maxLength: 50 })),
    rating_average: Type.Optional(Decimal),
    rating_count: Type.Optional(Type.Integer({ minimum: 0, maximum: FIELD_LIMITS.int32 })),
    parent_external_id: Type.Optional(Str({ maxLength: FIELD_LIMITS.name })),
    is_variant: Type.Optional(Type.Boolean()),
    is_parent: Type.Optional(Type.Boolean()),
    similarity_text: Type.Optional(Str({ maxLength: FIELD_LIMITS.text })),
    search_keywords: Type.Optional(Type.Array(Type.String({ maxLength: FIELD_LIMITS.listItem }), { maxItems: FIELD_LIMITS.listItems })),
    embedding_text_description: Type.Optional(Str({ maxLength: FIELD_LIMITS.longText })),
    embedding_text_properties: Type.Optional(Str({ maxLength: FIELD_LIMITS.longText })),
    embedding_text_attributes: Type.Optional(Str({ maxLength: FIELD_LIMITS.longText })),
    sync_hash: Type.Optional(Str({ maxLength: 64 })),
  },
  { additionalProperties: false },
);
export type ProductInput = Static<typeof ProductInput>;

/**
 * Schema problems, the keys of attributes and properties (as the gateway checks every body:
 * the import CLI and a bulk item reach here without it), then the exact-decimal rules
 * (representable; rating 0 to 5).
 */
export function productIssues(value: unknown, prefix: (string | number)[]): ValidationIssue[] {
  if (!Value.Check(ProductInput, value)) return validationIssues(ProductInput, value, prefix);
  const keys = keyIssues(value, prefix);
  if (keys.length) return keys.slice(0, 20);
  const issues: ValidationIssue[] = [];
  const input = value as ProductInput;
  for (const field of DECIMAL_FIELDS) {
    const v = input[field];
    if (v == null) continue;
    if (!toDecimal128(v)) {
      issues.push({ loc: [...prefix, field], msg: `Decimal input should have no more than ${MAX_DECIMAL_DIGITS} digits in total`, type: 'decimal_max_digits' });
    }
    else if (field === 'rating_average' && (Number(v) < 0 || Number(v) > 5)) {
      issues.push({
        loc: [...prefix, field],
        msg: Number(v) < 0 ? 'Input should be greater than or equal to 0' : 'Input should be less than or equal to 5',
        type: Number(v) < 0 ? 'greater_than_equal' : 'less_than_equal',
      });
    }
  }
  return issues;
}

export function assertProductInput(value: unknown, prefix: (string | number)[] = ['body']): ProductInput {
  const issues = productIssues(value, prefix);
  if (issues.length) throw AppError.invalid(issues);
  return value as ProductInput;
}

/**
 * A product from a line of JSON text (the import file): numbers keep their source text, prices
 * and rating sent as strings are refused (as at the HTTP edge). Returns the value or the issues.
 */
export function productFromJsonText(text: string, prefix: (string | number)[]): { value?: ProductInput; issues: ValidationIssue[] } {
  // Depth first, on the text: a line nested thousands deep never reaches a recursive step.
  const shape = jsonShapeProblem(text);
  if (shape?.kind === 'too_deep') return { issues: [tooDeepIssue(prefix)] };
  if (shape?.kind === 'duplicate') return { issues: [{ loc: prefix, msg: `Invalid JSON: duplicate key "${shape.key}"`, type: 'json_invalid' }] };
  let raw: unknown;
  try {
    raw = parseKeepingNumbers(text);
  } catch {
    return { issues: [{ loc: prefix, msg: 'Invalid JSON', type: 'json_invalid' }] };
  }
  if (!raw || typeof raw !== 'object' || Array.isArray(raw)) {
    return { issues: [{ loc: prefix, msg: 'Input should be a valid dictionary', type: 'dict_type' }] };
  }
  const wrongType: ValidationIssue[] = [];
  for (const field of DECIMAL_FIELDS) {
    const v = (raw as Record<string, unknown>)[field];
    if (v !== undefined && v !== null && numberToken(v) === undefined) {
      wrongType.push({ loc: [...prefix, field], msg: 'Input should be a valid number', type: 'float_type' });
    }
  }
  const value = resolveNumbers(raw);
  const issues = [...wrongType, ...productIssues(value, prefix).filter((i) => !wrongType.some((w) => w.loc.join() === i.loc.join()))];
  return issues.length ? { issues } : { value: value as ProductInput, issues };
}
