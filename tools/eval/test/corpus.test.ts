/**
 * The corpus built from its data files (tools/eval/corpus/), without a backend: every property
 * the scoring relies on holds, and the same files give the same corpus every time.
 */
import { buildCorpus, checkCorpus, selectEntries } from '../src/corpus/generate';

test('when the corpus is built from the data files, then checkCorpus finds no problem', () => {
  const corpus = buildCorpus();
  expect(checkCorpus(corpus)).toEqual([]);
  expect(new Set(corpus.entries.map((e) => e.language))).toEqual(new Set(['en', 'de']));
  const answerable = corpus.questions.filter((q) => q.entrySlug);
  expect(answerable).toHaveLength(3 * corpus.entries.length);
  expect(corpus.questions.length).toBeGreaterThan(answerable.length);
});

test('when an entry is read, then its facts keep the order start, middle, end and its tags come from topic and subject', () => {
  const [first] = selectEntries();
  const corpus = buildCorpus({ entries: 1 });
  expect(corpus.questions.slice(0, 3).map((q) => [q.position, q.fact])).toEqual([
    ['start', first!.facts[0].text],
    ['middle', first!.facts[1].text],
    ['end', first!.facts[2].text],
  ]);
  expect(first!.tags).toEqual([first!.topic, first!.subject.replace(/\s+/g, '-').toLowerCase()]);
});

test('when the corpus is built twice, then it is the same', () => {
  expect(buildCorpus({ entries: 12 })).toEqual(buildCorpus({ entries: 12 }));
});
