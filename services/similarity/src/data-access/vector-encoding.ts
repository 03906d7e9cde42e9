/**
 * How vectors are written to Elasticsearch: JSON numbers in documents (exact float32, or rounded
 * for an entry's many passage and sentence vectors), base64 float32 in the embedding cache.
 */

/**
 * The vector as JSON numbers with 9 significant digits: enough to read back the exact float32
 * (what Elasticsearch keeps), about half the size of a double's shortest form.
 */
export function toStored(v: ArrayLike<number>): number[] {
  const out = new Array<number>(v.length);
  for (let i = 0; i < v.length; i++) out[i] = Number(Math.fround(v[i]!).toPrecision(9));
  return out;
}

/**
 * A passage's or sentence's vector as JSON numbers rounded to 5 decimals (a cosine moves by less
 * than 1e-4; unit vectors of 384 components are mostly 0.001-0.2), about 60% of toStored's size:
 * an entry at the content bound carries ~2,700 such vectors (see MAX_BULK_BYTES for why size counts).
 */
export function toCompact(v: ArrayLike<number>): number[] {
  const out = new Array<number>(v.length);
  for (let i = 0; i < v.length; i++) out[i] = Math.round(v[i]! * 1e5) / 1e5;
  return out;
}

/** 10^(i - 60): exact up to 10^22, and within a double's rounding beyond. */
const POW10 = Array.from({ length: 120 }, (_, i) => Number(`1e${i - 60}`));

/**
 * One float32 as a JSON number with 9 significant digits (`123456789e-10`), which reads back as
 * the same float32, as toStored's numbers do, without toPrecision and JSON.stringify's
 * shortest-double formatting (~3x faster; a product's three vectors are 1,152 numbers).
 */
function float32Json(x: number): string {
  if (x === 0) return '0';
  if (!Number.isFinite(x)) throw new RangeError('a vector component is not finite');
  const a = Math.abs(x);
  // e: the decimal exponent of a's leading digit (10^e <= a < 10^(e+1)); vector components are mostly 0.001-0.5.
  let e = -1;
  if (a >= 0.1) while (a >= POW10[61 + e]!) e++;
  else while (a < POW10[60 + e]!) e--;
  let digits = Math.round(a * POW10[68 - e]!);
  if (digits >= 1e9) digits = Math.round(a * POW10[68 - ++e]!); // a rounded up to the next power of ten
  return `${x < 0 ? '-' : ''}${digits}e${e - 8}`;
}

/** The vector as a JSON array text of exact float32 numbers (see float32Json). */
export function vectorJson(v: Float32Array): string {
  const parts = new Array<string>(v.length);
  for (let i = 0; i < v.length; i++) parts[i] = float32Json(v[i]!);
  return `[${parts.join(',')}]`;
}

export function toBase64(v: Float32Array): string {
  return Buffer.from(v.buffer, v.byteOffset, v.byteLength).toString('base64');
}

export function fromBase64(s: string): Float32Array {
  const bytes = Buffer.from(s, 'base64');
  const out = new Float32Array(bytes.length / 4);
  new Uint8Array(out.buffer).set(bytes);
  return out;
}
