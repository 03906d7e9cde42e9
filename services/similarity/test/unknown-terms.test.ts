import { entrySearchBodies, MAX_COUNTED_TERMS, queryTermGroups, SEMANTIC, unknownTermShare } from '@kb/search';

const body = (termGroups: string[][]) =>
  entrySearchBodies({
    query: 'q',
    stems: 'q',
    size: 30,
    passagesPerHit: 3,
    reading: SEMANTIC.passageChoice,
    filter: { term: { tenant_id: 't1' } },
    queryVector: new Float32Array(4),
    termGroups,
  })[0]!;

/** What Elasticsearch answers for the body's aggregation, with these terms found in entries. */
function answered(termGroups: string[][], found: string[]) {
  const agg = body(termGroups).aggs!['known_terms']!;
  const filters = agg.filters!.filters as Record<string, { bool: { should: { term?: { stems: string } }[] } }>;
  const buckets = Object.fromEntries(
    Object.entries(filters).map(([key, f]) => [
      key,
      { doc_count: found.includes(f.bool.should[0]!.term!.stems) ? 2 : 0 },
    ]),
  );
  return { known_terms: { buckets, meta: agg.meta } };
}

describe('unknown terms', () => {
  test('when some of the question’s terms are in no entry, then the share is theirs', () => {
    expect(unknownTermShare(answered([['dog', 'store', 'bring']], ['store', 'bring']))).toBeCloseTo(1 / 3);
    expect(unknownTermShare(answered([['dog', 'store']], []))).toBe(1);
    expect(unknownTermShare(answered([['dog', 'store']], ['dog', 'store']))).toBe(0);
  });

  test('when the question is read in two languages, then the reading with fewer unknown terms counts', () => {
    const groups = queryTermGroups('Versandkosten shipping', undefined);
    expect(groups).toHaveLength(2);
    const en = groups[0]!;
    expect(unknownTermShare(answered(groups, en))).toBe(0);
    expect(
      unknownTermShare(
        answered(
          [
            ['a', 'b'],
            ['c', 'd'],
          ],
          ['c'],
        ),
      ),
    ).toBeCloseTo(0.5);
  });

  test('when the query has no terms, then nothing is counted and the share is undefined', () => {
    expect(body([]).aggs).toBeUndefined();
    expect(body([[]]).aggs).toBeUndefined();
    expect(unknownTermShare(undefined)).toBeUndefined();
    expect(unknownTermShare({})).toBeUndefined();
  });

  test('when the query has more distinct terms than are counted, then only the first are counted, each once', () => {
    const many = Array.from({ length: MAX_COUNTED_TERMS + 10 }, (_, i) => `t${i}`);
    const agg = body([many, many.slice(0, 5)]).aggs!['known_terms']!;
    expect(Object.keys(agg.filters!.filters as object)).toHaveLength(MAX_COUNTED_TERMS);
    expect((agg.meta as { readings: number[][] }).readings[0]).toHaveLength(MAX_COUNTED_TERMS);
    expect(unknownTermShare(answered([many], many.slice(0, MAX_COUNTED_TERMS / 2)))).toBeCloseTo(0.5);
  });

  test('when a term is counted, then it is looked for in the entry stems and in every passage', () => {
    const agg = body([['hund']]).aggs!['known_terms']!;
    expect(JSON.stringify(agg.filters!.filters)).toContain('"passages.stems":"hund"');
    expect(JSON.stringify(agg.filters!.filters)).toContain('"stems":"hund"');
  });
});
