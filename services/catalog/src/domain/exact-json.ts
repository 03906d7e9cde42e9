import { DECIMAL_FIELDS, numberToken, plainDecimal } from '@kb/rules';

export { DECIMAL_FIELDS, DECIMAL_PATTERN, parseKeepingNumbers } from '@kb/rules';

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
 * together (leading zeros of the integer part aside). 34 is what MongoDB's decimal type holds
 * exactly, and counting the written-out digits rather than the significant ones keeps every
 * stored value printable in plain digits (the interface's decimal pattern has no exponent) and
 * finite as the double Elasticsearch indexes: 1e-400 or 1e400 would fit that type but are refused.
 */
export const MAX_DECIMAL_DIGITS = 34;

/** Longer texts are not parsed as a decimal by MongoDB (leading zeros do not count as digits above, they do here). */
const MAX_DECIMAL_TEXT = 6_999;

/**
 * A plain decimal string as the exact decimal the catalog keeps (leading zeros of the integer
 * part dropped, every other digit as sent), or undefined when it is over the bounds above.
 */
export function exactDecimal(plain: string): string | undefined {
  const m = /^-?(\d+)(?:\.(\d+))?$/.exec(plain);
  if (!m || plain.length > MAX_DECIMAL_TEXT) return undefined;
  const [, int = '', frac = ''] = m;
  if (int.replace(/^0+/, '').length + frac.length > MAX_DECIMAL_DIGITS) return undefined;
  return plainDecimal(plain);
}
