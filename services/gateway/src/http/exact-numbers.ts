import { DECIMAL_FIELDS, numberToken, plainDecimal } from '@kb/rules';

/**
 * A validated product body with its decimal fields replaced by their exact text from the raw
 * JSON (`raw` is the same object parsed with parseKeepingNumbers).
 */
export function withExactDecimals(validated: Record<string, unknown>, raw: unknown): Record<string, unknown> {
  const out: Record<string, unknown> = { ...validated };
  const source = (raw ?? {}) as Record<string, unknown>;
  for (const f of DECIMAL_FIELDS) {
    const token = numberToken(source[f]);
    if (token !== undefined) out[f] = plainDecimal(token);
  }
  return out;
}
