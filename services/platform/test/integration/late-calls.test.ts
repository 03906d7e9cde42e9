/**
 * Work whose caller gave up is not started. A real grpc-js server runs as a child process (the
 * built @kb/platform, as a service runs it) and is frozen with SIGSTOP while calls with a short
 * deadline are sent to it: they wait in its socket, their callers time out, and when it resumes
 * (SIGCONT) gRPC's relative timeout would start afresh for each. The deadline signed in the
 * caller assertion (`dl`) lets the server's interceptor refuse them before any handler runs.
 */
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import * as path from 'node:path';
import * as readline from 'node:readline';
import * as grpc from '@grpc/grpc-js';
import {
  AppError,
  DEADLINE_TOLERANCE_MS,
  callerSigner,
  similarityProto,
  typedClient,
  type CallerSigner,
  type similarityV1,
} from '@kb/platform';

const SECRET = 'a late-calls test secret of 32+ bytes';
const CALL_DEADLINE_MS = 300;
const root = path.resolve(__dirname, '../../../..');

/** The server: one method that counts its runs; "count" on stdin prints how many so far. */
const SERVER = `
const { startGrpcServer, similarityProto, createLogger } = require('@kb/platform');
let runs = 0;
(async () => {
  const server = await startGrpcServer({
    host: '127.0.0.1', port: 0, serviceNames: [],
    services: [{ definition: similarityProto().kb.similarity.v1.SimilarityService.service,
      implementation: { DescribeModel: (_call, cb) => { runs += 1; cb(null, { model: 'm', dims: 1 }); } } }],
    auth: { audience: 'similarity', keys: { secret: process.env.SECRET }, logger: createLogger('late', 'silent') },
  });
  server.setLive();
  console.log(JSON.stringify({ port: server.port }));
  require('node:readline').createInterface({ input: process.stdin }).on('line', () => console.log(JSON.stringify({ runs })));
})();
`;

let child: ChildProcessWithoutNullStreams;
let lines: readline.Interface;
let port: number;

const nextLine = () =>
  new Promise<Record<string, number>>((resolve) => lines.once('line', (line) => resolve(JSON.parse(line))));

async function runs(): Promise<number> {
  const answer = nextLine();
  child.stdin.write('count\n');
  return (await answer).runs!;
}

beforeAll(async () => {
  child = spawn(process.execPath, ['-e', SERVER], { cwd: root, env: { ...process.env, SECRET } });
  child.stderr.resume();
  lines = readline.createInterface({ input: child.stdout });
  port = (await nextLine()).port!;
}, 30_000);

afterAll(() => {
  child.kill('SIGCONT');
  child.kill('SIGKILL');
});

const client = (sign: CallerSigner) =>
  typedClient(
    'similarity',
    new (similarityProto().kb.similarity.v1.SimilarityService)(`127.0.0.1:${port}`, grpc.credentials.createInsecure()),
    CALL_DEADLINE_MS,
    sign,
  ) as ReturnType<typeof typedClient<similarityV1.SimilarityServiceClient>>;

const describeModel = (c: ReturnType<typeof client>) =>
  c.call('DescribeModel', { caller: { tenant_id: 'acme' } } as never).then(
    () => 'ok',
    (err: unknown) => (err instanceof AppError ? err.kind : String(err)),
  );

/** Freezes the server, sends `n` calls that time out while it is frozen, waits out the tolerance, resumes it; how many of them ran. */
async function frozenThenResumed(sign: CallerSigner, n: number): Promise<{ outcomes: string[]; ran: number }> {
  const c = client(sign);
  try {
    expect(await describeModel(c)).toBe('ok'); // connected, warm
    const before = await runs();
    child.kill('SIGSTOP');
    let outcomes: string[];
    try {
      outcomes = await Promise.all(Array.from({ length: n }, () => describeModel(c)));
      // Past every call's deadline by more than the tolerance the server allows.
      await new Promise((r) => setTimeout(r, DEADLINE_TOLERANCE_MS + 500));
    } finally {
      child.kill('SIGCONT');
    }
    // A call made after the resume runs: the server is fine, only the late calls are not started.
    await new Promise((r) => setTimeout(r, 300));
    expect(await describeModel(c)).toBe('ok');
    return { outcomes, ran: (await runs()) - before - 1 };
  } finally {
    c.close();
  }
}

test('when calls wait in a frozen server past their deadline, then on resume their handler runs 0 times', async () => {
  const { outcomes, ran } = await frozenThenResumed(callerSigner({ secret: SECRET }, 'test'), 5);
  expect(outcomes).toEqual(['deadline', 'deadline', 'deadline', 'deadline', 'deadline']);
  expect(ran).toBe(0);
}, 30_000);

test('without the signed deadline (an older caller), the same calls would have been run on resume', async () => {
  // The control: what the signed deadline prevents. Logged, not asserted: whether grpc-js runs a
  // handler for a call whose cancellation sits behind it in the same socket is its own business.
  const sign = callerSigner({ secret: SECRET }, 'test');
  const { outcomes, ran } = await frozenThenResumed((call) => sign({ ...call, deadline: undefined }), 5);
  expect(outcomes).toEqual(['deadline', 'deadline', 'deadline', 'deadline', 'deadline']);
  process.stdout.write(`without a signed deadline: ${ran} of 5 late calls ran on resume\n`);
}, 30_000);
