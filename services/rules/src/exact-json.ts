/**
 * JSON numbers kept digit for digit: prices and ratings must never pass through a binary float
 * (docs/api.md, "Exact decimals"). The gateway and the catalog read the same raw JSON text
 * this way.
 */

/** The product fields whose numbers stay exact (decimal strings; the catalog stores them as exact decimals). */
export const DECIMAL_FIELDS = ['price_current', 'price_msrp', 'price_special', 'rating_average'] as const;

/**
 * The interface's pattern for a price or rating as a decimal string: plain digits with an
 * optional sign and point, never an exponent, never only signs and points.
 */
export const INTERFACE_DECIMAL_PATTERN = '^(?!^[-+.]*$)[+-]?0*\\d*\\.?\\d*$';

/**
 * The same strings as INTERFACE_DECIMAL_PATTERN (a test compares them), written so that checking takes
 * linear time: the published `0*\d*\.?\d*` backtracks cubically, and a few thousand zeros
 * followed by a letter held a catalog worker for seconds. What checks input uses this one; the
 * published schemas keep the interface's text.
 */
export const LINEAR_DECIMAL_PATTERN = '^[+-]?(?:\\d+(?:\\.\\d*)?|\\.\\d+)$';

const NUMBER_MARK = '\u0000n:';
// A JSON string literal (kept as is) or a number token (marked); outside strings valid JSON
// holds nothing else that could match.
const TOKEN = /"(?:[^"\\]|\\.)*"|-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?/g;

/**
 * Parses JSON text keeping every number's source text: each number comes back as a marked
 * string (see `numberToken`). Throws SyntaxError on malformed JSON.
 */
export function parseKeepingNumbers(text: string): unknown {
  return JSON.parse(text.replace(TOKEN, (t) => (t.startsWith('"') ? t : `"\\u0000n:${t}"`)));
}

/** The source text of a number parsed by `parseKeepingNumbers`, or undefined for any other value. */
export function numberToken(value: unknown): string | undefined {
  return typeof value === 'string' && value.startsWith(NUMBER_MARK) ? value.slice(NUMBER_MARK.length) : undefined;
}

/** A JSON number token as a plain decimal string (exponent applied), digit for digit. */
export function plainDecimal(token: string): string {
  const m = /^(-?)(\d+)(?:\.(\d+))?(?:[eE]([+-]?\d+))?$/.exec(token);
  if (!m) throw new Error(`not a number: ${token}`);
  const [, sign = '', int = '0', frac = '', exp = '0'] = m;
  const shift = Number(exp);
  if (Math.abs(shift) > 1000) return token; // not a plain decimal: refused downstream as not representable
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
