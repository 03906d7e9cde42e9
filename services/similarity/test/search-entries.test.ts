import {
  type EntryMatches,
  entryTermWeights,
  LEXICAL,
  meaningShares,
  profileFor,
  questionProfile,
  questionTerms,
  readQuestion,
  rankEntries,
  relevanceOf,
  SEMANTIC,
} from '@kb/search';

const keywordHit = (id: string, bm25: number, passages: [number, number, number][] = []) => ({
  id,
  version: 1,
  text: bm25,
  stems: bm25,
  passage: bm25,
  keywords: 0,
  passages: passages.map(([start, end, score]) => ({ start, end, score })),
});
/** A sentence search's inner hit: the sentence's passage (offsets), its cosine and its centrality. */
const sentenceMatch = (start: number, end: number, score: number, centrality = 0.5) => ({
  start,
  end,
  score,
  centrality,
});
const vectorHit = (id: string, cosine: number, passages: [number, number, number][] = []) => ({
  id,
  version: 1,
  cosine,
  passages: passages.map(([start, end, score]) => ({ start, end, score })),
});

describe('entry fusion', () => {
  test('when the question is in a language the model knows, then meaning outweighs a lone keyword match', () => {
    const matches: EntryMatches = {
      keyword: [keywordHit('words', 6)],
      vector: [vectorHit('meaning', 0.62), vectorHit('words', 0.2)],
    };
    expect(rankEntries(matches, 10, 3, SEMANTIC).map((h) => h.id)).toEqual(['meaning', 'words']);
    // The same evidence in a language the model does not know: the words decide.
    expect(rankEntries(matches, 10, 3, LEXICAL).map((h) => h.id)).toEqual(['words', 'meaning']);
  });

  test('when passages come from both searches, then each hit keeps its best ones, best first, with their cosine', () => {
    const matches: EntryMatches = {
      keyword: [
        keywordHit('a', 5, [
          [0, 100, 5],
          [300, 400, 1],
        ]),
      ],
      vector: [
        vectorHit('a', 0.7, [
          [300, 400, 0.7],
          [500, 600, 0.3],
        ]),
      ],
    };
    const [hit] = rankEntries(matches, 10, 2, SEMANTIC);
    expect(hit!.passages.map((p) => p.start)).toEqual([300, 500]);
    expect(rankEntries(matches, 10, 3, LEXICAL)[0]!.passages.map((p) => p.start)).toEqual([0, 300, 500]);
    expect(hit!.passages[0]!.cosine).toBeCloseTo(0.7);
    expect(hit!.cosine).toBeCloseTo(0.7);
    expect(hit!.version).toBe(1);
  });

  test('when a passage holds the sentence closest to the question, then it is chosen and the sentence counts for its entry', () => {
    const matches: EntryMatches = {
      keyword: [],
      vector: [
        vectorHit('a', 0.5, [
          [0, 100, 0.5],
          [100, 200, 0.45],
        ]),
        vectorHit('b', 0.4, [[0, 100, 0.4]]),
      ],
      sentence: [
        vectorHit('a', 0.8, [
          [100, 200, 0.8],
          [0, 100, 0.3],
        ]),
        // An entry found by its sentences alone is not ranked on them.
        vectorHit('c', 0.9, [[0, 100, 0.9]]),
      ],
      context: [
        { id: 'a', version: 1, cosine: 0.9 },
        { id: 'c', version: 1, cosine: 0.95 },
      ],
      topic: [{ id: 'a', version: 1, cosine: 0.6 }],
    };
    const hits = rankEntries(matches, 10, 2, SEMANTIC);
    expect(hits.map((h) => h.id)).toEqual(['a', 'b']);
    expect(hits[0]!.passages.map((p) => p.start)).toEqual([100, 0]);
    expect(hits[0]!.passages[0]!.cosine).toBeCloseTo(0.45);
    // The entry's meaning: the profile's shares of its best passage's cosine (0.5), its best
    // sentence's (0.8), its best sentence's in context (0.9) and its topic's (0.6).
    const m = SEMANTIC.meaning;
    const meaning = m.passage * 0.5 + m.sentence * 0.8 + m.context * 0.9 + m.topic * 0.6;
    expect(meaning).toBeGreaterThan(0.6);
    const vw = 1 - SEMANTIC.keywordWeight;
    expect(hits[0]!.score_sources['vector']).toBeCloseTo(vw * meaning);
    expect(hits[0]!.relevance).toBeCloseTo(relevanceOf(SEMANTIC, meaning, 0, hits[0]!.score));
    expect(hits[1]!.score_sources['vector']).toBeCloseTo(vw * 0.4); // no sentence found: its passage alone
    // An index built before context and topic vectors (none found at all): passage and sentence alone.
    const older = rankEntries({ ...matches, context: [], topic: [] }, 10, 2, SEMANTIC);
    expect(older[0]!.score_sources['vector']).toBeCloseTo(
      (vw * (m.passage * 0.5 + m.sentence * 0.8)) / (m.passage + m.sentence),
    );
    // Where the model does not know the language, its cosines rank entries too, by the lexical profile's shares.
    const l = LEXICAL.meaning;
    const lexical = rankEntries(matches, 10, 2, LEXICAL);
    expect(lexical[0]!.score_sources['vector']).toBeCloseTo(
      (1 - LEXICAL.keywordWeight) * (l.passage * 0.5 + l.sentence * 0.8 + l.context * 0.9 + l.topic * 0.6),
    );
    // Without sentence matches, the passages' own vectors decide.
    expect(rankEntries({ ...matches, sentence: undefined }, 10, 2, SEMANTIC)[0]!.passages[0]!.start).toBe(0);
  });

  test("when one entry's sentence read in its context is closer to the question, then it outranks an entry whose passage is closer", () => {
    const matches: EntryMatches = {
      keyword: [],
      vector: [vectorHit('passage', 0.6, [[0, 100, 0.6]]), vectorHit('context', 0.5, [[0, 100, 0.5]])],
      sentence: [vectorHit('passage', 0.6, [[0, 100, 0.6]]), vectorHit('context', 0.55, [[0, 100, 0.55]])],
      context: [
        { id: 'passage', version: 1, cosine: 0.6 },
        { id: 'context', version: 1, cosine: 0.8 },
      ],
    };
    // In context it is closer by 0.2 (against 0.1 and 0.05 behind on passage and sentence): first;
    // passage and sentence alone would rank it second.
    expect(rankEntries(matches, 10, 2, SEMANTIC).map((h) => h.id)).toEqual(['context', 'passage']);
    expect(rankEntries({ ...matches, context: [] }, 10, 2, SEMANTIC).map((h) => h.id)).toEqual(['passage', 'context']);
    // Where the model does not know the language, only the passages rank.
    expect(rankEntries(matches, 10, 2, LEXICAL).map((h) => h.id)).toEqual(['passage', 'context']);
  });

  test('when one entry is about what the question asks and another only holds slightly closer sentences, then the topic decides', () => {
    const matches: EntryMatches = {
      keyword: [],
      vector: [vectorHit('about', 0.5, [[0, 100, 0.5]]), vectorHit('sentences', 0.52, [[0, 100, 0.52]])],
      sentence: [vectorHit('about', 0.6, [[0, 100, 0.6]]), vectorHit('sentences', 0.62, [[0, 100, 0.62]])],
      context: [
        { id: 'about', version: 1, cosine: 0.7 },
        { id: 'sentences', version: 1, cosine: 0.72 },
      ],
      topic: [
        { id: 'about', version: 1, cosine: 0.7 },
        { id: 'sentences', version: 1, cosine: 0.2 },
      ],
    };
    expect(rankEntries(matches, 10, 2, SEMANTIC).map((h) => h.id)).toEqual(['about', 'sentences']);
    // No topic vectors in the index (built before them): the sentences decide.
    expect(rankEntries({ ...matches, topic: [] }, 10, 2, SEMANTIC).map((h) => h.id)).toEqual(['sentences', 'about']);
    // Where the model does not know the language, the topic decides too.
    expect(rankEntries(matches, 10, 2, LEXICAL).map((h) => h.id)).toEqual(['about', 'sentences']);
  });

  test(
    'when two passages hold the same best sentence (they overlap around it, or repeat it), then only one is ' +
      'returned for it and the next passage is chosen by its own sentence',
    () => {
      const matches: EntryMatches = {
        keyword: [],
        vector: [
          vectorHit('a', 0.5, [
            [0, 120, 0.5],
            [100, 220, 0.5],
            [400, 500, 0.5],
          ]),
        ],
        sentence: [
          {
            id: 'a',
            version: 1,
            passages: [
              // One sentence in the overlap of the first two passages: read once per passage.
              sentenceMatch(0, 120, 0.7, 0.4),
              sentenceMatch(100, 220, 0.7, 0.4),
              sentenceMatch(100, 220, 0.5, 0.4),
              sentenceMatch(400, 500, 0.62, 0.4),
            ],
          },
        ],
      };
      const [hit] = rankEntries(matches, 10, 3, SEMANTIC);
      // The overlap's sentence chooses the first passage; the third passage's own sentence (0.62)
      // then outranks the second passage's next best (0.5).
      expect(hit!.passages.map((p) => p.start)).toEqual([0, 400, 100]);
      // Best first, each scored by the sentence it was chosen with.
      const scores = hit!.passages.map((p) => p.score);
      expect([...scores].sort((x, y) => y - x)).toEqual(scores);
      expect(scores[2]).toBeLessThan(scores[1]!);
      // The entry's own rank still counts its best sentence, wherever it was read.
      expect(hit!.score).toBeCloseTo(
        rankEntries(
          { ...matches, sentence: [{ id: 'a', version: 1, passages: [sentenceMatch(0, 120, 0.7, 0.4)] }] },
          10,
          3,
          SEMANTIC,
        )[0]!.score,
      );
    },
  );

  test(
    'when the sentence closest to the question restates what the whole entry says and a slightly less close one ' +
      'does not, then the passage of the one that does not comes first; the entry ranks on the closest',
    () => {
      const sentenceHit = (centralities: [number, number]) => ({
        id: 'a',
        version: 1,
        passages: [
          { start: 0, end: 100, score: 0.62, centrality: centralities[0] },
          { start: 100, end: 200, score: 0.58, centrality: centralities[1] },
        ],
      });
      const matches = (centralities: [number, number]): EntryMatches => ({
        keyword: [],
        vector: [
          vectorHit('a', 0.5, [
            [0, 100, 0.5],
            [100, 200, 0.5],
          ]),
        ],
        sentence: [sentenceHit(centralities)],
      });
      // 0.62 - 0.5 × 0.8 = 0.22 against 0.58 - 0.5 × 0.4 = 0.38.
      const [hit] = rankEntries(matches([0.8, 0.4]), 10, 2, SEMANTIC);
      expect(hit!.passages.map((p) => p.start)).toEqual([100, 0]);
      // As central as each other (or not indexed with centralities): the closer sentence's passage.
      expect(rankEntries(matches([0.6, 0.6]), 10, 2, SEMANTIC)[0]!.passages.map((p) => p.start)).toEqual([0, 100]);
      // The entry's meaning counts its closest sentence whatever its centrality.
      expect(hit!.score).toBeCloseTo(rankEntries(matches([0, 0]), 10, 2, SEMANTIC)[0]!.score);
    },
  );

  test('when the profiles weigh centrality differently, then each chooses the passage its own penalty favours', () => {
    const matches: EntryMatches = {
      keyword: [],
      vector: [
        vectorHit('a', 0.5, [
          [0, 100, 0.5],
          [100, 200, 0.5],
        ]),
      ],
      sentence: [
        {
          id: 'a',
          version: 1,
          passages: [
            { start: 0, end: 100, score: 0.62, centrality: 0.5 },
            { start: 100, end: 200, score: 0.55, centrality: 0.3 },
          ],
        },
      ],
    };
    // Semantic, 0.5: 0.62 - 0.25 = 0.37 against 0.55 - 0.15 = 0.40.
    expect(rankEntries(matches, 10, 2, SEMANTIC)[0]!.passages.map((p) => p.start)).toEqual([100, 0]);
    // Lexical, 0.3: 0.62 - 0.15 = 0.47 against 0.55 - 0.09 = 0.46.
    expect(rankEntries(matches, 10, 2, LEXICAL)[0]!.passages.map((p) => p.start)).toEqual([0, 100]);
  });

  test('when the question’s subject is in every passage of an entry, then the lexical profile chooses by a word one passage has', () => {
    // BM25 over the whole index favours the passages that repeat the subject ("lastschrift");
    // within the entry it is in every passage, and only the passage at 200 also has "gebuhr".
    const at = (start: number, score: number, terms: string[]) => ({ start, end: start + 100, score, terms });
    const matches: EntryMatches = {
      keyword: [
        {
          ...keywordHit('a', 9),
          passages: [
            at(0, 9, ['lastschrift']),
            at(100, 8.5, ['lastschrift']),
            at(200, 6, ['lastschrift', 'gebuhr']),
            at(300, 8, ['lastschrift']),
          ],
        },
      ],
      vector: [vectorHit('a', 0.3)],
    };
    expect(rankEntries(matches, 10, 1, LEXICAL)[0]!.passages.map((p) => p.start)).toEqual([200]);
    // The same passages without their terms said (BM25 alone, as the semantic profile reads them): the repeats win.
    const bm25Only: EntryMatches = {
      ...matches,
      keyword: [{ ...matches.keyword[0]!, passages: matches.keyword[0]!.passages.map(({ terms: _t, ...p }) => p) }],
    };
    expect(rankEntries(bm25Only, 10, 1, LEXICAL)[0]!.passages.map((p) => p.start)).toEqual([0]);
    // The entry's rank and scores do not change with the terms: only which passages it shows.
    expect(rankEntries(matches, 10, 1, LEXICAL)[0]!.score).toBe(rankEntries(bm25Only, 10, 1, LEXICAL)[0]!.score);
  });

  test('when weights come from an entry’s passages, then a term in all of them counts least and the best passage is 1', () => {
    const c = (start: number, terms?: string[]) => ({ start, end: start + 10, keyword: 0.5, sentences: [], terms });
    const candidates = [c(0, ['x', 'y']), c(10, ['x']), c(20, ['x']), c(30)];
    entryTermWeights(candidates);
    // n = 4: idf(x, in 3) = ln(1 + 1.5 / 3.5), idf(y, in 1) = ln(1 + 3.5 / 1.5); a passage without terms said counts 0.
    const x = Math.log(1 + 1.5 / 3.5);
    const y = Math.log(1 + 3.5 / 1.5);
    expect(candidates.map((k) => k.keyword)).toEqual([
      1,
      expect.closeTo(x / (x + y), 9),
      expect.closeTo(x / (x + y), 9),
      0,
    ]);
    // No terms said at all: the BM25 signals stay.
    const none = [c(0), c(10)];
    entryTermWeights(none);
    expect(none.map((k) => k.keyword)).toEqual([0.5, 0.5]);
  });

  test('when a sentence is repeated word for word across an entry, then one stated once chooses first', () => {
    const matches = (passages: ReturnType<typeof sentenceMatch>[]): EntryMatches => ({
      keyword: [],
      vector: [vectorHit('a', 0.5)],
      sentence: [{ id: 'a', version: 1, passages }],
    });
    // 0.6 in two passages far apart (one template line, twice) against 0.5 stated once.
    const repeated = matches([sentenceMatch(0, 100, 0.6), sentenceMatch(800, 900, 0.6), sentenceMatch(400, 500, 0.5)]);
    expect(rankEntries(repeated, 10, 1, SEMANTIC)[0]!.passages.map((p) => p.start)).toEqual([400]);
    expect(rankEntries(repeated, 10, 1, LEXICAL)[0]!.passages.map((p) => p.start)).toEqual([400]);
    // The same sentence read in two overlapping passages is one sentence: it keeps its cosine.
    const overlap = matches([sentenceMatch(0, 100, 0.6), sentenceMatch(80, 180, 0.6), sentenceMatch(400, 500, 0.5)]);
    expect(rankEntries(overlap, 10, 1, SEMANTIC)[0]!.passages.map((p) => p.start)).toEqual([0]);
    // As the entry's best sentence, the template line counts 0.2 less too: 0.4, so the 0.5 stated once is its best.
    const score = (m: EntryMatches) => rankEntries(m, 10, 1, SEMANTIC)[0]!.score;
    const share = meaningShares(SEMANTIC.meaning, { context: false, topic: false }).sentence;
    expect(score(overlap) - score(repeated)).toBeCloseTo((0.6 - 0.5) * share * (1 - SEMANTIC.keywordWeight), 9);
  });

  test('when another entry found states a sentence word for word too, then a sentence stated once chooses first', () => {
    const matches: EntryMatches = {
      keyword: [],
      vector: [vectorHit('a', 0.5), vectorHit('b', 0.4)],
      sentence: [
        { id: 'a', version: 1, passages: [sentenceMatch(0, 100, 0.6), sentenceMatch(400, 500, 0.5)] },
        // The same line in entry b: the same vector, so the same cosine (its centrality is b's).
        { id: 'b', version: 1, passages: [sentenceMatch(200, 300, 0.6, 0.4)] },
      ],
    };
    expect(rankEntries(matches, 10, 1, SEMANTIC).find((h) => h.id === 'a')!.passages[0]!.start).toBe(400);
    // Without entry b's copy, the line is a's best.
    const alone: EntryMatches = { ...matches, sentence: [matches.sentence![0]!] };
    expect(rankEntries(alone, 10, 1, SEMANTIC).find((h) => h.id === 'a')!.passages[0]!.start).toBe(0);
  });

  test('when an index lacks context or topic vectors, then their shares go to the others in proportion', () => {
    const shares = { passage: 0.1, sentence: 0.25, context: 0.5, topic: 0.15 };
    expect(meaningShares(shares, { context: true, topic: true })).toEqual(shares);
    const noTopic = meaningShares(shares, { context: true, topic: false });
    expect(noTopic.topic).toBe(0);
    expect(noTopic.context).toBeCloseTo(0.5 / 0.85);
    expect(noTopic.passage + noTopic.sentence + noTopic.context).toBeCloseTo(1);
    const neither = meaningShares(shares, { context: false, topic: false });
    expect(neither).toEqual({ passage: 0.1 / 0.35, sentence: 0.25 / 0.35, context: 0, topic: 0 });
    // Nothing left to spread to: the passage alone.
    const topicOnly = { passage: 0, sentence: 0, context: 0, topic: 1 };
    expect(meaningShares(topicOnly, { context: true, topic: false })).toEqual({
      passage: 1,
      sentence: 0,
      context: 0,
      topic: 0,
    });
    // Shares that do not add up to 1 keep their total.
    const half = meaningShares(
      { passage: 0.1, sentence: 0.1, context: 0.2, topic: 0.1 },
      { context: true, topic: false },
    );
    expect(half.passage + half.sentence + half.context).toBeCloseTo(0.5);
  });

  test('when an entry indexed by an earlier release has no topic vector, then it ranks on its other signals, not on a topic of 0', () => {
    // (Not the very same cosine: two entries' sentences with one cosine would be one template line.)
    const same = (id: string, nudge = 0) => ({
      vector: vectorHit(id, 0.6, [[0, 100, 0.6]]),
      sentence: vectorHit(id, 0.6, [[0, 100, 0.6 + nudge]]),
      context: { id, version: 1, cosine: 0.6 },
    });
    const [fresh, old] = [same('fresh'), same('old', 1e-9)];
    const matches: EntryMatches = {
      keyword: [],
      vector: [
        { ...fresh.vector, hasTopic: true },
        { ...old.vector, hasTopic: false },
      ],
      sentence: [fresh.sentence, old.sentence],
      context: [fresh.context, old.context],
      topic: [{ id: 'fresh', version: 1, cosine: 0.2 }],
    };
    const hits = rankEntries(matches, 10, 2, SEMANTIC);
    const vw = 1 - SEMANTIC.keywordWeight;
    // The old entry: 0.6 on every signal it has. The fresh one: its topic is far from the question.
    expect(hits.map((h) => h.id)).toEqual(['old', 'fresh']);
    expect(hits[0]!.score_sources['vector']).toBeCloseTo(vw * 0.6);
    expect(hits[1]!.score_sources['vector']).toBeCloseTo(
      vw * ((1 - SEMANTIC.meaning.topic) * 0.6 + SEMANTIC.meaning.topic * 0.2),
    );
    // With a topic vector not among the topic search's hits, an entry counts a topic of 0.
    const unseen = rankEntries(
      { ...matches, vector: [matches.vector[0]!, { ...old.vector, hasTopic: true }] },
      10,
      2,
      SEMANTIC,
    );
    expect(unseen.find((h) => h.id === 'old')!.score_sources['vector']).toBeCloseTo(
      vw * (1 - SEMANTIC.meaning.topic) * 0.6,
    );
  });

  test('when the shipped settings are read, then they are the ones docs/search.md gives', () => {
    expect(SEMANTIC.meaning).toEqual({ passage: 0.1, sentence: 0.25, context: 0.5, topic: 0.15 });
    expect(LEXICAL.meaning).toEqual({ passage: 0.4, sentence: 0.2, context: 0.2, topic: 0.2 });
    expect(SEMANTIC.passageChoice).toEqual({
      sentencesPerHit: 30,
      keywordPassagesPerHit: 15,
      vectorPassagesPerHit: 10,
      passageTerms: false,
      centralityPenalty: 0.5,
    });
    expect(LEXICAL.passageChoice).toEqual({
      sentencesPerHit: 12,
      keywordPassagesPerHit: 10,
      vectorPassagesPerHit: 0,
      passageTerms: true,
      centralityPenalty: 0.3,
    });
    expect(SEMANTIC.relevance).toEqual({ intercept: -3.82, cosine: 11, keyword: 1.15, score: 0, unknownTerms: -1.5 });
  });

  test(
    'when one passage holds the sentence closest to a question and another a fair keyword match, then the ' +
      "sentence's passage comes first where the model knows the language, the keyword's where it does not",
    () => {
      const matches: EntryMatches = {
        keyword: [keywordHit('a', 20, [[0, 100, 20]])],
        vector: [
          vectorHit('a', 0.5, [
            [0, 100, 0.5],
            [100, 200, 0.45],
          ]),
        ],
        sentence: [
          vectorHit('a', 0.8, [
            [100, 200, 0.8],
            [0, 100, 0.3],
          ]),
        ],
      };
      // Half keyword, half the mean of passage and sentence cosines (the rule before) chose [0, 100).
      expect(rankEntries(matches, 10, 2, SEMANTIC)[0]!.passages.map((p) => p.start)).toEqual([100, 0]);
      expect(rankEntries(matches, 10, 2, LEXICAL)[0]!.passages.map((p) => p.start)).toEqual([0, 100]);
    },
  );

  test('when the best passage is closer to the question, then relevance is higher, within 0-1, and 0.5 near the calibrated cosine', () => {
    const at = (cos: number) => relevanceOf(SEMANTIC, cos, 0, 0);
    expect(at(0.2)).toBeLessThan(0.2);
    expect(at(0.35)).toBeCloseTo(0.5, 1);
    expect(at(0.6)).toBeGreaterThan(0.85);
    expect(at(1)).toBeLessThanOrEqual(1);
    expect(relevanceOf(LEXICAL, 0.9, 0, 0.1)).toBeLessThan(relevanceOf(LEXICAL, 0.1, 0, 0.6));
  });

  test('when a question names no language, then a German one ranks by its words on an English model, others by meaning', () => {
    expect(questionProfile('Wie lange dauert der Versand in die Schweiz?', undefined, ['en'])).toBe(LEXICAL);
    expect(questionProfile('Wie lange dauert der Versand in die Schweiz?', '', ['en'])).toBe(LEXICAL);
    expect(questionProfile('How long does shipping to Switzerland take?', undefined, ['en'])).toBe(SEMANTIC);
    expect(questionProfile('Versandkosten', undefined, ['en'])).toBe(SEMANTIC); // too short to tell
    // A language named wins over the detected one; a model that knows German ranks it by meaning.
    expect(questionProfile('Wie lange dauert der Versand in die Schweiz?', 'en', ['en'])).toBe(SEMANTIC);
    expect(questionProfile('Wie lange dauert der Versand in die Schweiz?', undefined, ['en', 'de'])).toBe(SEMANTIC);
  });

  test('when a question names no language, then it is read in the one it is written in, else in both', () => {
    const german = 'Repariert ihr auch Fahrräder?';
    // Read in German alone: stems, one group of terms, the German cues for a kind of answer.
    expect(questionTerms(german, undefined)).toEqual(questionTerms(german, 'de'));
    expect(questionTerms(german, undefined).termGroups).toHaveLength(1);
    expect(questionTerms(german, undefined).stems).toContain('fahrrad');
    expect(questionTerms(german, undefined).stems).not.toContain('fahrräder'); // the unstemmed English reading
    expect(questionTerms('Was kostet der Expressversand?', undefined).answerTypes).toEqual(['money']);
    expect(questionTerms('How much is express shipping?', undefined)).toEqual(
      questionTerms('How much is express shipping?', 'en'),
    );
    // Too short to tell: read in English and in German.
    expect(questionTerms('Versandkosten', undefined).termGroups).toHaveLength(2);
    // A language named wins over the detected one.
    expect(questionTerms(german, 'en')).not.toEqual(questionTerms(german, 'de'));
    // Read once for profile and terms alike.
    for (const [q, language] of [
      [german, undefined],
      [german, 'en'],
      ['Versandkosten', undefined],
    ] as const) {
      expect(readQuestion(q, language, ['en'])).toEqual({
        profile: questionProfile(q, language, ['en']),
        terms: questionTerms(q, language),
      });
    }
  });

  test('when more of the question’s terms are in no entry, then every hit’s relevance is lower and the ranking the same', () => {
    const matches: EntryMatches = {
      keyword: [keywordHit('a', 3), keywordHit('b', 1)],
      vector: [vectorHit('a', 0.45), vectorHit('b', 0.5)],
    };
    for (const profile of [SEMANTIC, LEXICAL]) {
      const known = rankEntries({ ...matches, unknownTerms: 0 }, 10, 3, profile);
      const unknown = rankEntries({ ...matches, unknownTerms: 0.6 }, 10, 3, profile);
      expect(unknown.map((h) => h.id)).toEqual(known.map((h) => h.id));
      unknown.forEach((h, i) => {
        expect(h.score).toBe(known[i]!.score);
        expect(h.relevance).toBeLessThan(known[i]!.relevance);
      });
      expect(rankEntries(matches, 10, 3, profile)[0]!.relevance).toBe(known[0]!.relevance);
    }
    expect(relevanceOf(SEMANTIC, 0.4, 0, 0, 1)).toBeLessThan(relevanceOf(SEMANTIC, 0.4, 0, 0, 0.5));
  });

  test("when the query matches one entry's search_keywords and another's meaning, then the curated entry ranks first", () => {
    const curated = { ...keywordHit('curated', 2), keywords: 3 };
    const matches: EntryMatches = {
      keyword: [curated, keywordHit('titled', 4)],
      vector: [vectorHit('titled', 0.6), vectorHit('curated', 0.45)],
    };
    for (const profile of [SEMANTIC, LEXICAL]) {
      const [first] = rankEntries(matches, 10, 3, profile);
      expect(first!.id).toBe('curated');
      expect(first!.score_sources['keywords']).toBeGreaterThan(0);
    }
  });

  test.each([
    ['en', SEMANTIC],
    ['en-GB', SEMANTIC],
    [undefined, SEMANTIC],
    ['de', LEXICAL],
  ] as const)(
    'when the question is in %s and the model knows English, then the %o profile ranks',
    (language, profile) => {
      expect(profileFor(language, ['en'])).toBe(profile);
    },
  );

  test('when the model knows German too, then German questions are ranked by meaning', () => {
    expect(profileFor('de', ['en', 'de'])).toBe(SEMANTIC);
  });
});
