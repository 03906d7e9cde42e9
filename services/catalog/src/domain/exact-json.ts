import { Types } from 'mongoose';

/** The decimal fields of a product: kept exact from the JSON text to MongoDB (Decimal128). */
export const DECIMAL_FIELDS = ['price_current', 'price_msrp', 'price_special', 'rating_average'] as const;

const NUMBER_MARK = '\u0000n:';
// A JSON string literal (kept as is) or a number token (marked); outside strings valid JSON
// holds nothing else that could match.
const TOKEN = /"(?:[^"\\]|\\.)*"|-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?/g;

/**
 * Parses JSON text keeping every number's source text: numbers come back as marked strings,
 * which `resolveNumbers` turns into exact decimal strings for the decimal fields and into
 * JavaScript numbers elsewhere. Throws SyntaxError on malformed JSON.
 */
export function parseKeepingNumbers(text: string): unknown {
  return JSON.parse(text.replace(TOKEN, (t) => (t.startsWith('"') ? t : `"\\u0000n:${t}"`)));
}

const isMarked = (v: unknown): v is string => typeof v === 'string' && v.startsWith(NUMBER_MARK);

/** Replaces marked numbers: in a product object, decimal fields become decimal strings. */
export function resolveNumbers(value: unknown, decimalKeys: readonly string[] = DECIMAL_FIELDS, inProduct = true): unknown {
  if (isMarked(value)) return Number(value.slice(NUMBER_MARK.length));
  if (Array.isArray(value)) return value.map((v) => resolveNumbers(v, decimalKeys, false));
  if (value && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) {
      out[k] = inProduct && decimalKeys.includes(k) && isMarked(v) ? plainDecimal(v.slice(NUMBER_MARK.length)) : resolveNumbers(v, decimalKeys, false);
    }
    return out;
  }
  return value;
}

/** A JSON number token as a plain decimal string (exponent applied), digit for digit. */
export function plainDecimal(token: string): string {
  const m = /^(-?)(\d+)(?:\.(\d+))?(?:[eE]([+-]?\d+))?$/.exec(token);
  if (!m) throw new Error(`not a number: ${token}`);
  const [, sign = '', int = '0', frac = '', exp = '0'] = m;
  const shift = Number(exp);
  if (Math.abs(shift) > 1000) return token; // refused later as not representable
  let digits = int + frac;
  let point = int.length + shift;
  if (point <= 0) {
    digits = '0'.repeat(1 - point) + digits;
    point = 1;
  }
  if (point > digits.length) digits += '0'.repeat(point - digits.length);
  const whole = digits.slice(0, point).replace(/^0+(?=\d)/, '');
  const fraction = digits.slice(point);
  return sign + whole + (fraction ? `.${fraction}` : '');
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
