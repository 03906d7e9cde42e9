import { Types } from 'mongoose';
import { DECIMAL_FIELDS, numberToken, plainDecimal } from '@kb/common';

export { DECIMAL_FIELDS, parseKeepingNumbers } from '@kb/common';

/** Replaces marked numbers: in a product object, decimal fields become decimal strings. */
export function resolveNumbers(value: unknown, decimalKeys: readonly string[] = DECIMAL_FIELDS, inProduct = true): unknown {
  const token = numberToken(value);
  if (token !== undefined) return Number(token);
  if (Array.isArray(value)) return value.map((v) => resolveNumbers(v, decimalKeys, false));
  if (value && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) {
      const t = numberToken(v);
      out[k] = inProduct && decimalKeys.includes(k) && t !== undefined ? plainDecimal(t) : resolveNumbers(v, decimalKeys, false);
    }
    return out;
  }
  return value;
}

export const DECIMAL_PATTERN = '^(?!^[-+.]*$)[+-]?0*\\d*\\.?\\d*$';

/** Decimal128 from a plain decimal string, or undefined when it cannot be stored exactly. */
export function toDecimal128(plain: string): Types.Decimal128 | undefined {
  if (!/^-?\d+(\.\d+)?$/.test(plain)) return undefined;
  const significant = plain.replace(/^-/, '').replace('.', '').replace(/^0+/, '');
  if (significant.length > 34) return undefined;
  try {
    return Types.Decimal128.fromString(plain);
  } catch {
    return undefined;
  }
}
