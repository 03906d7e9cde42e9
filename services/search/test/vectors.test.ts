import { centralities, dot, normalized } from '../src/vectors';

describe('centralities', () => {
  test("when vectors are compared with their set's centroid, then the one that says what the others say is the most central", () => {
    // Three near one another and one apart: the three are central, the odd one is not.
    const set = [
      [1, 0.1, 0],
      [1, 0, 0.1],
      [0.9, 0.1, 0.1],
      [0, 0, 1],
    ];
    const c = centralities(set);
    expect(c).toHaveLength(4);
    expect(Math.min(c[0]!, c[1]!, c[2]!)).toBeGreaterThan(c[3]!);
    // Each is the cosine to the normalised mean of the normalised vectors, to 3 decimals.
    const units = set.map((v) => normalized(v)!);
    const mean = normalized(units.reduce((s, u) => s.map((x, i) => x + u[i]!), [0, 0, 0]))!;
    c.forEach((x, i) => expect(x).toBeCloseTo(dot(units[i]!, mean), 3));
  });

  test('when the set cancels out, is empty or holds one vector, then centralities are 0, none, or 1', () => {
    expect(
      centralities([
        [1, 0],
        [-1, 0],
      ]),
    ).toEqual([0, 0]);
    expect(centralities([])).toEqual([]);
    expect(centralities([[0.3, 0.4]])).toEqual([1]);
  });
});
