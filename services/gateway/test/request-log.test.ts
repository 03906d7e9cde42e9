/** The one log line per request at the edge: written once the answer is sent, with what was answered. */
import { createServer, request, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import Koa from 'koa';
import pino from 'pino';
import { requestId } from '../src/http/request-id';

interface Seen {
  line: Record<string, unknown>;
  /** Whether the response had been handed to the socket when the line was written. */
  answered: boolean;
}

let server: Server;
let port: number;
const seen: Seen[] = [];
let current: ServerResponse | undefined;
/** Resolves the request that waits (the client gives up first). */
let release: (() => void) | undefined;

beforeAll(async () => {
  const logger = pino(
    { level: 'info' },
    {
      write: (l: string) =>
        void seen.push({ line: JSON.parse(l) as Record<string, unknown>, answered: !!current?.writableFinished }),
    },
  );
  const app = new Koa();
  app.use(requestId(logger));
  app.use(async (ctx) => {
    current = ctx.res;
    if (ctx.path === '/wait') await new Promise<void>((r) => (release = r));
    ctx.status = ctx.path === '/missing' ? 404 : 200;
    ctx.body = { path: ctx.path };
  });
  server = createServer(app.callback());
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  port = (server.address() as AddressInfo).port;
});
afterAll(() => new Promise<void>((r) => server.close(() => r())));

const get = (path: string) =>
  new Promise<number>((resolve, reject) => {
    const req = request({ port, path, host: '127.0.0.1' }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
    });
    req.on('error', reject);
    req.end();
  });

const lineFor = async (path: string) => {
  const until = Date.now() + 2_000;
  while (Date.now() < until) {
    const found = seen.find((s) => s.line['path'] === path);
    if (found) return found;
    await new Promise((r) => setTimeout(r, 10));
  }
  throw new Error(`no log line for ${path}`);
};

test('when a request is answered, then its one line is written after the answer was sent, with the status sent', async () => {
  expect(await get('/missing')).toBe(404);
  const { line, answered } = await lineFor('/missing');
  expect(answered).toBe(true);
  expect(line).toMatchObject({ msg: 'request', method: 'GET', path: '/missing', status: 404, ms: expect.any(Number) });
  expect(line).not.toHaveProperty('aborted');
  expect(seen.filter((s) => s.line['path'] === '/missing')).toHaveLength(1);
});

test('when the client goes away before the answer, then the line says aborted, once', async () => {
  await new Promise<void>((resolve) => {
    const req = request({ port, path: '/wait', host: '127.0.0.1' });
    req.on('error', () => resolve());
    req.end();
    setTimeout(() => req.destroy(), 100);
  });
  const { line } = await lineFor('/wait');
  expect(line).toMatchObject({ msg: 'request', path: '/wait', aborted: true });
  release?.();
  await new Promise((r) => setTimeout(r, 50));
  expect(seen.filter((s) => s.line['path'] === '/wait')).toHaveLength(1);
});
