/** Vector arithmetic for centroids and exact scores. Every stored vector has unit length. */

export function dot(a: ArrayLike<number>, b: ArrayLike<number>): number {
  let sum = 0;
  for (let i = 0; i < a.length; i++) sum += a[i]! * b[i]!;
  return sum;
}

/** A unit-length copy of `v`, or undefined for a zero vector (it has no direction). */
export function normalized(v: ArrayLike<number>): Float64Array | undefined {
  const norm = Math.sqrt(dot(v, v));
  if (!Number.isFinite(norm) || norm === 0) return undefined;
  const out = new Float64Array(v.length);
  for (let i = 0; i < v.length; i++) out[i] = v[i]! / norm;
  return out;
}

/** Weighted mean of the L2-normalised vectors, normalised again (undefined when they cancel out). */
export function centroid(vectors: ArrayLike<number>[], weights: number[]): Float64Array | undefined {
  const dims = vectors[0]?.length ?? 0;
  const sum = new Float64Array(dims);
  vectors.forEach((v, n) => {
    const unit = normalized(v);
    if (!unit) return;
    for (let i = 0; i < dims; i++) sum[i]! += weights[n]! * unit[i]!;
  });
  return normalized(sum);
}

/**
 * Each vector's cosine to the centroid of its set (3 decimals; 0 where the set cancels out): how
 * much it says what the whole set says. Entry search uses it on an entry's sentences to tell a
 * sentence that answers something from one that restates the entry's subject.
 */
export function centralities(vectors: ArrayLike<number>[]): number[] {
  const centre = centroid(
    vectors,
    vectors.map(() => 1),
  );
  return vectors.map((v) => {
    const unit = centre && normalized(v);
    return unit ? Math.round(dot(unit, centre) * 1000) / 1000 : 0;
  });
}
