/**
 * Where the backends are when the environment does not say: the running `npm start` of this
 * checkout (its run state, kept by @kb/devstack). The dev stack is a development tool: where
 * it is not installed (an image), only the environment and the defaults count.
 */
import {
  DEFAULT_GATEWAY_PORT,
  callerSigner,
  checkServiceAuthSecrets,
  defaultGrpcAddress,
  type CallerSigner,
} from '@kb/platform';

/** The part of @kb/devstack's RunState read here. */
interface StartState {
  mongoUri?: string;
  extra?: { mongoUri?: unknown; similarityGrpcAddr?: unknown; serviceSystemSecret?: unknown; gatewayUrl?: unknown };
}

let cached: { state: StartState | undefined } | undefined;

/** The state of this checkout's running `npm start`, or undefined when none runs (or the dev stack is not installed). */
export function startState(): StartState | undefined {
  if (!cached) {
    let devstack: { readStartState(): StartState | undefined } | undefined;
    try {
      // Required lazily and optionally: the knowledge image ships this CLI without the dev stack.
      // Its entry point loads only its own modules (~35 ms; testcontainers only when started).
      devstack = require('@kb/devstack');
    } catch (err) {
      if ((err as { code?: string }).code !== 'MODULE_NOT_FOUND') throw err;
    }
    cached = { state: devstack?.readStartState() };
  }
  return cached.state;
}

/** MONGODB_URI, else the running stack's database; undefined when neither is there. */
export function mongoUri(env: NodeJS.ProcessEnv = process.env): string | undefined {
  if (env.MONGODB_URI) return env.MONGODB_URI;
  const state = startState();
  const fromState = state?.extra?.mongoUri ?? state?.mongoUri;
  return typeof fromState === 'string' ? fromState : undefined;
}

/**
 * The gateway's port on this machine: the running stack's (`npm start -- --port`, PORT), else
 * PORT, else the default; for the local address `tenant create` prints.
 */
export function gatewayPort(env: NodeJS.ProcessEnv = process.env): number {
  const fromState = startState()?.extra?.gatewayUrl;
  const fromUrl = typeof fromState === 'string' ? Number(/:(\d+)$/.exec(fromState)?.[1]) : NaN;
  if (Number.isInteger(fromUrl) && fromUrl > 0) return fromUrl;
  const fromEnv = Number(env.PORT);
  return Number.isInteger(fromEnv) && fromEnv > 0 && fromEnv < 65536 ? fromEnv : DEFAULT_GATEWAY_PORT;
}

/** SIMILARITY_GRPC_ADDR, else the running stack's similarity service, else the default address. */
export function similarityAddr(env: NodeJS.ProcessEnv = process.env): string {
  if (env.SIMILARITY_GRPC_ADDR) return env.SIMILARITY_GRPC_ADDR;
  const fromState = startState()?.extra?.similarityGrpcAddr;
  return typeof fromState === 'string' ? fromState : defaultGrpcAddress('similarity');
}

/**
 * The admin CLI's signer: the system credential (SERVICE_SYSTEM_SECRET, else the running
 * stack's), which the similarity service asks of a reindex; undefined without one.
 */
export function signer(env: NodeJS.ProcessEnv = process.env): CallerSigner | undefined {
  const fromState = startState()?.extra?.serviceSystemSecret;
  const systemSecret = env.SERVICE_SYSTEM_SECRET || (typeof fromState === 'string' ? fromState : undefined);
  if (!systemSecret) return undefined;
  checkServiceAuthSecrets({ SERVICE_SYSTEM_SECRET: systemSecret });
  return callerSigner({ systemSecret }, 'admin');
}
