import { createHash } from 'node:crypto';

/**
 * Visible prefix of every API token (`kbt_<id>_<secret>`), so the gateway can tell API tokens
 * from OAuth JWTs and a leaked token is recognisable. Only the SHA-256 of a token is stored,
 * and only the hash travels from the gateway to the knowledge service.
 */
export const API_TOKEN_PREFIX = 'kbt_';

export function sha256Hex(value: string): string {
  return createHash('sha256').update(value, 'utf8').digest('hex');
}
