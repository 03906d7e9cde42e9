/** `docs` in order, in batches of at most `size` and (when given) at most `weight.max` summed weight, never empty. */
export function inBatches<D>(docs: D[], size: number, weight?: { of: (d: D) => number; max: number }): D[][] {
  const batches: D[][] = [];
  let current: D[] = [];
  let sum = 0;
  for (const d of docs) {
    const w = weight ? weight.of(d) : 0;
    if (current.length > 0 && (current.length >= size || (weight && sum + w > weight.max))) {
      batches.push(current);
      current = [];
      sum = 0;
    }
    current.push(d);
    sum += w;
  }
  if (current.length > 0) batches.push(current);
  return batches;
}
