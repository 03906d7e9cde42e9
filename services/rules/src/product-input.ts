import { Type, type Static, type TSchema } from '@sinclair/typebox';
import { LINEAR_DECIMAL_PATTERN, DECIMAL_FIELDS } from './exact-json';
import { FIELD_LIMITS } from './limits';

/**
 * A product write, described once: the gateway publishes and checks it as `ProductCreate` (prices
 * and rating as JSON numbers) and the catalog checks the same fields as `ProductInput` (the
 * same numbers as exact decimal strings, as the gateway forwards them and the import CLI reads them).
 */

/** What an omitted field becomes when a product is written. */
export const PRODUCT_DEFAULTS = {
  price_on_request: false,
  currency: 'EUR',
  rating_count: 0,
  is_variant: false,
  is_parent: false,
} as const;
/** The bounds of rating_average (checked on the exact decimal, not only on the JSON number). */
export const RATING_BOUNDS = { minimum: 0, maximum: 5 } as const;

const Nullable = <T extends TSchema>(schema: T) => Type.Union([schema, Type.Null()]);
const Str = (opts: { maxLength?: number } = {}) => Nullable(Type.String(opts));
const Obj = Type.Record(Type.String(), Type.Unknown());

/** The fields of a product write; only how prices and rating are written differs between the two forms. */
function productFields<P extends TSchema, R extends TSchema>(price: P, rating: R) {
  return {
    title: Type.String({ minLength: 1, maxLength: FIELD_LIMITS.productTitle }),
    language: Type.String({ minLength: 2, maxLength: 5 }),
    external_id: Type.Optional(Str({ maxLength: 200 })),
    description: Type.Optional(Str({ maxLength: FIELD_LIMITS.longText })),
    short_description: Type.Optional(Str({ maxLength: FIELD_LIMITS.text })),
    sku: Type.Optional(Str({ maxLength: 100 })),
    gtin: Type.Optional(Str({ maxLength: 50 })),
    brand: Type.Optional(Str({ maxLength: 200 })),
    category: Type.Optional(Str({ maxLength: FIELD_LIMITS.category })),
    attributes: Type.Optional(Obj),
    properties: Type.Optional(Obj),
    price_current: Type.Optional(price),
    price_msrp: Type.Optional(price),
    price_special: Type.Optional(price),
    price_on_request: Type.Optional(Type.Boolean({ default: PRODUCT_DEFAULTS.price_on_request })),
    currency: Type.Optional(Type.String({ maxLength: 3, default: PRODUCT_DEFAULTS.currency })),
    image_url: Type.Optional(Str({ maxLength: FIELD_LIMITS.url })),
    product_url: Type.Optional(Str({ maxLength: FIELD_LIMITS.url })),
    additional_images: Type.Optional(
      Type.Array(Type.String({ maxLength: FIELD_LIMITS.url }), { maxItems: FIELD_LIMITS.images }),
    ),
    availability: Type.Optional(Str({ maxLength: 50 })),
    rating_average: Type.Optional(rating),
    rating_count: Type.Optional(
      Type.Integer({ minimum: 0, maximum: FIELD_LIMITS.int32, default: PRODUCT_DEFAULTS.rating_count }),
    ),
    parent_external_id: Type.Optional(Str({ maxLength: FIELD_LIMITS.name })),
    is_variant: Type.Optional(Type.Boolean({ default: PRODUCT_DEFAULTS.is_variant })),
    is_parent: Type.Optional(Type.Boolean({ default: PRODUCT_DEFAULTS.is_parent })),
    similarity_text: Type.Optional(Str({ maxLength: FIELD_LIMITS.text })),
    search_keywords: Type.Optional(
      Type.Array(Type.String({ maxLength: FIELD_LIMITS.listItem }), { maxItems: FIELD_LIMITS.listItems }),
    ),
    embedding_text_description: Type.Optional(Str({ maxLength: FIELD_LIMITS.longText })),
    embedding_text_properties: Type.Optional(Str({ maxLength: FIELD_LIMITS.longText })),
    embedding_text_attributes: Type.Optional(Str({ maxLength: FIELD_LIMITS.longText })),
    sync_hash: Type.Optional(Str({ maxLength: 64 })),
  };
}

// The catalog checks the digit bound (it also serves the import CLI, which skips the gateway).
const EXACT =
  'Kept exactly as sent (Decimal128), answered in plain digits; at most 34 digits written out (integer and fractional together), else 422';

/**
 * A price (or a price filter) as a JSON number: 0, or a magnitude from 1e-18 up to (not
 * including) 1e34. Within these bounds every number written with a double's 17 significant digits
 * stays within the 34 digits written out that are kept exactly (17 zeros after the point, then 17
 * digits; 1e-300 would need 300); JSON Schema can state the bounds, the digit rule itself (for
 * longer digit strings) only in words.
 */
const SMALLEST = 1e-18;
const BEYOND = 1e34;
export const exactNumber = (largest?: number) =>
  Type.Union(
    [
      Type.Literal(0),
      Type.Number(
        largest === undefined
          ? { minimum: SMALLEST, exclusiveMaximum: BEYOND }
          : { minimum: SMALLEST, maximum: largest },
      ),
      ...(largest === undefined ? [Type.Number({ exclusiveMinimum: -BEYOND, maximum: -SMALLEST })] : []),
      Type.Null(),
    ],
    {
      description: `${EXACT}; 0 or a magnitude from 1e-18 ${largest === undefined ? 'up to, not including, 1e34' : `to ${largest}`}`,
    },
  );

/** The product body of the HTTP interface (published in the OpenAPI document under this $id). */
export const ProductCreate = Type.Object(productFields(exactNumber(), exactNumber(RATING_BOUNDS.maximum)), {
  additionalProperties: false,
  $id: 'ProductCreate',
});
export type ProductCreate = Static<typeof ProductCreate>;

const ExactDecimal = Nullable(Type.String({ pattern: LINEAR_DECIMAL_PATTERN }));
/**
 * The same body past the gateway: prices and rating as exact decimal strings (they arrive as
 * JSON numbers at the edge and never become floats). Unknown fields are refused.
 */
export const ProductInput = Type.Object(productFields(ExactDecimal, ExactDecimal), { additionalProperties: false });
export type ProductInput = Static<typeof ProductInput>;

type ProductInputField = keyof ProductInput;
export type DecimalField = (typeof DECIMAL_FIELDS)[number];
/** Every field a product write carries, in the interface's order. */
export const PRODUCT_INPUT_FIELDS = Object.keys(ProductInput.properties) as ProductInputField[];
