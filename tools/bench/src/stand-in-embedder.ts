/**
 * The stand-in embedder of the scale mode (modes/scale.ts): an OpenAI-compatible
 * `POST /v1/embeddings` on 127.0.0.1 that answers each text with a unit vector drawn from a
 * generator seeded by the text's SHA-256. The similarity service uses it through its `openai`
 * provider (EMBEDDING_PROVIDER=openai), so every other part of the write and read paths runs as
 * it does with the model. Sizes and search costs do not depend on what a vector says (random
 * vectors are, if anything, harder for HNSW than a model's); relevance does, and is not measured
 * here. It runs as a process of its own, so serving vectors takes nothing from the benchmark's
 * client.
 *
 *   node tools/bench/dist/stand-in-embedder.js [--port N]   (prints "listening <port>")
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { createHash } from 'node:crypto';
import { createServer } from 'node:http';

export const STAND_IN_MODEL = 'stand-in-384';
export const STAND_IN_DIMS = 384;

/** The vector the stand-in gives `text`: seeded by its SHA-256, normally distributed parts, unit length. */
export function standInVector(text: string, dims = STAND_IN_DIMS): Float32Array {
  const seed = createHash('sha256').update(text).digest();
  // xorshift128 seeded by the digest's first 16 bytes (never all zero in practice).
  let [a, b, c, d] = [seed.readUInt32LE(0), seed.readUInt32LE(4), seed.readUInt32LE(8), seed.readUInt32LE(12) || 1];
  const next = () => {
    const t = a ^ (a << 11);
    [a, b, c] = [b, c, d];
    d = (d ^ (d >>> 19) ^ (t ^ (t >>> 8))) >>> 0;
    return (d + 0.5) / 4294967296;
  };
  const v = new Float32Array(dims);
  let norm = 0;
  for (let i = 0; i < dims; i += 2) {
    // Box-Muller: two normal parts from two uniform draws.
    const r = Math.sqrt(-2 * Math.log(next()));
    const theta = 2 * Math.PI * next();
    v[i] = r * Math.cos(theta);
    if (i + 1 < dims) v[i + 1] = r * Math.sin(theta);
  }
  for (const x of v) norm += x * x;
  norm = Math.sqrt(norm);
  for (let i = 0; i < dims; i++) v[i] = v[i]! / norm;
  return v;
}

/** Serves the stand-in on 127.0.0.1:`port` (0: a free one); resolves to the port. */
export function serveStandIn(port = 0): Promise<number> {
  const server = createServer((req, res) => {
    if (req.method !== 'POST' || !req.url?.endsWith('/v1/embeddings')) {
      res.writeHead(404, { 'content-type': 'application/json' }).end('{"error":{"message":"not found"}}');
      return;
    }
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      let input: unknown;
      try {
        input = (JSON.parse(Buffer.concat(chunks).toString('utf8')) as { input?: unknown }).input;
      } catch {
        input = undefined;
      }
      const texts = typeof input === 'string' ? [input] : input;
      if (!Array.isArray(texts) || texts.some((t) => typeof t !== 'string')) {
        res.writeHead(400, { 'content-type': 'application/json' }).end('{"error":{"message":"input: strings"}}');
        return;
      }
      const data = (texts as string[]).map((t, index) => ({
        object: 'embedding',
        index,
        embedding: Array.from(standInVector(t), (x) => Math.round(x * 1e6) / 1e6),
      }));
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ object: 'list', data }));
    });
  });
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => resolve((server.address() as { port: number }).port));
  });
}

/** Starts the stand-in as a child process; its URL for EMBEDDING_API_URL, and a stop. */
export async function startStandInEmbedder(): Promise<{ url: string; stop(): void }> {
  // Its stdin is a pipe from this process: when this process dies, however, the pipe closes and it exits.
  const child: ChildProcess = spawn(process.execPath, [__filename], { stdio: ['pipe', 'pipe', 'inherit'] });
  const port = await new Promise<number>((resolve, reject) => {
    let out = '';
    child.stdout!.on('data', (c: Buffer) => {
      out += c.toString('utf8');
      const m = /listening (\d+)/.exec(out);
      if (m) resolve(Number(m[1]));
    });
    child.once('exit', (code) => reject(new Error(`the stand-in embedder exited (${code}) before it listened`)));
  });
  return { url: `http://127.0.0.1:${port}`, stop: () => child.kill('SIGTERM') };
}

if (require.main === module) {
  if (!process.stdin.isTTY) {
    process.stdin.on('end', () => process.exit(0));
    process.stdin.resume();
  }
  const i = process.argv.indexOf('--port');
  serveStandIn(i > 0 ? Number(process.argv[i + 1]) : 0).then(
    (port) => process.stdout.write(`listening ${port}\n`),
    (err: unknown) => {
      process.stderr.write(`stand-in embedder: ${(err as Error).message}\n`);
      process.exit(1);
    },
  );
}
