import { assertMayWriteType, expiryOf, isExpired, normaliseMetadata } from '../src/domain/entry-types';
import { entry, refusal, viewer } from './support/fixtures';

describe('metadata per type', () => {
  it('when a process has no steps, then it is 422 at body.metadata.steps', () => {
    const r = refusal(() => normaliseMetadata('process', {}));
    expect(r.kind).toBe('invalid');
    expect(r.locs).toContain('body.metadata.steps');
  });

  it('when a process step is well formed, then it is kept as sent', () => {
    expect(normaliseMetadata('process', { steps: [{ title: 'One' }] })).toEqual({ steps: [{ title: 'One' }] });
  });

  it('when a strict schema meets an unknown key, then it is 422', () => {
    expect(refusal(() => normaliseMetadata('skill', { trigger_description: 'x', colour: 'red' })).kind).toBe('invalid');
    expect(refusal(() => normaliseMetadata('glossary', { other: 1 })).kind).toBe('invalid');
  });

  it('when a skill has no trigger description, then it is 422', () => {
    expect(
      refusal(() => normaliseMetadata('skill', { examples: [] })).locs.some((l) => l.startsWith('body.metadata')),
    ).toBe(true);
  });

  it('when knowledge or bootstrap metadata is any object, then it is kept', () => {
    expect(normaliseMetadata('knowledge', { anything: [1, 2] })).toEqual({ anything: [1, 2] });
    expect(normaliseMetadata('bootstrap', { a: { b: true } })).toEqual({ a: { b: true } });
  });

  it('when no metadata is sent, then it is an empty object', () => {
    expect(normaliseMetadata('knowledge', undefined)).toEqual({});
    expect(normaliseMetadata('memory', null)).toEqual({});
  });

  it('when a memory expiry has an offset, then it is normalised to UTC', () => {
    expect(normaliseMetadata('memory', { expires_at: '2030-01-01T02:00:00+02:00' })).toEqual({
      expires_at: '2030-01-01T00:00:00.000Z',
    });
  });

  it('when a memory expiry is not a date-time, then it is 422', () => {
    expect(refusal(() => normaliseMetadata('memory', { expires_at: 'tomorrow' })).kind).toBe('invalid');
  });

  it('when glossary synonyms repeat or have blanks, then they are trimmed and de-duplicated in order', () => {
    expect(normaliseMetadata('glossary', { synonyms: [' a', 'b ', 'a', '  '] })).toEqual({ synonyms: ['a', 'b'] });
  });
});

describe('expiry', () => {
  it('when a memory has expires_at, then that is its expiry; other types never expire', () => {
    expect(expiryOf('memory', { expires_at: '2030-01-01T00:00:00.000Z' })).toEqual(
      new Date('2030-01-01T00:00:00.000Z'),
    );
    expect(expiryOf('knowledge', { expires_at: '2030-01-01T00:00:00.000Z' })).toBeNull();
    expect(expiryOf('memory', {})).toBeNull();
  });

  it('when the expiry is now or past, then the entry has expired; before it, not', () => {
    const at = new Date('2030-01-01T00:00:00.000Z');
    expect(isExpired(entry({ expires_at: at }), at.getTime())).toBe(true);
    expect(isExpired(entry({ expires_at: at }), at.getTime() - 1)).toBe(false);
    expect(isExpired(entry({ expires_at: null }), at.getTime())).toBe(false);
  });
});

describe('writable types per role', () => {
  it('when an Agent writes a skill, then it is 403; knowledge is fine', () => {
    const agent = viewer({ role: 'Agent' });
    expect(refusal(() => assertMayWriteType(agent, 'skill'))).toMatchObject({
      kind: 'forbidden',
      message: 'Role Agent may not write skill entries',
    });
    expect(() => assertMayWriteType(agent, 'knowledge')).not.toThrow();
  });

  it('when a Viewer writes anything, then it is 403', () => {
    expect(refusal(() => assertMayWriteType(viewer({ role: 'Viewer' }), 'knowledge')).kind).toBe('forbidden');
  });

  it('when anyone writes skill_index, then it is 403 even where the settings would allow it', () => {
    const admin = viewer({ role: 'Admin' }, { role_writable_types: { Admin: ['skill_index' as never] } });
    expect(refusal(() => assertMayWriteType(admin, 'skill_index')).message).toBe(
      'skill_index entries are maintained by the system and cannot be written',
    );
  });

  it('when the tenant lets Agents write skills, then they may', () => {
    expect(() =>
      assertMayWriteType(viewer({ role: 'Agent' }, { role_writable_types: { Agent: ['skill'] } }), 'skill'),
    ).not.toThrow();
  });
});
