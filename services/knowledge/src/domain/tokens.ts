import { randomBytes } from 'node:crypto';
import { API_TOKEN_PREFIX, sha256Hex } from '@kb/platform';

/** A new API token: `kbt_<id>_<secret>`. Only its SHA-256 is stored. */
export function newApiToken(): { id: string; token: string; hash: string } {
  const id = randomBytes(6).toString('hex');
  const token = `${API_TOKEN_PREFIX}${id}_${randomBytes(32).toString('base64url')}`;
  return { id, token, hash: sha256Hex(token) };
}

/** Scopes a token gets when none are given: what its role can use. */
export function defaultScopesForRole(role: string): string[] {
  switch (role) {
    case 'Admin':
      return ['knowledge:read', 'knowledge:write', 'knowledge:admin'];
    case 'Supervisor':
    case 'Agent':
      return ['knowledge:read', 'knowledge:write'];
    default:
      return ['knowledge:read'];
  }
}
