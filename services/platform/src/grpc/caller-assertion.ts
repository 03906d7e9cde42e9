/**
 * The caller assertion: the proof a back service asks of every call (docs/architecture.md,
 * "Service-to-service authentication"). A compact JWT (HS256) signed with the install's shared
 * secret, for one service (`aud`) and one method (`rpc`), valid for ASSERTION_LIFETIME_S,
 * carrying the caller the call is made for. A second, separate secret signs the system
 * credential: the only assertion that may act for no tenant (reindex, the admin CLI).
 */
import { createSecretKey, type KeyObject } from 'node:crypto';
import { Type, type Static } from '@sinclair/typebox';
import { Value } from '@sinclair/typebox/value';
import { SignJWT, decodeProtectedHeader, errors as joseErrors, jwtVerify, type JWTHeaderParameters } from 'jose';
import type { Caller } from '../caller';
import { AppError } from '../errors';

/** The gRPC metadata key the assertion travels in. */
export const CALLER_ASSERTION_METADATA_KEY = 'kb-caller-assertion';
/** `iss` of every assertion: this system; the install is told apart by its own secret. */
export const ASSERTION_ISSUER = 'knowledge-service';
/** `typ` header: an assertion is never mistaken for another JWT signed with the same key. */
const ASSERTION_TYPE = 'kb-caller+jwt';
export const ASSERTION_LIFETIME_S = 60;
/** Clocks of the pods of one install may differ this much. */
const CLOCK_TOLERANCE_S = 5;
/**
 * How long after its signed deadline (`dl`) a call is still started: the pods of one install
 * are NTP-synced (well under this), so a call older than that waited somewhere (a frozen
 * process's socket buffer, a paused proxy) after its caller had given up.
 */
export const DEADLINE_TOLERANCE_MS = 1000;

/** Which key signed an assertion (the `kid` header): the install's services, or the system credential. */
type KeyId = 'service' | 'system';

export interface ServiceAuthKeys {
  /** SERVICE_AUTH_SECRET: what the gateway and the services sign and verify with. */
  secret?: string;
  /**
   * SERVICE_AUTH_SECRET_ACCEPTED: also accepted when verifying a `service` assertion, never
   * signed with (the overlap of a rotation: docs/operations.md).
   */
  acceptedSecret?: string;
  /** SERVICE_SYSTEM_SECRET: the system credential (reindex, the admin CLI); only the similarity service verifies it. */
  systemSecret?: string;
}

/** The caller claim, checked field by field before anything reads it. */
const CallerClaim = Type.Object({
  tenant_id: Type.String({ maxLength: 63 }),
  user_id: Type.String({ maxLength: 200 }),
  role: Type.String({ maxLength: 20 }),
  scopes: Type.Array(Type.String({ maxLength: 100 }), { maxItems: 20 }),
  workspace_ids: Type.Array(Type.String({ maxLength: 100 }), { maxItems: 1000 }),
  audit_source: Type.String({ maxLength: 200 }),
  client_id: Type.String({ maxLength: 200 }),
  request_id: Type.String({ maxLength: 200 }),
  token_id: Type.String({ maxLength: 300 }),
});

/** Every field of a caller, the absent ones empty (a request may carry only part of one). */
export function fullCaller(caller: Partial<Caller> | null | undefined): Static<typeof CallerClaim> {
  const c = caller ?? {};
  return {
    tenant_id: c.tenant_id ?? '',
    user_id: c.user_id ?? '',
    role: c.role ?? '',
    scopes: [...(c.scopes ?? [])],
    workspace_ids: [...(c.workspace_ids ?? [])],
    audit_source: c.audit_source ?? '',
    client_id: c.client_id ?? '',
    request_id: c.request_id ?? '',
    token_id: c.token_id ?? '',
  };
}

// A KeyObject: jose then signs with node's HMAC directly, without importing a WebCrypto key per call.
const keyOf = (secret: string) => createSecretKey(Buffer.from(secret, 'utf8'));

/** Signs the assertion of one outgoing call. */
export type CallerSigner = (call: {
  caller: Partial<Caller> | null | undefined;
  audience: string;
  method: string;
  /**
   * The call's absolute deadline (epoch ms), signed as `dl`: gRPC sends deadlines as relative
   * timeouts, counted from when the callee reads the call, so a call buffered while the callee
   * was frozen would get a fresh one; the signed instant lets the callee refuse it instead.
   */
  deadline?: number;
}) => Promise<string>;

/**
 * The signer of a process (`issuer`: the component it is, e.g. "gateway", logged by the callee).
 * A caller without a tenant is signed with the system key when the process holds it; anything
 * else with the service key (or the system key, in a process that holds only that one).
 */
