import * as grpc from '@grpc/grpc-js';
import type { Caller } from '../caller';
import { AppError, KIND_TO_GRPC } from '../errors';
import type { Logger } from '../logging';
import { recordRpcServerCall } from '../metrics';
import {
  CALLER_ASSERTION_METADATA_KEY,
  DEADLINE_TOLERANCE_MS,
  callerVerifier,
  type ServiceAuthKeys,
  type VerifiedCaller,
} from './caller-assertion';

/**
 * Trailing metadata of a call refused for its assertion: the caller (the gateway) then knows the
 * refusal is about the install's own wiring, not about its client's token, and answers 500, not 401.
 */
export const ASSERTION_REFUSED_METADATA_KEY = 'kb-caller-assertion-refused';

/** How a back service authenticates its callers (startGrpcServer's `auth`). */
export interface ServerAuth {
  /** This service's name ("knowledge", "catalog", "similarity"): the audience its callers sign for. */
  audience: string;
  keys: ServiceAuthKeys;
  /** TENANT_MODE=single: the install's one tenant; a caller naming another is refused. */
  tenantId?: string;
  /** Methods (short names) only the system credential may call, e.g. BeginReindex. */
  systemOnly?: readonly string[];
  /** Methods a service's caller may make before a tenant is known (the gateway's ResolveTenant). */
  tenantless?: readonly string[];
  logger: Logger;
}

/** A back service's `ServerAuth` from its configuration (BACK_SERVICE_AUTH_SETTINGS, and SYSTEM_AUTH_SETTINGS where it reads them). */
export function serverAuthOf(
  config: {
    SERVICE_AUTH_SECRET: string;
    SERVICE_AUTH_SECRET_ACCEPTED?: string;
    SERVICE_SYSTEM_SECRET?: string;
    TENANT_MODE: 'single' | 'host';
    TENANT_ID?: string;
  },
  audience: string,
  logger: Logger,
  rules: Pick<ServerAuth, 'systemOnly' | 'tenantless'> = {},
): ServerAuth {
  return {
    audience,
    keys: {
      secret: config.SERVICE_AUTH_SECRET,
      acceptedSecret: config.SERVICE_AUTH_SECRET_ACCEPTED,
      systemSecret: config.SERVICE_SYSTEM_SECRET,
    },
    ...(config.TENANT_MODE === 'single' && config.TENANT_ID ? { tenantId: config.TENANT_ID } : {}),
    ...rules,
    logger,
  };
}

/** Health answers anyone: the kubelet's probes carry no assertion and learn nothing from it. */
const OPEN_SERVICES = ['/grpc.health.v1.Health/'];

/**
 * The rules on a verified caller beyond its signature: the call's signed deadline, tenant,
 * system-only methods, single-tenant installs.
 */
function admit(auth: ServerAuth, method: string, verified: VerifiedCaller): Caller {
  const { caller, system } = verified;
  // Its caller gave up before it got here (it waited in a frozen process's socket, and gRPC's
  // relative timeout started afresh when it was read): nobody would read the answer.
  if (verified.deadline !== undefined && Date.now() > verified.deadline + DEADLINE_TOLERANCE_MS)
    throw new AppError('deadline', 'The call arrived after its deadline');
  if (auth.systemOnly?.includes(method) && !system) throw AppError.forbidden(`${method} needs the system credential`);
  if (!caller.tenant_id && !system && !auth.tenantless?.includes(method))
    throw new AppError('unauthenticated', 'A call without a tenant needs the system credential');
  if (auth.tenantId !== undefined && caller.tenant_id && caller.tenant_id !== auth.tenantId)
    throw AppError.forbidden('This install serves another tenant');
  return caller;
}

/**
 * The server interceptor that authenticates every call but health before its handler runs: the
 * assertion (metadata `kb-caller-assertion`) is verified and the request's `caller` replaced by
 * the one inside it, so handlers only ever see a caller this install vouched for. A call without
 * a valid one ends UNAUTHENTICATED (PERMISSION_DENIED for a rule of `admit`, DEADLINE_EXCEEDED
 * for one whose signed deadline passed more than DEADLINE_TOLERANCE_MS ago) and reaches nothing.
 */
export function callerAuthInterceptor(auth: ServerAuth): grpc.ServerInterceptor {
  const verify = callerVerifier(auth.keys, auth.audience);
  return (descriptor, call) => {
    const path = descriptor.path;
    if (OPEN_SERVICES.some((prefix) => path.startsWith(prefix))) return new grpc.ServerInterceptingCall(call);
    const method = path.slice(path.lastIndexOf('/') + 1);
    const started = process.hrtime.bigint();
    let admitted: Promise<Caller | undefined> = Promise.resolve(undefined);
    const refuse = (err: unknown) => {
      const known =
        err instanceof AppError ? err : new AppError('unauthenticated', 'The caller assertion is not valid');
      const code = KIND_TO_GRPC[known.kind];
      auth.logger.warn(
        { method, code: grpc.status[code], reason: known.message, peer: call.getPeer() },
        'call refused',
      );
      recordRpcServerCall(path, grpc.status[code], Number(process.hrtime.bigint() - started) / 1e9);
      const metadata = new grpc.Metadata();
      // A late call is no fault of the install's wiring: its caller sees a plain DEADLINE_EXCEEDED.
      if (known.kind !== 'deadline') metadata.set(ASSERTION_REFUSED_METADATA_KEY, '1');
      call.sendStatus({ code, details: known.message, metadata });
      return undefined;
    };
    return new grpc.ServerInterceptingCall(call, {
      start: (next) =>
        next({
          onReceiveMetadata: (metadata, nextMetadata) => {
            const token = metadata.get(CALLER_ASSERTION_METADATA_KEY)[0];
            admitted = verify(typeof token === 'string' ? token : undefined, path)
              .then((verified) => admit(auth, method, verified))
              .then((caller) => {
                // The assertion has done its work: handlers and logs never see it.
                metadata.remove(CALLER_ASSERTION_METADATA_KEY);
                nextMetadata(metadata);
                return caller;
              }, refuse);
          },
          onReceiveMessage: (message: Record<string, unknown>, nextMessage) => {
            void admitted.then((caller) => {
              if (caller) nextMessage({ ...message, caller });
            });
          },
        }),
    });
  };
}
