/** Prices and rating: the fields whose numbers must stay exact (never a binary float). */
export const DECIMAL_FIELDS = ['price_current', 'price_msrp', 'price_special', 'rating_average'] as const;

const MARK = '\u0000n:';
// A JSON string literal (kept) or a number token (marked); outside strings valid JSON holds
// nothing else these could match.
const TOKEN = /"(?:[^"\\]|\\.)*"|-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?/g;

/** Parses (already validated) JSON text with every number kept as its source text. */
export function parseKeepingNumbers(text: string): unknown {
  return JSON.parse(text.replace(TOKEN, (t) => (t.startsWith('"') ? t : `"\\u0000n:${t}"`)));
}

/** A JSON number token as a plain decimal string (exponent applied), digit for digit. */
export function plainDecimal(token: string): string {
  const m = /^(-?)(\d+)(?:\.(\d+))?(?:[eE]([+-]?\d+))?$/.exec(token);
  if (!m) return token;
  const [, sign = '', int = '0', frac = '', exp = '0'] = m;
  const shift = Number(exp);
  if (Math.abs(shift) > 1000) return token; // the catalog refuses it as not representable
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

/**
 * A validated product body with its decimal fields replaced by their exact text from the raw
 * JSON (`raw` is the same object parsed with parseKeepingNumbers).
 */
export function withExactDecimals(validated: Record<string, unknown>, raw: unknown): Record<string, unknown> {
  const out: Record<string, unknown> = { ...validated };
  const source = (raw ?? {}) as Record<string, unknown>;
  for (const f of DECIMAL_FIELDS) {
    const v = source[f];
    if (typeof v === 'string' && v.startsWith(MARK)) out[f] = plainDecimal(v.slice(MARK.length));
  }
  return out;
}
