import { LEXICAL, SEMANTIC, type EntryMatches, type FusionProfile } from '@kb/search';
import { replay } from '../src/replay';

// One entry whose content holds the fact in the passage at 200, asked one English paraphrase.
const content = 'a'.repeat(200) + 'The fact is here.' + 'c'.repeat(183) + 'd'.repeat(100);
const passage = (start: number, score: number) => ({ start, end: start + 100, score });
const sentence = (start: number, score: number) => ({ ...passage(start, score), centrality: 0 });
// The fact's passage: the only one BM25 names, and the fourth best sentence.
const matches: EntryMatches = {
  keyword: [{ id: 'e1', version: 1, text: 0, stems: 30, passage: 30, keywords: 0, passages: [passage(200, 30)] }],
  vector: [{ id: 'e1', version: 1, cosine: 0.5, passages: [passage(0, 0.5), passage(100, 0.5), passage(300, 0.5)] }],
  sentence: [
    {
      id: 'e1',
      version: 1,
      passages: [sentence(0, 0.7), sentence(100, 0.69), sentence(300, 0.68), sentence(200, 0.6)],
    },
  ],
};
const recording = {
  entries: [{ slug: 'entry', id: 'e1', content }],
  questions: [
    {
      set: 'paraphrase' as const,
      id: 'entry#start',
      language: 'en' as const,
      text: 'Where is the fact?',
      entrySlug: 'entry',
      key: 'The fact is here.',
      matches,
    },
    {
      set: 'unanswerable' as const,
      id: 'none',
      language: 'en' as const,
      text: 'Who cooks?',
      matches: { keyword: [], vector: [] },
    },
  ],
};
const reading = (sentencesPerHit: number): FusionProfile => ({
  ...SEMANTIC,
  passageChoice: { ...SEMANTIC.passageChoice, sentencesPerHit, centralityPenalty: 0 },
});

describe('replaying a recording', () => {
  test('when a profile reads the fact’s sentence, then its passage is among the three returned', () => {
    expect(replay(recording, reading(4), LEXICAL).get('paraphrase, en')).toMatchObject({
      n: 1,
      r1: 1,
      r5: 1,
      inTop5: 1,
      passageHits: 1,
    });
  });

  test('when a profile reads fewer sentences than were recorded, then the ranking sees only those', () => {
    // Three sentences read: the fact's (the fourth) is cut, and its passage has only its words left.
    expect(replay(recording, reading(3), LEXICAL).get('paraphrase, en')).toMatchObject({ inTop5: 1, passageHits: 0 });
  });

  test('when nothing is found for an unanswerable question, then it counts as having no hit at 0.5', () => {
    expect(replay(recording, SEMANTIC, LEXICAL).get('unanswerable, en')).toMatchObject({ n: 1, atHalf: 1 });
  });
});
