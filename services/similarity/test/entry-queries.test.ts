import type { Client } from '@elastic/elasticsearch';
import {
  fusionCandidates,
  entryMatches,
  entrySearchBodies,
  type PassageReading,
  HAS_TOPIC_PATH,
  KEYWORD_DEPTH,
  LEXICAL,
  PASSAGE_VECTOR_PATH,
  SEMANTIC,
  SENTENCE_CENTRALITY_PATH,
  SENTENCE_CONTEXT_VECTOR_PATH,
  SENTENCE_VECTOR_PATH,
  TOPIC_VECTOR_PATH,
} from '@kb/search';

const filter = { term: { tenant_id: 't1' } };
const bodies = (passagesPerHit: number, reading: PassageReading = SEMANTIC.passageChoice) =>
  entrySearchBodies({
    query: 'q',
    stems: 'q',
    size: 30,
    passagesPerHit,
    reading,
    filter,
    queryVector: new Float32Array(4),
  });

describe('entry search bodies', () => {
  test('when passages are asked for, then five searches run, every one inside the caller’s filter', () => {
    const b = bodies(3);
    expect(b.map((x) => (x.knn as { field?: string } | undefined)?.field ?? 'keyword')).toEqual([
      'keyword',
      PASSAGE_VECTOR_PATH,
      SENTENCE_VECTOR_PATH,
      SENTENCE_CONTEXT_VECTOR_PATH,
      TOPIC_VECTOR_PATH,
    ]);
    expect((b[0]!.query as { bool: { filter: unknown[] } }).bool.filter).toEqual([filter]);
    for (const x of b.slice(1)) expect((x.knn as { filter: unknown[] }).filter).toEqual([filter]);
    // The searches that find candidates say whether each has a topic vector; sentences carry their centrality.
    expect(b[0]!.docvalue_fields).toEqual([HAS_TOPIC_PATH]);
    expect(b[1]!.docvalue_fields).toEqual([HAS_TOPIC_PATH]);
    const sentenceHits = (b[2]!.knn as { inner_hits: { docvalue_fields: string[] } }).inner_hits;
    expect(sentenceHits.docvalue_fields).toContain(SENTENCE_CENTRALITY_PATH);
    for (const x of b) expect(x._source).toBe(false);
  });

  test('when entries are searched, then the keyword search returns twice the vector searches’ candidates', () => {
    // So that every entry the vectors find has its words' evidence too.
    expect(fusionCandidates(10)).toBe(30);
    expect(fusionCandidates(20)).toBe(60);
    const b = bodies(3);
    expect(KEYWORD_DEPTH).toBe(2);
    expect(b[0]!.size).toBe(60);
    for (const x of b.slice(1)) {
      expect(x.size).toBe(30);
      expect((x.knn as { k: number }).k).toBe(30);
    }
  });

  test('when a profile says how much of each entry chooses its passages, then each search reads that many per entry', () => {
    const innerHits = (b: ReturnType<typeof bodies>) => [
      (b[0]!.query as { bool: { should: { nested?: { inner_hits: { size: number } } }[] } }).bool.should.find(
        (c) => c.nested,
      )!.nested!.inner_hits.size,
      (b[1]!.knn as { inner_hits: { size: number } }).inner_hits.size,
      (b[2]!.knn as { inner_hits: { size: number } }).inner_hits.size,
    ];
    // keyword passages, vector passages, sentences
    expect(innerHits(bodies(5, SEMANTIC.passageChoice))).toEqual([15, 10, 30]);
    // The lexical profile reads 10 passages by their words, the passages asked for (3 and two
    // more, as the services ask) by their vectors, and 12 sentences.
    expect(innerHits(bodies(5, LEXICAL.passageChoice))).toEqual([10, 5, 12]);
    expect(innerHits(bodies(7, LEXICAL.passageChoice))).toEqual([10, 7, 12]);
    // More passages asked for than a profile reads: as many as asked.
    expect(innerHits(bodies(17, SEMANTIC.passageChoice))).toEqual([17, 17, 30]);
  });

  test('when a profile chooses passages by their terms, then each distinct stem and kind of answer is named, scoring nothing', () => {
    const passageQuery = (reading: PassageReading, passagesPerHit = 5) => {
      const [keyword] = entrySearchBodies({
        query: 'Lastschrift Gebühr Lastschrift',
        stems: 'lastschrift gebuhr lastschrift',
        size: 30,
        passagesPerHit,
        reading,
        filter,
        queryVector: new Float32Array(4),
        answerTypes: ['money'],
      });
      const should = (keyword!.query as { bool: { should: { nested?: { query: unknown } }[] } }).bool.should;
      return should.find((c) => c.nested)!.nested!.query;
    };
    const match = { match: { 'passages.stems': { query: 'lastschrift gebuhr lastschrift' } } };
    expect(passageQuery(LEXICAL.passageChoice)).toEqual({
      bool: {
        must: [match],
        should: [
          { term: { 'passages.stems': { value: 'lastschrift', boost: 0, _name: 'term:lastschrift' } } },
          { term: { 'passages.stems': { value: 'gebuhr', boost: 0, _name: 'term:gebuhr' } } },
          // The kind of answer asked for, as a term of its own.
          { term: { 'passages.answers': { value: 'money', boost: 0, _name: 'term:<money>' } } },
        ],
      },
    });
    // The semantic profile, or no passages asked for: the BM25 match alone.
    expect(passageQuery(SEMANTIC.passageChoice)).toEqual(match);
    expect(passageQuery(LEXICAL.passageChoice, 0)).toEqual(match);
  });

  test('when no passages are asked for, then only the keyword and passage searches run', () => {
    const b = bodies(0);
    expect(b).toHaveLength(2);
    expect(b[0]!.docvalue_fields).toBeUndefined();
    expect(b[1]!.docvalue_fields).toBeUndefined();
    // Whatever the profile reads, no passage is read when none is asked for.
    expect(JSON.stringify(b)).not.toContain('inner_hits');
  });
});

