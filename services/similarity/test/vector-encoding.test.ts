/**
 * How vectors are written to Elasticsearch: the JSON text of a product document carries each
 * vector as numbers that read back as exactly the float32 the model produced.
 */
import { documentJson } from '../src/data-access/documents';
import { toStored, vectorJson } from '../src/data-access/vector-encoding';

/** mulberry32: the same numbers on every run. */
function seededRandom(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Float32 values of every magnitude and sign, from random bit patterns (finite ones). */
function randomFloats(count: number, seed: number): Float32Array {
  const rnd = seededRandom(seed);
  const bits = new Uint32Array(count * 2);
  for (let i = 0; i < bits.length; i++) bits[i] = Math.floor(rnd() * 2 ** 32);
  return new Float32Array(bits.buffer).filter(Number.isFinite).slice(0, count);
}

describe('vectorJson', () => {
  test('when float32 values of any magnitude are written, then each reads back as the same float32', () => {
    const edge = [
      1, -1, 0.1, -0.1, 1e-45, -1.4e-45, 1.1754943508222875e-38, 3.4028234663852886e38, 0.999999940395355,
      0.09999999403953552,
    ];
    const values = Float32Array.from([...randomFloats(200_000, 7), ...edge.map(Math.fround)]);
    const back = JSON.parse(vectorJson(values)) as number[];
    expect(back).toHaveLength(values.length);
    const wrong = back.filter((x, i) => Math.fround(x) !== values[i]);
    expect(wrong).toEqual([]);
  });

  test('when a unit vector is written, then it reads back as the float32 values toStored gives', () => {
    const rnd = seededRandom(3);
    const v = Float32Array.from({ length: 384 }, () => (rnd() - 0.5) * 0.2);
    expect((JSON.parse(vectorJson(v)) as number[]).map(Math.fround)).toEqual(toStored(v).map(Math.fround));
    expect(vectorJson(Float32Array.from([0, -0]))).toBe('[0,0]');
  });

  test('when a component is not finite, then writing refuses rather than sending null', () => {
    expect(() => vectorJson(Float32Array.from([0.5, NaN]))).toThrow(RangeError);
  });
});

describe('documentJson', () => {
  test('when a document has vectors and other fields, then it is the JSON of the same document with vectors as arrays', () => {
    const vector = Float32Array.from([0.25, -0.125, 0.1]);
    const doc = {
      title: 'Kochmesser "Profi"',
      price: 12.5,
      tags: ['a'],
      nested: { x: null },
      gone: undefined,
      vector_description: vector,
    };
    const parsed = JSON.parse(documentJson(doc)) as Record<string, unknown>;
    expect(parsed).toEqual({
      title: 'Kochmesser "Profi"',
      price: 12.5,
      tags: ['a'],
      nested: { x: null },
      vector_description: toStored(vector),
    });
    expect('gone' in parsed).toBe(false);
  });
});
