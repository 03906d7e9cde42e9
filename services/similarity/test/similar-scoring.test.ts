/**
 * The pure steps of similar and hybrid search (no Elasticsearch, no model): centroids, field
 * weights, exact scores, collapsing and min_score, explain's filter counts, the hybrid ranking.
 */
import {
  rankHybrid,
  anchorWeights,
  centroidsPerField,
  fieldRanks,
  fieldWeights,
  filteredCounts,
  scoreCandidate,
  selectHits,
  type Candidate,
  centroid,
} from '@kb/search';

const noWeights = { description: 0, properties: 0, attributes: 0 };
const candidate = (id: string, score: number, source: Record<string, unknown> = {}): Candidate => ({
  id,
  score,
  source,
  cosines: { description: score },
});

describe('centroids', () => {
  test('when vectors of different lengths are averaged, then each counts by its weight, not its length', () => {
    const c = centroid(
      [
        [10, 0],
        [0, 1],
      ],
      [1, 1],
    )!;
    expect(c[0]).toBeCloseTo(Math.SQRT1_2);
    expect(c[1]).toBeCloseTo(Math.SQRT1_2);
  });

  test('when two vectors cancel out, then there is no centroid', () => {
    expect(
      centroid(
        [
          [1, 0],
          [-1, 0],
        ],
        [1, 1],
      ),
    ).toBeUndefined();
  });

  test('when an anchor id is given twice, then its weights add up', () => {
    expect([...anchorWeights(['a', 'b', 'a'], [1, 2, 3])]).toEqual([
      ['a', 4],
      ['b', 2],
    ]);
    expect([...anchorWeights(['a', 'b'], [])]).toEqual([
      ['a', 1],
      ['b', 1],
    ]);
  });

  test(
    'when hybrid weights one field 0 and another above 0, then the zero ' +
      'field gets no centroid and only anchors having a vector count',
    () => {
      const anchors = [
        { id: 'a', source: { vector_description: [1, 0], vector_properties: [0, 1] } },
        { id: 'b', source: { vector_attributes: [1, 1] } },
      ];
      const weightOf = new Map([
        ['a', 1],
        ['b', 1],
      ]);
      const { centroids, used } = centroidsPerField(
        anchors,
        'hybrid',
        { description: 1, properties: 0, attributes: 2 },
        weightOf,
      );
      expect([...centroids.keys()]).toEqual(['description', 'attributes']);
      expect([...used].sort()).toEqual(['a', 'b']);
      const single = centroidsPerField(anchors, 'properties', noWeights, weightOf);
      expect([...single.centroids.keys()]).toEqual(['properties']);
      expect([...single.used]).toEqual(['a']);
    },
  );
});

describe('field weights and exact scores', () => {
  test('when hybrid weights are all 0, then the fields used weigh the same; otherwise they are normalised to sum 1', () => {
    expect([...fieldWeights(['description', 'attributes'], 'hybrid', noWeights)]).toEqual([
      ['description', 0.5],
      ['attributes', 0.5],
    ]);
    expect([
      ...fieldWeights(['description', 'attributes'], 'hybrid', { description: 3, properties: 5, attributes: 1 }),
    ]).toEqual([
      ['description', 0.75],
      ['attributes', 0.25],
    ]);
    expect([...fieldWeights(['properties'], 'properties', noWeights)]).toEqual([['properties', 1]]);
  });

  test('when one field is searched, then the score is the cosine behind the kNN score', () => {
    const centroids = new Map([['description' as const, Float64Array.from([1, 0])]]);
    const c = scoreCandidate({ id: 'x', score: 0.9, source: {} }, centroids, new Map([['description', 1]]));
    expect(c.cosines.description).toBeCloseTo(0.8);
    expect(c.score).toBeCloseTo(0.8);
  });

  test('when several fields are searched, then the score is the weighted sum of exact cosines and the vectors leave the source', () => {
    const centroids = new Map([
      ['description' as const, Float64Array.from([1, 0])],
      ['attributes' as const, Float64Array.from([0, 1])],
    ]);
    const source = { site_id: 's', vector_description: [2, 0], vector_attributes: [1, 1] };
    const c = scoreCandidate(
      { id: 'x', score: 0.1, source },
      centroids,
      new Map([
        ['description', 0.5],
        ['attributes', 0.5],
      ]),
    );
    expect(c.cosines.description).toBeCloseTo(1);
    expect(c.cosines.attributes).toBeCloseTo(Math.SQRT1_2);
    expect(c.score).toBeCloseTo(0.5 + 0.5 * Math.SQRT1_2);
    expect(c.source).toEqual({ site_id: 's' });
  });
});

