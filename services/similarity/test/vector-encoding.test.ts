/**
 * How vectors are written to Elasticsearch: the JSON text of a product document carries each
 * vector as numbers that read back as exactly the float32 the model produced.
 */
import { bulkChunks, documentJson } from '../src/data-access/documents';
import { toCompact, toStored, vectorJson } from '../src/data-access/vector-encoding';

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

describe('toCompact', () => {
  test("when an entry's passage vector is written rounded, then cosines move < 1e-4 and its JSON is under 0.7 of the exact one's", () => {
    const rnd = seededRandom(11);
    const unit = () => {
      const v = Float32Array.from({ length: 384 }, () => rnd() - 0.5);
      const n = Math.hypot(...v);
      return v.map((x) => x / n);
    };
    const dot = (a: ArrayLike<number>, b: ArrayLike<number>) => Array.from(a).reduce((s, x, i) => s + x * b[i]!, 0);
    let worst = 0;
    for (let i = 0; i < 200; i++) {
      const [v, q] = [unit(), unit()];
      worst = Math.max(worst, Math.abs(dot(toCompact(v), q) - dot(v, q)));
    }
    expect(worst).toBeLessThan(1e-4);
    const v = unit();
    expect(JSON.stringify(toCompact(v)).length).toBeLessThan(0.7 * JSON.stringify(toStored(v)).length);
  });
});

describe('bulkChunks', () => {
  test('when documents add up past the byte bound (reindex copies counted), then they go in consecutive requests within it', () => {
    const docs = ['a'.repeat(40), 'b'.repeat(40), 'c'.repeat(40), 'd'.repeat(10)];
    expect(bulkChunks(docs, 1, 100)).toEqual([
      [0, 2],
      [2, 4],
    ]);
    expect(bulkChunks(docs, 2, 100)).toEqual([
      [0, 1],
      [1, 2],
      [2, 4],
    ]);
    // A document larger than the bound goes alone; nothing is left out.
    expect(bulkChunks(['x'.repeat(500), 'y'], 1, 100)).toEqual([
      [0, 1],
      [1, 2],
    ]);
    expect(bulkChunks([], 1, 100)).toEqual([]);
  });
});
