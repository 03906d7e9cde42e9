import { Types } from 'mongoose';
import { DECIMAL_FIELDS, plainDecimal, type DecimalField } from '@kb/rules';

/*
 * Prices and rating: exact decimal strings in the domain, Decimal128 in MongoDB, so they never
 * pass through a binary float (docs/api.md, "Exact decimals").
 */

/** The fields stored as Decimal128. */
export type StoredDecimals = { [K in DecimalField]: Types.Decimal128 | null };

/** Decimal128 from a plain decimal string (the domain checked it fits: domain/exact-json.ts), or undefined. */
export function toDecimal128(plain: string): Types.Decimal128 | undefined {
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

/** Fields as stored: the exact decimals among them as Decimal128 (null stays null). */
export function withDecimal128<T extends Partial<Record<DecimalField, string | null>>>(
  fields: T,
): Omit<T, DecimalField> & Partial<StoredDecimals> {
  const out: Record<string, unknown> = { ...fields };
  for (const k of DECIMAL_FIELDS) {
    const v = fields[k];
    if (v !== undefined) out[k] = v === null ? null : (toDecimal128(v) ?? null);
  }
  return out as Omit<T, DecimalField> & Partial<StoredDecimals>;
}

/** Stored fields as the domain reads them: Decimal128 as plain decimal strings. */
export function withDecimalText<T extends Partial<StoredDecimals>>(
  doc: T,
): Omit<T, DecimalField> & Partial<Record<DecimalField, string | null>> {
  const out: Record<string, unknown> = { ...doc };
  for (const k of DECIMAL_FIELDS) {
    const v = doc[k];
    if (v != null) out[k] = decimalText(v);
  }
  return out as Omit<T, DecimalField> & Partial<Record<DecimalField, string | null>>;
}
