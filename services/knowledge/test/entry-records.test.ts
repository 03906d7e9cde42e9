import type { EntriesRepo } from '../src/data-access/entries-repo';
import type { Entry } from '../src/domain/types';
import { nextUpdatedAt, tombstoneOf, versionRecord } from '../src/domain/entries/records';
import { rebuildSkillIndex, skillIndexFields } from '../src/domain/skill-index';
import { caller, entry } from './support/fixtures';

describe('history records', () => {
  it('when a change is recorded, then it carries who made it, with empty caller fields as null', () => {
    const e = entry({ version: 4 });
    const v = versionRecord(e, 'update', caller({ user_id: '', client_id: 'cli', audit_source: '' }));
    expect(v).toMatchObject({
      entry_id: 'entry-1',
      version: 4,
      action: 'update',
      changed_at: e.updated_at,
      changed_by_user_id: null,
      audit_source: 'api',
      client_id: 'cli',
    });
    expect(v.snapshot).toEqual(e);
  });

  it("when a delete leaves a tombstone, then its version is one past the entry's", () => {
    expect(tombstoneOf(entry({ version: 4 }), new Date(1))).toEqual({
      id: 'entry-1',
      tenant_id: 'tenant-1',
      version: 5,
      deleted_at: new Date(1),
    });
  });

  it('when the clock is not past the previous change, then the next updated_at is 1 ms after it', () => {
    expect(nextUpdatedAt(new Date(100), 100)).toEqual(new Date(101));
    expect(nextUpdatedAt(new Date(100), 500)).toEqual(new Date(500));
  });
});

describe('the skill index', () => {
  const skill = (id: string, more: Partial<Entry>) =>
    entry({ id, type: 'skill', metadata: { trigger_description: `when ${id}` }, ...more });

  it("when built from skills, then it lists each in order, in the oldest one's category, as visible as the most visible one", () => {
    const f = skillIndexFields([
      skill('s1', { title: 'One', category_id: 'c1', visibility: 'public' }),
      skill('s2', { title: 'Two', category_id: 'c2', visibility: 'restricted' }),
    ]);
    expect(f.content).toBe('# Skill index\n\n- **One** (`s1`): when s1\n- **Two** (`s2`): when s2');
    expect(f).toMatchObject({ category_id: 'c1', visibility: 'public', summary: '2 skills' });
    expect(f.metadata.skills.map((s) => s.examples)).toEqual([[], []]);
  });

  it('when there is one skill, then the summary is singular', () => {
    expect(skillIndexFields([skill('s1', {})]).summary).toBe('1 skill');
  });

  function fakeRepo(skills: Entry[], index: Entry | null) {
    const written: string[] = [];
    const repo = {
      ofType: async (_t: string, type: string) => (type === 'skill' ? skills : index ? [index] : []),
      insert: async (doc: Entry) => (written.push(`insert ${doc.type} by ${doc.source}`), doc),
      addVersion: async (v: { action: string; audit_source: string }) =>
        void written.push(`version ${v.action} ${v.audit_source}`),
      updateIfVersion: async (_t: string, _id: string, version: number, set: Partial<Entry>) => (
        written.push(`update from ${version}`),
        { ...index!, ...set, version: version + 1 }
      ),
      deleteIfVersion: async () => (written.push('delete'), true),
      addTombstone: async () => void written.push('tombstone'),
    } as unknown as EntriesRepo;
    return { repo, written };
  }

  it('when the first skill is written, then the index is created and its history names the system', async () => {
    const { repo, written } = fakeRepo([skill('s1', {})], null);
    const doc = await rebuildSkillIndex(repo, 'tenant-1', caller());
    expect(doc).toMatchObject({ type: 'skill_index', title: 'Skill index', version: 1, source: 'system' });
    expect(written).toEqual(['insert skill_index by system', 'version create system']);
  });

  it('when nothing the index shows changed, then it is not rewritten', async () => {
    const fields = skillIndexFields([skill('s1', {})]);
    const { repo, written } = fakeRepo([skill('s1', {})], entry({ type: 'skill_index', ...fields }));
    expect(await rebuildSkillIndex(repo, 'tenant-1', caller())).toBeNull();
    expect(written).toEqual([]);
  });

  it('when the last skill is gone, then the index is deleted with a tombstone', async () => {
    const { repo, written } = fakeRepo([], entry({ type: 'skill_index' }));
    expect(await rebuildSkillIndex(repo, 'tenant-1', caller())).toBeNull();
    expect(written).toEqual(['delete', 'tombstone']);
  });

  it('when a skill changed, then the index is updated at its version and recorded as an update', async () => {
    const { repo, written } = fakeRepo([skill('s1', { title: 'Renamed' })], entry({ type: 'skill_index', version: 2 }));
    expect(await rebuildSkillIndex(repo, 'tenant-1', caller())).toMatchObject({ version: 3 });
    expect(written).toEqual(['update from 2', 'version update system']);
  });
});
