/**
 * The embedders against the real all-MiniLM-L6-v2 model: EMBEDDING_MODEL_DIR names a directory
 * holding model.onnx and tokenizer.json. The OpenAI-compatible provider is tested against a real
 * HTTP server on 127.0.0.1 whose /v1/embeddings answers with the ONNX embedder's vectors.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  createEmbedder,
  type Embedder,
  EmbedderInputError,
  EmbedderUnavailableError,
  modelFilesIn,
  OnnxEmbedder,
  OpenAiEmbedder,
} from '../../src/embedder';

jest.setTimeout(60_000);

const modelDir = process.env['EMBEDDING_MODEL_DIR'];
if (!modelDir)
  throw new Error(
    'EMBEDDING_MODEL_DIR must name a directory holding model.onnx and tokenizer.json (all-MiniLM-L6-v2, quantized)',
  );
const local = { modelName: 'all-minilm-l6-v2-q', dims: 384, ...modelFilesIn(modelDir) };

const dot = (a: Float32Array, b: Float32Array) => a.reduce((sum, x, i) => sum + x * b[i]!, 0);
const maxDiff = (a: Float32Array, b: Float32Array) => a.reduce((max, x, i) => Math.max(max, Math.abs(x - b[i]!)), 0);

const products = [
  'wireless noise cancelling headphones',
  'bluetooth headset with ANC',
  'stainless steel kitchen knife',
  'Ergonomic office chair with lumbar support, adjustable armrests and a breathable mesh back',
  'Trail running shoes, waterproof, size 44',
];

let onnx: OnnxEmbedder;
beforeAll(async () => {
  onnx = new OnnxEmbedder(local);
  await onnx.ready();
});
afterAll(() => onnx.close());

describe('local ONNX embedder', () => {
  test('when texts are embedded, then each vector has 384 dims and unit length', async () => {
    const vectors = await onnx.embed(products);
    expect(vectors).toHaveLength(products.length);
    for (const v of vectors) {
      expect(v).toBeInstanceOf(Float32Array);
      expect(v).toHaveLength(384);
      expect(Math.sqrt(dot(v, v))).toBeCloseTo(1, 5);
    }
    expect(onnx.model).toBe('all-minilm-l6-v2-q');
    expect(onnx.dims).toBe(384);
  });

  test('when a paraphrase and an unrelated text are embedded, then the paraphrase is closer', async () => {
    const [headphones, headset, knife] = await onnx.embed(products.slice(0, 3));
    expect(dot(headphones!, headset!)).toBeGreaterThan(dot(headphones!, knife!) + 0.2);
    expect(dot(headset!, headphones!)).toBeGreaterThan(dot(headset!, knife!) + 0.2);
  });

  test('when texts are embedded in one call, then each vector equals embedding it alone', async () => {
    const together = await onnx.embed(products);
    for (const [i, text] of products.entries()) {
      const [alone] = await onnx.embed([text]);
      expect(maxDiff(together[i]!, alone!)).toBeLessThan(1e-5);
    }
  });

  test('when the same text is embedded again, concurrently or by another instance, then the vector is the same', async () => {
    const other = new OnnxEmbedder(local);
    try {
      const [first, ...again] = await Promise.all([onnx.embed(products), onnx.embed(products), other.embed(products)]);
      for (const vectors of again) vectors.forEach((v, i) => expect(maxDiff(v, first[i]!)).toBeLessThan(1e-6));
    } finally {
      await other.close();
    }
  });

  test('when a bulk call is running, then a one-text call is answered before the bulk call ends', async () => {
    const finished: string[] = [];
    const bulk = onnx
      .embed(Array.from({ length: 64 }, (_, i) => `${products[i % products.length]} #${i}`))
      .then(() => finished.push('bulk'));
    const query = onnx.embed(['noise cancelling earbuds']).then(() => finished.push('query'));
    await Promise.all([bulk, query]);
    expect(finished).toEqual(['query', 'bulk']);
  });

  test('when a text is longer than maxTokens, then it is truncated, not rejected', async () => {
    const long = Array.from({ length: 400 }, (_, i) => `feature${i} of the deluxe espresso machine;`).join(' ');
    const [whole, longer] = await onnx.embed([
      long,
      `${long} and a completely different ending about garden furniture`,
    ]);
    expect(whole).toHaveLength(384);
    expect(Math.sqrt(dot(whole!, whole!))).toBeCloseTo(1, 5);
    // Only the first 256 tokens count, so what comes after them changes nothing.
    expect(maxDiff(whole!, longer!)).toBeLessThan(1e-6);
    // One long word-less run (no whitespace to cut at early) is truncated as well.
    const [run] = await onnx.embed(['x'.repeat(5000) + '-y'.repeat(5000)]);
    expect(run).toHaveLength(384);
  });

  test('when maxTokens is small, then text beyond it is ignored and text within it is not', async () => {
    const short = new OnnxEmbedder({ ...local, maxTokens: 8 });
    try {
      // [CLS] + 6 words + [SEP] = 8 tokens.
      const [a, b, c] = await short.embed([
        'red leather office chair with wheels',
        'red leather office chair with wheels and a headrest',
        'red leather office sofa',
      ]);
      expect(maxDiff(a!, b!)).toBeLessThan(1e-6);
      expect(maxDiff(a!, c!)).toBeGreaterThan(1e-3);
    } finally {
      await short.close();
    }
  });

  test('when a text is empty or whitespace only, then embed rejects with EmbedderInputError naming its position', async () => {
    await expect(onnx.embed(['headphones', '  \n\t'])).rejects.toThrow(EmbedderInputError);
    await expect(onnx.embed(['headphones', ''])).rejects.toMatchObject({
      index: 1,
      message: expect.stringContaining('empty'),
    });
    await expect(onnx.embed([])).resolves.toEqual([]);
  });

  test('when the model file is missing, then ready and embed reject with EmbedderUnavailableError', async () => {
    const missing = new OnnxEmbedder({ ...local, modelPath: '/nonexistent/model.onnx' });
    await expect(missing.ready()).rejects.toThrow(EmbedderUnavailableError);
    await expect(missing.embed(['headphones'])).rejects.toThrow(/nonexistent\/model\.onnx/);
  });

  test('when dims does not match the model, then ready rejects naming both widths', async () => {
    const wrong = new OnnxEmbedder({ ...local, dims: 768 });
    await expect(wrong.ready()).rejects.toThrow(/384.*768|768.*384/);
  });

  test('when the embedder is closed, then embed rejects with EmbedderUnavailableError', async () => {
    const closing = new OnnxEmbedder(local);
    const inFlight = closing.embed(products);
    await closing.close();
    await expect(inFlight).resolves.toHaveLength(products.length); // work in flight finishes
    await expect(closing.embed(['headphones'])).rejects.toThrow(EmbedderUnavailableError);
  });
});

describe('OpenAI-compatible embedder', () => {
  type Mode = 'onnx' | 'wrong-dims' | 'busy' | 'unauthorized' | 'silent';
  let mode: Mode = 'onnx';
  const requests: Array<{ authorization: string | undefined; body: { model: string; input: string[] } }> = [];
  let server: Server;
  let baseUrl: string;

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const send = (status: number, body: unknown, headers: Record<string, string> = {}) =>
      res.writeHead(status, { 'content-type': 'application/json', ...headers }).end(JSON.stringify(body));
    if (req.method !== 'POST' || req.url !== '/v1/embeddings')
      return void send(404, { error: { message: 'not found' } });
    let raw = '';
    for await (const chunk of req) raw += chunk;
    const body = JSON.parse(raw) as { model: string; input: string[] };
    requests.push({ authorization: req.headers.authorization, body });
    switch (mode) {
      case 'silent':
        return; // never answers
      case 'busy':
        return void send(429, { error: { message: 'slow down' } }, { 'retry-after': '7' });
      case 'unauthorized':
        return void send(401, { error: { message: 'Incorrect API key provided' } });
      default: {
        const vectors = await onnx.embed(body.input);
        const data = vectors.map((v, index) => ({
          object: 'embedding',
          index,
          embedding: mode === 'wrong-dims' ? [...v, ...v] : [...v],
        }));
        // Reversed, to prove the client orders by `index` rather than by position.
        send(200, {
          object: 'list',
          model: body.model,
          data: data.reverse(),
          usage: { prompt_tokens: 0, total_tokens: 0 },
        });
      }
    }
  }

  beforeAll(async () => {
    server = createServer((req, res) => {
      handle(req, res).catch((err: Error) =>
        res.writeHead(500).end(JSON.stringify({ error: { message: err.message } })),
      );
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });
  beforeEach(() => {
    mode = 'onnx';
    requests.length = 0;
  });

  const client = (options: Partial<ConstructorParameters<typeof OpenAiEmbedder>[0]> = {}): Embedder =>
    createEmbedder({ provider: 'openai', baseUrl, model: 'all-minilm-l6-v2-q', dims: 384, ...options });

  test('when the server embeds with the same model, then the vectors equal the local ones, in input order', async () => {
    const remote = client({ apiKey: 'sk-test', batchSize: 2 });
    const [viaHttp, direct] = await Promise.all([remote.embed(products), onnx.embed(products)]);
    expect(viaHttp).toHaveLength(products.length);
    viaHttp.forEach((v, i) => expect(maxDiff(v, direct[i]!)).toBeLessThan(1e-6));
    // Five inputs in batches of two: three requests, each with the key and the model name.
    expect(requests.map((r) => r.body.input.length)).toEqual([2, 2, 1]);
    expect(requests.every((r) => r.authorization === 'Bearer sk-test' && r.body.model === 'all-minilm-l6-v2-q')).toBe(
      true,
    );
    await expect(remote.ready()).resolves.toBeUndefined();
  });

  test('when no API key is configured, then no Authorization header is sent', async () => {
    await client({ baseUrl: `${baseUrl}/v1/` }).embed(['headphones']);
    expect(requests).toHaveLength(1);
    expect(requests[0]!.authorization).toBeUndefined();
  });

  test('when the port is closed, then embed rejects with EmbedderUnavailableError', async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise((resolve) => closed.close(resolve));
    const remote = client({ baseUrl: `http://127.0.0.1:${port}` });
    await expect(remote.embed(['headphones'])).rejects.toThrow(EmbedderUnavailableError);
    await expect(remote.ready()).rejects.toThrow(/ECONNREFUSED/);
  });

  test('when the server answers with another dimension, then embed rejects naming both widths', async () => {
    mode = 'wrong-dims';
    const error = await client()
      .embed(['headphones'])
      .catch((err: unknown) => err);
    expect(error).toBeInstanceOf(Error);
    expect(error).not.toBeInstanceOf(EmbedderUnavailableError);
    expect((error as Error).message).toMatch(/768-dimensional.*configured dims 384/);
  });

  test('when the server answers 429, then embed rejects with EmbedderUnavailableError carrying Retry-After', async () => {
    mode = 'busy';
    await expect(client().embed(['headphones'])).rejects.toMatchObject({
      name: 'EmbedderUnavailableError',
      retryAfterSeconds: 7,
      message: expect.stringContaining('slow down'),
    });
  });

  test('when the server rejects the key, then embed rejects with a plain error quoting the server', async () => {
    mode = 'unauthorized';
    const error = await client({ apiKey: 'wrong' })
      .embed(['headphones'])
      .catch((err: unknown) => err);
    expect(error).not.toBeInstanceOf(EmbedderUnavailableError);
    expect((error as Error).message).toMatch(/401: Incorrect API key provided/);
  });

  test('when the server does not answer in time, then embed rejects with EmbedderUnavailableError', async () => {
    mode = 'silent';
    await expect(client({ timeoutMs: 300 }).embed(['headphones'])).rejects.toThrow(/no answer within 300 ms/);
  });

  test('when a text is empty, then nothing is sent and embed rejects with EmbedderInputError', async () => {
    await expect(client().embed(['headphones', ' '])).rejects.toThrow(EmbedderInputError);
    expect(requests).toHaveLength(0);
  });
});
