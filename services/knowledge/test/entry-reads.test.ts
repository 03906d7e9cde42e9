import { stillMatching } from '../src/domain/entries/search';
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
