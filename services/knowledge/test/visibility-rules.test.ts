import {
  assertMayWriteVisibility,
  canSee,
  lowestLevel,
  ownerKey,
  readableBy,
  searchFilter,
} from '../src/domain/visibility';
import { caller, refusal, viewer } from './support/fixtures';

const seen = (visibility: string, more: { owner_key?: string | null; workspace_id?: string | null } = {}) => ({
  visibility,
  owner_key: more.owner_key ?? null,
  workspace_id: more.workspace_id ?? null,
});

describe('role ceilings', () => {
  it('when the role is Agent, then it reads up to internal and not restricted', () => {
    const v = viewer({ role: 'Agent' });
    expect(v.levels).toEqual(['public', 'community', 'internal']);
    expect(canSee(v, seen('internal'))).toBe(true);
    expect(canSee(v, seen('restricted'))).toBe(false);
  });

  it('when the role is Viewer, then community is its ceiling', () => {
    expect(viewer({ role: 'Viewer' }).levels).toEqual(['public', 'community']);
  });

  it('when a role has no ceiling in the settings, then it reads public only', () => {
    expect(viewer({ role: 'Guest' }).levels).toEqual(['public']);
  });

  it('when the tenant raises a ceiling, then the role reads up to it', () => {
    const v = viewer({ role: 'Viewer' }, { role_visibility_ceilings: { Viewer: 'restricted' } });
    expect(canSee(v, seen('restricted'))).toBe(true);
  });
});

describe('personal entries', () => {
  it('when the caller has a user, then its personal notes are keyed by the user; else by the token', () => {
    expect(ownerKey(caller({ user_id: 'u9' }))).toBe('user:u9');
    expect(ownerKey(caller({ user_id: '', token_id: 't9' }))).toBe('token:t9');
  });

  it("when a personal note is another owner's, then even an Admin cannot see it", () => {
    const admin = viewer({ role: 'Admin', user_id: 'admin' });
    expect(canSee(admin, seen('personal', { owner_key: 'user:someone' }))).toBe(false);
    expect(canSee(admin, seen('personal', { owner_key: 'user:admin' }))).toBe(true);
  });

  it('when writing personal, then any role may (the ceiling does not apply)', () => {
    expect(() => assertMayWriteVisibility(viewer({ role: 'Viewer' }), 'personal', null)).not.toThrow();
  });
});

describe('workspaces', () => {
  it('when workspaces are off, then a workspace entry reads as internal', () => {
    expect(canSee(viewer({ role: 'Agent' }), seen('workspace', { workspace_id: 'w1' }))).toBe(true);
    expect(canSee(viewer({ role: 'Viewer' }), seen('workspace', { workspace_id: 'w1' }))).toBe(false);
  });

  it('when workspaces are on, then only members of the workspace see its entries, whatever their role', () => {
    const on = { workspaces_enabled: true };
    expect(
      canSee(viewer({ role: 'Viewer', workspace_ids: ['w1'] }, on), seen('workspace', { workspace_id: 'w1' })),
    ).toBe(true);
    expect(
      canSee(viewer({ role: 'Admin', workspace_ids: ['w2'] }, on), seen('workspace', { workspace_id: 'w1' })),
    ).toBe(false);
    expect(canSee(viewer({ role: 'Admin', workspace_ids: ['w1'] }, on), seen('workspace'))).toBe(false);
  });

  it('when workspaces are on, then writing one needs membership of the named workspace', () => {
    const v = viewer({ workspace_ids: ['w1'] }, { workspaces_enabled: true });
    expect(() => assertMayWriteVisibility(v, 'workspace', 'w1')).not.toThrow();
    expect(refusal(() => assertMayWriteVisibility(v, 'workspace', 'w2'))).toMatchObject({
      kind: 'forbidden',
      message: 'Workspace entries can only be written by members of that workspace',
    });
    expect(refusal(() => assertMayWriteVisibility(v, 'workspace', null)).kind).toBe('forbidden');
  });

  it('when workspaces are off, then writing one needs the internal level', () => {
    expect(() => assertMayWriteVisibility(viewer({ role: 'Agent' }), 'workspace', null)).not.toThrow();
    expect(refusal(() => assertMayWriteVisibility(viewer({ role: 'Viewer' }), 'workspace', null)).message).toBe(
      'Role Viewer may not write visibility workspace',
    );
  });
});

describe('writing above the ceiling', () => {
  it('when an Agent writes restricted, then it is 403 naming role and visibility', () => {
    expect(refusal(() => assertMayWriteVisibility(viewer({ role: 'Agent' }), 'restricted', null))).toEqual({
      kind: 'forbidden',
      message: 'Role Agent may not write visibility restricted',
      locs: [],
    });
  });
});

describe('one rule for MongoDB, the search index and loaded entries', () => {
  it('when workspaces are off and the ceiling reaches internal, then workspace is one more plain visibility', () => {
    expect(readableBy(viewer({ role: 'Agent' }))).toEqual({
      visibilities: ['public', 'community', 'internal', 'workspace'],
      ownerKey: 'user:user-1',
      workspaceIds: null,
    });
    expect(readableBy(viewer({ role: 'Viewer' })).visibilities).toEqual(['public', 'community']);
  });

  it("when workspaces are on, then the search filter is workspace-scoped to the caller's workspaces", () => {
    expect(searchFilter(viewer({ role: 'Agent', workspace_ids: ['w1'] }, { workspaces_enabled: true }))).toEqual({
      visibilities: ['public', 'community', 'internal'],
      owner_user_id: 'user:user-1',
      workspace_scoped: true,
      workspace_ids: ['w1'],
    });
  });
});

describe('the skill index visibility', () => {
  it('when skills have several visibilities, then the lowest wins, personal and workspace counting as internal', () => {
    expect(lowestLevel(['community', 'public'])).toBe('public');
    expect(lowestLevel(['restricted', 'workspace'])).toBe('internal');
    expect(lowestLevel(['restricted', 'personal'])).toBe('internal');
    expect(lowestLevel(['restricted'])).toBe('restricted');
    expect(lowestLevel([])).toBe('internal');
  });
});