describe('collapsing, min_score and explain', () => {
  const ranked = [
    candidate('p1', 0.9, { parent_product_id: 'p' }),
    candidate('p2', 0.8, { parent_product_id: 'p' }),
    candidate('q', 0.7),
    candidate('r', 0.2),
  ];

  test('when variants are collapsed, then the best of each family stays and the others are counted', () => {
    const picked = selectHits(ranked, undefined, true);
    expect(picked.kept.map((c) => c.id)).toEqual(['p1', 'q', 'r']);
    expect(picked.collapsed).toBe(1);
    expect(picked.belowMin).toBe(0);
  });

  test('when min_score is given, then lower hits are dropped and counted before collapsing sees them', () => {
    const picked = selectHits(ranked, 0.75, true);
    expect(picked.kept.map((c) => c.id)).toEqual(['p1']);
    expect(picked.belowMin).toBe(2);
    expect(picked.collapsed).toBe(1);
  });

  test('when candidates are ranked per field, then the best cosine is rank 1 and a missing vector is last', () => {
    const cs = [candidate('a', 0.1), { ...candidate('b', 0.5), cosines: {} }, candidate('c', 0.9)];
    expect([...fieldRanks(cs, ['description']).get('description')!]).toEqual([
      ['c', 1],
      ['a', 2],
      ['b', 3],
    ]);
  });

  test('when a candidate fails several filters, then only the first in order counts it', () => {
    const unfiltered = [
      candidate('anchor', 1, { site_id: 'other' }),
      candidate('ex', 1, { site_id: 'other' }),
      candidate('s', 1, { site_id: 'other', language: 'de' }),
      candidate('l', 1, { site_id: 'site', language: 'de' }),
      candidate('parent', 1, { site_id: 'site', language: 'en', is_parent: true }),
      candidate('kept', 1, { site_id: 'site', language: 'en' }),
    ];
    const counts = filteredCounts(unfiltered, {
      anchorIds: ['anchor'],
      excludeIds: ['ex'],
      siteId: 'site',
      language: 'en',
      excludeParents: true,
    });
    expect(counts).toEqual({ anchor: 1, excluded: 1, site: 1, language: 1, parent: 1 });
  });
});

describe('hybrid ranking', () => {
  test(
    'when keyword and vector halves are combined, then each clause is normalised by its best, ' +
      'a negative cosine counts 0, an exact hit comes first and the list is cut at the limit',
    () => {
      const hits = rankHybrid(
        {
          keyword: [
            { id: 'k', text: 10, keywords: 0 },
            { id: 'w', text: 0, keywords: 4 },
          ],
          vector: [
            { id: 'k', cosine: -0.3 },
            { id: 'v', cosine: 0.5 },
            { id: 'b', cosine: 0.5 },
          ],
          exact: ['v'],
        },
        3,
      );
      expect(hits.map((h) => h.id)).toEqual(['v', 'w', 'k']); // b (0.2) is past the limit
      expect(hits[0]!.score_sources).toEqual({ keyword: 0, vector: 0.4 * 0.5, exact: 1 });
      expect(hits[1]!.score).toBeCloseTo(0.6 * 0.6);
      expect(hits[2]!.score_sources['vector']).toBe(0);
    },
  );
});
