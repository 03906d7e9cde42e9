/**
 * Rotating SERVICE_AUTH_SECRET with real grpc-js servers on 127.0.0.1 (docs/operations.md,
 * "Rotating SERVICE_AUTH_SECRET"): each phase of the rotation is a rolling update, so pods of
 * two neighbouring phases call each other for a while, in both directions. No pair may refuse
 * the other: every pod of phase N+1 accepts what every pod of phase N signs, and back.
 */
import * as grpc from '@grpc/grpc-js';
import { type similarityV1 } from '../src/contracts';
import { AppError } from '../src/errors';
import { callerSigner, type ServiceAuthKeys } from '../src/grpc/caller-assertion';
import { similarityProto } from '../src/grpc/proto';
import { startGrpcServer, type GrpcServerHandle } from '../src/grpc/server';
import { typedClient, type TypedClient } from '../src/grpc/typed-client';
import { createLogger } from '../src/logging';

const OLD = 'the old service secret, at least 32 bytes';
const NEW = 'the new service secret, at least 32 bytes';
const logger = createLogger('rotation-test', 'silent');
const Service = () => similarityProto().kb.similarity.v1.SimilarityService;

/** The documented phases: the settings every pod has once that phase's rolling update is done. */
const PHASES: Record<string, ServiceAuthKeys> = {
  '0 before': { secret: OLD },
  '1 accept the new secret': { secret: OLD, acceptedSecret: NEW },
  '2 sign with the new secret': { secret: NEW, acceptedSecret: OLD },
  '3 drop the old secret': { secret: NEW },
};

/** One "pod": a server with the phase's keys, and a client that signs as that phase does. */
interface Pod {
  server: GrpcServerHandle;
  keys: ServiceAuthKeys;
}
const pods = new Map<string, Pod>();

async function pod(keys: ServiceAuthKeys): Promise<Pod> {
  const server = await startGrpcServer({
    host: '127.0.0.1',
    port: 0,
    services: [
      {
        definition: Service().service,
        implementation: {
          DescribeModel: (_call: unknown, cb: grpc.sendUnaryData<unknown>) => cb(null, { model: 'm', dims: 1 }),
        },
      },
    ],
    serviceNames: [],
    auth: { audience: 'similarity', keys, logger },
  });
  server.setLive();
  return { server, keys };
}

/** A call from a pod of phase `from` (signing as it signs) to a pod of phase `to`: "ok" or why not. */
async function call(from: ServiceAuthKeys, to: Pod): Promise<string> {
  const client: TypedClient<similarityV1.SimilarityServiceClient> = typedClient(
    'similarity',
    new (Service())(`127.0.0.1:${to.server.port}`, grpc.credentials.createInsecure()),
    5000,
    callerSigner(from, 'knowledge'),
  );
  try {
    await client.call('DescribeModel', { caller: { tenant_id: 'acme' } } as never);
    return 'ok';
  } catch (err) {
    return err instanceof AppError ? `${err.kind}: ${err.message}` : String(err);
  } finally {
    client.close();
  }
}

beforeAll(async () => {
  for (const [name, keys] of Object.entries(PHASES)) pods.set(name, await pod(keys));
  pods.set('one step', await pod({ secret: NEW, acceptedSecret: OLD }));
});
afterAll(async () => {
  for (const p of pods.values()) await p.server.shutdown(0);
});

const names = Object.keys(PHASES);
const steps = names.slice(1).map((to, i) => [names[i]!, to] as const);

test.each(steps)(
  'when the install rolls from phase "%s" to "%s", then old and new pods accept each other both ways',
  async (from, to) => {
    const results: Record<string, string> = {};
    for (const [a, b] of [
      [from, from],
      [from, to],
      [to, from],
      [to, to],
    ] as const)
      results[`${a} -> ${b}`] = await call(PHASES[a]!, pods.get(b)!);
    expect(results).toEqual(Object.fromEntries(Object.keys(results).map((k) => [k, 'ok'])));
  },
);

test('when the new secret is rolled out in one step (new signs, old still accepted), then old pods refuse new ones', async () => {
  // Why the rotation has an accept-first phase: an old pod cannot know the new secret.
  expect(await call(PHASES['0 before']!, pods.get('one step')!)).toBe('ok');
  expect(await call({ secret: NEW }, pods.get('0 before')!)).toBe(
    "internal: The similarity service refused this install's caller assertion",
  );
});
