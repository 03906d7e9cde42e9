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
export const DECIMAL_PATTERN = '^(?!^[-+.]*$)[+-]?0*\\d*\\.?\\d*$';

/**
 * The same strings as DECIMAL_PATTERN (a test compares them), written so that checking takes
 * linear time: the published `0*\d*\.?\d*` backtracks cubically, and a few thousand zeros
 * followed by a letter held a catalog worker for seconds. What checks input uses this one; the
 * published schemas keep the interface's text.
 */
export const DECIMAL_CHECK_PATTERN = '^[+-]?(?:\\d+(?:\\.\\d*)?|\\.\\d+)$';

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
