import { applySettingAssignments, DEFAULT_TENANT_SETTINGS, effectiveSettings } from '../src/domain/tenant-settings';

const invalid = (assignments: string[]) => {
  try {
    applySettingAssignments(effectiveSettings({}), assignments);
  } catch (err) {
    return (err as Error).message;
  }
  throw new Error('expected a refusal');
};

describe('effective settings', () => {
  it('when a tenant stores nothing, then the defaults apply (and are not shared)', () => {
    const s = effectiveSettings(undefined);
    expect(s).toEqual(DEFAULT_TENANT_SETTINGS);
    s.role_writable_types.Agent!.push('skill');
    expect(DEFAULT_TENANT_SETTINGS.role_writable_types.Agent).not.toContain('skill');
  });

  it('when a tenant stores one ceiling, then the other roles keep theirs', () => {
    const s = effectiveSettings({ role_visibility_ceilings: { Viewer: 'internal' } });
    expect(s.role_visibility_ceilings).toEqual({
      ...DEFAULT_TENANT_SETTINGS.role_visibility_ceilings,
      Viewer: 'internal',
    });
  });
});

describe('admin CLI assignments', () => {
  it('when booleans, numbers and type lists are assigned, then they are parsed as such', () => {
    const s = applySettingAssignments(effectiveSettings({}), [
      'workspaces_enabled=true',
      'hybrid_weights.description=0.7',
      'role_writable_types.Agent=knowledge, skill',
    ]);
    expect(s.workspaces_enabled).toBe(true);
    expect(s.hybrid_weights.description).toBe(0.7);
    expect(s.role_writable_types.Agent).toEqual(['knowledge', 'skill']);
  });

  it('when an assignment has no "=", then it is refused', () => {
    expect(invalid(['workspaces_enabled'])).toBe('Expected key=value, got "workspaces_enabled"');
  });

  it('when the setting is unknown, then the known ones are listed', () => {
    expect(invalid(['colour=red'])).toMatch(/^Unknown setting "colour"; known: workspaces_enabled, /);
  });

  it('when a per-role setting names no known role, then it is refused', () => {
    expect(invalid(['role_visibility_ceilings.Guest=public'])).toMatch(/needs a role/);
  });

  it('when a ceiling is no visibility level, or a type cannot be written, then validation refuses it', () => {
    expect(() => applySettingAssignments(effectiveSettings({}), ['role_visibility_ceilings.Agent=personal'])).toThrow();
    expect(() => applySettingAssignments(effectiveSettings({}), ['role_writable_types.Agent=skill_index'])).toThrow();
    expect(() => applySettingAssignments(effectiveSettings({}), ['hybrid_weights.description=2'])).toThrow();
  });
});