describe('entry matches', () => {
  const hit = (id: string, extra: Record<string, unknown> = {}) => ({ _id: id, _version: 2, _score: 0.9, ...extra });
  /** A client whose msearch answers these hits, one list per search, in order. */
  const client = (lists: Record<string, unknown>[][]) =>
    ({
      msearch: async () => ({ responses: lists.map((hits) => ({ hits: { hits } })) }),
    }) as unknown as Client;

  test('when Elasticsearch answers, then topic cosines, topic markers and sentence centralities are read', async () => {
    const sentenceInner = {
      inner_hits: {
        sentence: {
          hits: {
            hits: [
              {
                _score: 0.8,
                fields: { 'sentences.start': [0], 'sentences.end': [100], [SENTENCE_CENTRALITY_PATH]: [0.71] },
              },
              { _score: 0.7, fields: { 'sentences.start': [100], 'sentences.end': [200] } },
            ],
          },
        },
      },
    };
    const m = await entryMatches(
      client([
        [hit('new', { fields: { [HAS_TOPIC_PATH]: [true] } }), hit('old')],
        [hit('new', { fields: { [HAS_TOPIC_PATH]: [true] } })],
        [hit('new', sentenceInner)],
        [hit('new')],
        [hit('new', { _score: 0.8 })],
      ]),
      'entries',
      bodies(3),
    );
    expect(m.keyword.map((k) => [k.id, k.hasTopic])).toEqual([
      ['new', true],
      ['old', false],
    ]);
    expect(m.vector[0]!.hasTopic).toBe(true);
    // kNN scores of cosine vectors are (1 + cosine) / 2.
    expect(m.topic).toEqual([{ id: 'new', version: 2, cosine: expect.closeTo(0.6, 6) }]);
    expect(m.sentence![0]!.passages).toEqual([
      { start: 0, end: 100, score: expect.closeTo(0.6, 6), centrality: 0.71 },
      { start: 100, end: 200, score: expect.closeTo(0.4, 6) },
    ]);
  });

  test('when keyword inner hits name the terms they matched, then each passage carries its stems', async () => {
    const at = (start: number, matched?: unknown) => ({
      _score: 3,
      fields: { 'passages.start': [start], 'passages.end': [start + 50] },
      ...(matched ? { matched_queries: matched } : {}),
    });
    const keyword = hit('e', {
      matched_queries: { passage: 3, 'term:lastschrift': 0 },
      inner_hits: {
        keyword: {
          hits: {
            // With include_named_queries_score the names come as an object; without it, as a list.
            hits: [at(0, { 'term:lastschrift': 0, 'term:gebuhr': 0 }), at(50, ['term:lastschrift']), at(100)],
          },
        },
      },
    });
    const m = await entryMatches(client([[keyword], []]), 'entries', bodies(0));
    expect(m.keyword[0]!.passages.map((p) => p.terms)).toEqual([['lastschrift', 'gebuhr'], ['lastschrift'], undefined]);
    expect(m.keyword[0]!.passage).toBe(3);
  });
});
