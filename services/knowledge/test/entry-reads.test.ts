import { passagesFor, stillMatching } from '../src/domain/entries/search';
import { coverageOf } from '../src/domain/entries/relevance';
import { translationMembers } from '../src/domain/entries/translations';
import { snapshotAccess } from '../src/domain/entries/versions';
import { entry, viewer } from './support/fixtures';

describe('translations', () => {
  const source = entry({ id: 'src', content_changed_at: new Date(2_000) });
  const behind = entry({ id: 'en', translation_of: 'src', language: 'en', content_changed_at: new Date(1_000) });
  const current = entry({ id: 'fr', translation_of: 'src', language: 'fr', content_changed_at: new Date(3_000) });

  it("when the source text changed after a translation's, then that translation is outdated", () => {
    const members = translationMembers(viewer(), [source, behind, current]);
    expect(members.map((m) => [m.entry.id, m.isSource, m.outdated])).toEqual([
      ['src', true, false],
      ['en', false, true],
      ['fr', false, false],
    ]);
  });

  it("when a member is above the reader's ceiling, then it is left out", () => {
    const hidden = entry({ id: 'it', translation_of: 'src', visibility: 'restricted' });
    expect(translationMembers(viewer({ role: 'Agent' }), [source, hidden]).map((m) => m.entry.id)).toEqual(['src']);
  });
});

describe('the history a reader sees', () => {
  it('when a stored state has no visibility, then it counts as restricted', () => {
    expect(snapshotAccess({ snapshot: {} } as never)).toEqual({
      visibility: 'restricted',
      owner_key: null,
      workspace_id: null,
    });
  });
});

describe('search hits checked against MongoDB', () => {
  const hit = (id: string) => ({ id, score: 1, score_sources: { text: 1 } });
  const req = { query: 'q', limit: 0, types: [] as string[] };

  it('when the index is stale, then hits no longer stored, readable, of the type or unexpired are dropped, in the index order', () => {
    const loaded = [
      entry({ id: 'b' }),
      entry({ id: 'a' }),
      entry({ id: 'secret', visibility: 'restricted' }),
      entry({ id: 'old', expires_at: new Date(10) }),
      entry({ id: 'skill', type: 'skill' }),
    ];
    const hits = ['a', 'gone', 'secret', 'old', 'b', 'skill'].map(hit);
    expect(
      stillMatching(viewer({ role: 'Agent' }), { ...req, types: ['knowledge'] }, hits, loaded, 20).map(
        (h) => h.entry.id,
      ),
    ).toEqual(['a', 'b']);
  });

  it('when a category or language is asked for, then the stored entry must still have it', () => {
    const loaded = [entry({ id: 'a', category_id: 'moved' }), entry({ id: 'b', language: 'en' })];
    expect(stillMatching(viewer(), { ...req, category_id: 'cat-1' }, [hit('a'), hit('b')], loaded)).toHaveLength(1);
    expect(
      stillMatching(viewer(), { ...req, language: 'de' }, [hit('a'), hit('b')], loaded).map((h) => h.entry.id),
    ).toEqual(['a']);
  });
});

describe('search filters checked against MongoDB', () => {
  const hit = (id: string) => ({ id, score: 1, score_sources: {} });
  const req = { query: 'q', limit: 0, types: [] as string[] };
  const loaded = [
    entry({ id: 'a', tags: ['x'], site_ids: ['s1'], updated_at: new Date('2026-02-01T00:00:00Z') }),
    entry({ id: 'b', tags: ['y'], site_ids: [], updated_at: new Date('2026-01-01T00:00:00Z') }),
  ];
  const ids = (extra: object) =>
    stillMatching(viewer(), { ...req, ...extra }, [hit('a'), hit('b')], loaded).map((m) => m.entry.id);

  it('when tags, a site or updated_after are asked for, then the stored entry must still match them', () => {
    expect(ids({ tags: ['y', 'z'] })).toEqual(['b']);
    expect(ids({ site_id: 's1' })).toEqual(['a']);
    expect(ids({ updated_after: '2026-01-15T00:00:00Z' })).toEqual(['a']);
    expect(ids({})).toEqual(['a', 'b']);
  });
});

describe('passages as the caller receives them', () => {
  const content = 'First part about shipping.\n\nSecond part about returns and refunds.';
  const stored = entry({ id: 'a', version: 3, content, language: 'en' });

  it('when the index holds the stored version, then its offsets cut the text from the stored content', () => {
    const start = content.indexOf('Second');
    const [p] = passagesFor(
      stored,
      {
        id: 'a',
        score: 1,
        score_sources: {},
        version: 3,
        passages: [{ start, end: content.length, score: 0.7, cosine: 0.5 }],
      },
      'refunds',
      3,
    );
    expect(p).toMatchObject({ text: content.slice(start), start, end: content.length, score: 0.7 });
    expect(p!.highlights.map((h) => p!.text.slice(h.start, h.end))).toEqual(['refunds']);
  });

  it('when the index holds another version, then passages are chosen again from the stored content', () => {
    const stale = {
      id: 'a',
      score: 1,
      score_sources: {},
      version: 2,
      passages: [{ start: 0, end: 999, score: 1, cosine: 1 }],
    };
    const got = passagesFor(stored, stale, 'refunds', 3);
    expect(got.length).toBeGreaterThan(0);
    for (const p of got) expect(content.slice(p.start, p.end)).toBe(p.text);
    expect(got[0]!.text).toContain('refunds');
  });
});

describe('coverage', () => {
  it("when some of the query's stems occur in the texts, then coverage is their share", () => {
    expect(coverageOf('returned parcels', ['We return every parcel.'], 'en')).toBe(1);
    expect(coverageOf('returned bicycles', ['We return every parcel.'], 'en')).toBe(0.5);
    expect(coverageOf('the and of', ['anything'], 'en')).toBe(0);
  });
});
