import { createHmac } from 'node:crypto';
import { SignJWT, errors, jwtVerify } from 'jose';
import type { Caller } from '@kb/platform';

/** How long a session id is honoured; after it the client is told 404 and initializes again (MCP lifecycle). */
export const SESSION_TTL_SECONDS = 7 * 24 * 3600;
const AUDIENCE = 'kb-mcp-session';
/** A client name as X-Client-Id takes it: printable ASCII, at most 200 characters. */
const CLIENT_NAME = /[^\x21-\x7e]+/g;

/** What an MCP session remembers between requests: which client it is, for whom. */
export interface Session {
  tenant: string;
  /** The identity that opened it (API token, or the JWT subject): nobody else may use it. */
  holder: string;
  /** The client's name from `initialize` `clientInfo` (recorded as the writer's client id). */
  client: string;
}

/** Who holds a session: the API token, or a JWT's subject (a refreshed token keeps the session). */
export const holderOf = (caller: Caller): string =>
  caller.token_id.startsWith('jwt:') ? `sub:${caller.user_id}` : `token:${caller.token_id}`;

/** `clientInfo.name` made fit for the audit trail: printable ASCII without spaces, at most 200 characters. */
export function clientName(name: unknown): string {
  return typeof name === 'string' ? name.replace(CLIENT_NAME, '-').slice(0, 200) : '';
}

/**
 * Sessions without server state: the `Mcp-Session-Id` is a signed, expiring statement of the
 * session (tenant, holder, client name), so any gateway replica, or one restarted, serves the
 * next request of a session without sticky routing or a shared store. The key is derived from
 * the install's service secret; the id is not a credential (every request still carries its
 * token, and the id is honoured only with the holder's). During a rotation an id signed with
 * `acceptedSecret` (SERVICE_AUTH_SECRET_ACCEPTED) is still read, until it expires or the
 * operator removes that secret; new ids are always signed with `serviceSecret`.
 */
export function sessionCodec(serviceSecret: string, acceptedSecret?: string) {
  const keyOf = (secret: string) => createHmac('sha256', secret).update('kb mcp session id v1').digest();
  const key = keyOf(serviceSecret);
  const readKeys = acceptedSecret ? [key, keyOf(acceptedSecret)] : [key];
  return {
    issue(session: Session): Promise<string> {
      return new SignJWT({ t: session.tenant, h: session.holder, c: session.client })
        .setProtectedHeader({ alg: 'HS256' })
        .setAudience(AUDIENCE)
        .setIssuedAt()
        .setExpirationTime(`${SESSION_TTL_SECONDS}s`)
        .sign(key);
    },
    /** The session an id states, if it is ours, unexpired and held by this caller in this tenant. */
    async read(id: string, tenant: string, caller: Caller): Promise<Session | undefined> {
      if (!canonical(id)) return undefined;
      try {
        const { payload } = await verifyWithAny(id, readKeys);
        const session = { tenant: payload.t, holder: payload.h, client: payload.c };
        if (session.tenant !== tenant || session.holder !== holderOf(caller) || typeof session.client !== 'string')
          return undefined;
        return session as Session;
      } catch {
        return undefined;
      }
    },
  };
}
export type SessionCodec = ReturnType<typeof sessionCodec>;

/** Verifies with the first key whose signature matches (the current one first). */
async function verifyWithAny(id: string, keys: Buffer[]) {
  for (const [i, key] of keys.entries()) {
    try {
      return await jwtVerify(id, key, { audience: AUDIENCE, algorithms: ['HS256'] });
    } catch (err) {
      if (!(err instanceof errors.JWSSignatureVerificationFailed) || i === keys.length - 1) throw err;
    }
  }
  throw new errors.JWSSignatureVerificationFailed();
}

/**
 * Whether every part of a compact JWS is base64url as an encoder writes it. The last character of
 * a part carries spare bits that decoders ignore, so another character there can decode to the
 * same signature: an id is honoured only exactly as it was issued.
 */
function canonical(id: string): boolean {
  return id.split('.').every((part) => Buffer.from(part, 'base64url').toString('base64url') === part);
}
