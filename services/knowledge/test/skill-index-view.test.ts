import { skillIndexAsSeenBy, skillIndexFields } from '../src/domain/skill-index';
import { entry, viewer } from './support/fixtures';

const skill = (id: string, more: Parameters<typeof entry>[0] = {}) =>
  entry({ id, type: 'skill', title: `Skill ${id}`, metadata: { trigger_description: `when ${id}` }, ...more });

const indexOf = (skills: ReturnType<typeof skill>[]) => {
  const fields = skillIndexFields(skills);
  return entry({ type: 'skill_index', title: 'Skill index', ...fields });
};

describe('the skill index as a viewer reads it', () => {
  const index = indexOf([skill('open'), skill('team', { visibility: 'workspace', workspace_id: 'w1' })]);
  const on = { workspaces_enabled: true };

  it('when workspaces are on and the viewer is not in the workspace, then its skill is on no line and in no item', () => {
    const seen = skillIndexAsSeenBy(viewer({ workspace_ids: ['w2'] }, on), index);
    expect((seen.metadata as { skills: { id: string }[] }).skills.map((s) => s.id)).toEqual(['open']);
    expect(seen.content).not.toContain('Skill team');
    expect(seen.summary).toBe('1 skill');
  });

  it('when the viewer is a member, or workspaces are off, then the index is answered as stored', () => {
    expect(skillIndexAsSeenBy(viewer({ workspace_ids: ['w1'] }, on), index)).toBe(index);
    expect(skillIndexAsSeenBy(viewer({ workspace_ids: [] }), index)).toBe(index);
  });

  it('when an item is above the viewer ceiling, then it is left out too; other entry types pass unchanged', () => {
    const mixed = indexOf([skill('open'), skill('secret', { visibility: 'restricted' })]);
    const seen = skillIndexAsSeenBy(viewer({ role: 'Agent' }), mixed);
    expect(seen.content).not.toContain('Skill secret');
    const plain = entry({ type: 'knowledge' });
    expect(skillIndexAsSeenBy(viewer({ role: 'Viewer' }), plain)).toBe(plain);
  });
});
