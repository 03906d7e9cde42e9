import { retrievalProvenance, retrievalRequestAttributes } from '../src/retrieval';

describe('retrieval span attributes', () => {
  test('the language a question was read in: the caller’s, else the one it is written in, else any', () => {
    const read = (query: string, language?: string) => {
      const a = retrievalRequestAttributes(10, 0.5, { query, language });
      return [a['kb.retrieval.query_language'], a['kb.retrieval.query_language_source']];
    };
    expect(read('Wie lange dauert der Versand?', 'en')).toEqual(['en', 'request']);
    expect(read('Wie lange dauert der Versand?')).toEqual(['de', 'detected']);
    expect(read('How long does shipping take?')).toEqual(['en', 'detected']);
    expect(read('Versandkosten')).toEqual(['any', 'none']); // one word: not told
    expect(retrievalRequestAttributes(7, 0.5, { query: 'x' })).toMatchObject({
      'gen_ai.operation.name': 'retrieval',
      'gen_ai.request.top_k': 7,
      'kb.retrieval.min_relevance': 0.5,
    });
  });

  test('provenance names at most 20 hits and 60 passages, each passage as entry@version:start-end:score', () => {
    const hits = Array.from({ length: 25 }, (_, i) => ({
      entry: { id: `e${i}`, version: i + 1 },
      relevance: 0.123456,
      passages: [0, 1, 2, 3].map((k) => ({ start: k * 10, end: k * 10 + 5, score: 0.5 })),
    }));
    const a = retrievalProvenance(hits);
    expect(a['kb.retrieval.hits']).toBe(25);
    expect(a['kb.retrieval.entry_ids']).toHaveLength(20);
    expect(a['kb.retrieval.relevance']).toEqual(Array(20).fill(0.1235));
    const passages = a['kb.retrieval.passages'] as string[];
    expect(passages).toHaveLength(60);
    expect(passages[0]).toBe('e0@1:0-5:0.5000');
  });
});