export function callerSigner(keys: ServiceAuthKeys, issuer: string): CallerSigner {
  const service = keys.secret ? keyOf(keys.secret) : undefined;
  const system = keys.systemSecret ? keyOf(keys.systemSecret) : undefined;
  if (!service && !system) throw new Error('callerSigner: neither SERVICE_AUTH_SECRET nor SERVICE_SYSTEM_SECRET given');
  return async ({ caller, audience, method, deadline }) => {
    const claim = fullCaller(caller);
    const kid: KeyId = (!claim.tenant_id && system) || !service ? 'system' : 'service';
    const header: JWTHeaderParameters = { alg: 'HS256', typ: ASSERTION_TYPE, kid };
    return new SignJWT({ rpc: method, caller: claim, ...(deadline !== undefined ? { dl: Math.floor(deadline) } : {}) })
      .setProtectedHeader(header)
      .setIssuer(ASSERTION_ISSUER)
      .setSubject(issuer)
      .setAudience(audience)
      .setIssuedAt()
      .setExpirationTime(`${ASSERTION_LIFETIME_S}s`)
      .sign(kid === 'system' ? (system as KeyObject) : (service as KeyObject));
  };
}

export interface VerifiedCaller {
  caller: Caller;
  /** Signed with the system credential (SERVICE_SYSTEM_SECRET). */
  system: boolean;
  /** The component that signed it (`sub`): gateway, knowledge, catalog, admin. */
  issuer: string;
  /** The call's absolute deadline (epoch ms) as its caller signed it (`dl`), when it did. */
  deadline?: number;
}

const unauthenticated = (message: string) => new AppError('unauthenticated', message);

/** Why jose refused a token, in words that name no secret. */
function refusal(err: unknown): AppError {
  if (err instanceof joseErrors.JWTExpired) return unauthenticated('The caller assertion has expired');
  if (err instanceof joseErrors.JWTClaimValidationFailed && err.claim === 'aud')
    return unauthenticated('The caller assertion is for another service');
  return unauthenticated('The caller assertion is not valid');
}

/**
 * Verifies the assertion of an incoming call to `audience` (this service) for `method` (its
 * full path): signature (the key its `kid` names, for `service` SERVICE_AUTH_SECRET or else
 * SERVICE_AUTH_SECRET_ACCEPTED; the system key only where this process holds it), issuer,
 * audience, type, lifetime, method and the caller claim's shape. Throws an UNAUTHENTICATED
 * AppError otherwise. The deadline claim is returned, not judged (the interceptor does).
 */
export function callerVerifier(keys: ServiceAuthKeys, audience: string) {
  const byKid = new Map<string, KeyObject[]>();
  const serviceKeys = [keys.secret, keys.acceptedSecret].filter((k): k is string => !!k).map(keyOf);
  if (serviceKeys.length) byKid.set('service', serviceKeys);
  if (keys.systemSecret) byKid.set('system', [keyOf(keys.systemSecret)]);
  const options = {
    algorithms: ['HS256'],
    issuer: ASSERTION_ISSUER,
    audience,
    typ: ASSERTION_TYPE,
    requiredClaims: ['iat', 'exp', 'sub'],
    // Bounds what a holder of the key could mint, not only what it claims.
    maxTokenAge: ASSERTION_LIFETIME_S + CLOCK_TOLERANCE_S,
    clockTolerance: CLOCK_TOLERANCE_S,
  };
  return async (token: string | undefined, method: string): Promise<VerifiedCaller> => {
    if (!token) throw unauthenticated('No caller assertion on the call');
    let verified;
    try {
      let kid: unknown;
      try {
        kid = decodeProtectedHeader(token).kid;
      } catch {
        throw new joseErrors.JWSInvalid();
      }
      const candidates = typeof kid === 'string' ? (byKid.get(kid) ?? []) : [];
      if (!candidates.length) throw new joseErrors.JWSSignatureVerificationFailed();
      // The current secret first; the accepted one only when its signature does not match.
      for (const [i, key] of candidates.entries()) {
        try {
          verified = await jwtVerify(token, key, options);
          break;
        } catch (err) {
          if (!(err instanceof joseErrors.JWSSignatureVerificationFailed) || i === candidates.length - 1) throw err;
        }
      }
    } catch (err) {
      throw refusal(err);
    }
    if (!verified) throw unauthenticated('The caller assertion is not valid');
    const { payload, protectedHeader } = verified;
    if (payload.rpc !== method) throw unauthenticated('The caller assertion is for another method');
    if (!Value.Check(CallerClaim, payload.caller)) throw unauthenticated('The caller assertion is not valid');
    if (payload.dl !== undefined && (typeof payload.dl !== 'number' || !Number.isFinite(payload.dl)))
      throw unauthenticated('The caller assertion is not valid');
    return {
      caller: fullCaller(payload.caller as Caller),
      system: protectedHeader.kid === 'system',
      issuer: String(payload.sub),
      ...(payload.dl !== undefined ? { deadline: payload.dl as number } : {}),
    };
  };
}
