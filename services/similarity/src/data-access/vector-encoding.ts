/** How vectors are written to Elasticsearch: JSON numbers in documents, base64 float32 in the embedding cache. */

/**
 * The vector as JSON numbers with 9 significant digits: enough to read back the exact float32
 * (what Elasticsearch keeps), about half the size of a double's shortest form.
 */
export function toStored(v: ArrayLike<number>): number[] {
  const out = new Array<number>(v.length);
  for (let i = 0; i < v.length; i++) out[i] = Number(Math.fround(v[i]!).toPrecision(9));
  return out;
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
