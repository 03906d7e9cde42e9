import { Types } from 'mongoose';
import { DECIMAL_FIELDS, numberToken, plainDecimal } from '@kb/common';

export { DECIMAL_FIELDS, DECIMAL_PATTERN, parseKeepingNumbers } from '@kb/common';

/** Replaces marked numbers: in a product object, decimal fields become decimal strings. */
export function resolveNumbers(
  value: unknown,
  decimalKeys: readonly string[] = DECIMAL_FIELDS,
  inProduct = true,
): unknown {
  const token = numberToken(value);
  if (token !== undefined) return Number(token);
  if (Array.isArray(value)) return value.map((v) => resolveNumbers(v, decimalKeys, false));
  if (value && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) {
      const t = numberToken(v);
      out[k] =
        inProduct && decimalKeys.includes(k) && t !== undefined
          ? plainDecimal(t)
          : resolveNumbers(v, decimalKeys, false);
    }
    return out;
  }
  return value;
}

/**
 * How many digits a price or rating may have written out: integer and fractional digits
 * together (leading zeros of the integer part aside). 34 is what Decimal128 holds exactly, and
 * counting the written-out digits rather than the significant ones keeps every stored value
 * printable in plain digits (the interface's decimal pattern has no exponent) and finite as the
 * double Elasticsearch indexes: 1e-400 or 1e400 would fit Decimal128 but are refused.
 */
export const MAX_DECIMAL_DIGITS = 34;

/** Decimal128 from a plain decimal string, or undefined when it is over the bound above. */
export function toDecimal128(plain: string): Types.Decimal128 | undefined {
  const m = /^-?(\d+)(?:\.(\d+))?$/.exec(plain);
  if (!m) return undefined;
  const [, int = '', frac = ''] = m;
  if (int.replace(/^0+/, '').length + frac.length > MAX_DECIMAL_DIGITS) return undefined;
  try {
    return Types.Decimal128.fromString(plain);
  } catch {
    return undefined;
  }
}

/**
 * A stored decimal as plain digits. Decimal128's own toString switches to an exponent below
 * 1e-6 ("1E-7"), which the interface's pattern and the similarity service's index both refuse.
 */
export function decimalText(d: Types.Decimal128): string {
  return plainDecimal(d.toString());
}

/** A stored decimal that may be null as plain digits, or undefined (an unset proto3 optional). */
export const optionalDecimalText = (d: Types.Decimal128 | null | undefined): string | undefined =>
  d == null ? undefined : decimalText(d);
