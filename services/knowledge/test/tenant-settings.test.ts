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

describe('OAuth and rate-limit settings', () => {
  const oauth = (jwks: string, extra: string[] = []) => [
    'oauth.issuer=https://login.example/',
    `oauth.jwks_url=${jwks}`,
    'oauth.audience=kb-api',
    ...extra,
  ];

  it('when nothing is set, then tokens need RS256, ES256 or EdDSA and a tenant_id claim, and the gateway default limit applies', () => {
    expect(DEFAULT_TENANT_SETTINGS.oauth.algorithms).toEqual(['RS256', 'ES256', 'EdDSA']);
    expect(DEFAULT_TENANT_SETTINGS.oauth.tenant_claim).toBe('tenant_id');
    expect(DEFAULT_TENANT_SETTINGS.rate_limit.requests_per_minute).toBe(0);
  });

  it('when issuer, an https JWKS and audience are set with algorithms and a limit, then they are stored as given', () => {
    const s = applySettingAssignments(
      effectiveSettings({}),
      oauth('https://login.example/jwks', ['oauth.algorithms=PS256, ES384', 'rate_limit.requests_per_minute=120']),
    );
    expect(s.oauth.algorithms).toEqual(['PS256', 'ES384']);
    expect(s.rate_limit.requests_per_minute).toBe(120);
  });

  it.each(['http://127.0.0.1:8080/jwks', 'http://localhost/jwks', 'http://[::1]:9/jwks'])(
    'when the JWKS is plain http on a loopback host (%s), then it is accepted for development',
    (url) => {
      expect(applySettingAssignments(effectiveSettings({}), oauth(url)).oauth.jwks_url).toBe(url);
    },
  );

  it.each(['http://login.example/jwks', 'http://10.0.0.5/jwks', 'ftp://login.example/jwks', 'not a url'])(
    'when the JWKS URL is %s, then it is refused without repeating it',
    (url) => {
      const message = invalid(oauth(url));
      expect(message).toMatch(/^oauth\.jwks_url: /);
      expect(message).not.toContain(url);
    },
  );

  it('when the JWKS URL carries credentials, then it is refused without showing them', () => {
    const message = invalid(oauth('https://user:s3cret@login.example/jwks'));
    expect(message).toBe('oauth.jwks_url: must not carry credentials');
  });

  it('when OAuth is set without an audience, then it is refused', () => {
    expect(invalid(['oauth.issuer=https://login.example/', 'oauth.jwks_url=https://login.example/jwks'])).toBe(
      'OAuth needs issuer, jwks_url and audience together; not set: oauth.audience',
    );
  });

  it.each(['HS256', 'none', ''])('when the algorithms name "%s", then they are refused', (alg) => {
    expect(() => applySettingAssignments(effectiveSettings({}), [`oauth.algorithms=${alg}`])).toThrow();
  });

  it('when the limit is negative or not a number, then it is refused', () => {
    expect(() => applySettingAssignments(effectiveSettings({}), ['rate_limit.requests_per_minute=-1'])).toThrow();
    expect(() => applySettingAssignments(effectiveSettings({}), ['rate_limit.requests_per_minute=lots'])).toThrow();
  });
});
