import { SEMANTIC } from '@kb/search';
import { casesOf, sweepRow } from '../src/calibrate';

const report = {
  questions: [
    // Found at 0.6 with no unknown words, and found beyond the top 3 (entryHit) at 0.55 with half unknown.
    {
      id: 'a',
      language: 'en',
      position: 'start',
      entryId: 'e1',
      service: { hits: [{ entry: 'e1', relevance: 0.6 }], maxRelevance: 0.6, unknownTerms: 0 },
    },
    {
      id: 'b',
      language: 'en',
      position: 'end',
      entryId: 'e2',
      service: {
        hits: [{ entry: 'x', relevance: 0.7 }],
        entryHit: { entry: 'e2', relevance: 0.55 },
        maxRelevance: 0.7,
        unknownTerms: 0.5,
      },
    },
    // Not found at all.
    { id: 'c', language: 'en', position: 'middle', entryId: 'e3', service: { hits: [], maxRelevance: null } },
    // Nothing answers it; its best hit 0.52, all its words unknown.
    {
      id: 'n',
      language: 'en',
      service: { hits: [{ entry: 'y', relevance: 0.52 }], maxRelevance: 0.52, unknownTerms: 1 },
    },
    // Another language: left out of the English cases.
    { id: 'd', language: 'de', position: 'start', entryId: 'e4', service: { hits: [], maxRelevance: null } },
  ],
  ownWords: { questions: [{ language: 'en', relevance: 0.9, unknownTerms: 0 }] },
};

describe('calibrate', () => {
  test('when the candidate is the shipped one, then the shares are those of the relevance as answered', () => {
    const cases = casesOf(report, 'en');
    expect(cases.map((c) => c.kind)).toEqual(['paraphrase', 'paraphrase', 'paraphrase', 'unanswerable', 'own words']);
    expect(cases[1]!.relevance).toBe(0.55); // the entry's own hit, beyond the top 3
    const row = sweepRow(cases, SEMANTIC.relevance, SEMANTIC.relevance.unknownTerms, SEMANTIC.relevance.intercept, 0.5);
    expect(row.paraphrases).toBeCloseTo(2 / 3);
    expect(row.ownWords).toBe(1);
    expect(row.unanswerable).toBe(0);
    expect(row.counts).toEqual({ paraphrase: 3, 'own words': 1, unanswerable: 1 });
  });

  test('when unknown words count more, then only questions with unknown words lose relevance', () => {
    const cases = casesOf(report, 'en');
    const row = sweepRow(
      cases,
      SEMANTIC.relevance,
      SEMANTIC.relevance.unknownTerms - 1,
      SEMANTIC.relevance.intercept,
      0.5,
    );
    expect(row.paraphrases).toBeCloseTo(1 / 3); // b (half unknown) drops below 0.5, a stays
    expect(row.unanswerable).toBe(1);
    expect(row.ownWords).toBe(1);
  });

  test('when the intercept is lower, then every relevance is lower', () => {
    const cases = casesOf(report, 'en');
    const row = sweepRow(
      cases,
      SEMANTIC.relevance,
      SEMANTIC.relevance.unknownTerms,
      SEMANTIC.relevance.intercept - 3,
      0.5,
    );
    expect(row).toMatchObject({ paraphrases: 0, ownWords: 0, unanswerable: 1 });
  });
});
