/**
 * A text's vector must not depend on what it is embedded with: vectors are cached by text hash
 * and compared across indexing runs, so the same text must give the same vector whether it came
 * alone (a search query), in a call of a hundred product texts, or while another call was being
 * embedded. Checked bit for bit through the embedder the service builds from its default
 * configuration (EMBEDDING_MODEL_DIR: the real quantized all-MiniLM-L6-v2, no mocks).
 */
import { loadSimilarityConfig } from '../../src/config';
import { modelFilesIn, OnnxEmbedder, type Embedder } from '../../src/embedder';
import { embedderFromConfig } from '../../src/server';

jest.setTimeout(120_000);

const modelDir = process.env['EMBEDDING_MODEL_DIR'];
if (!modelDir)
  throw new Error(
    'EMBEDDING_MODEL_DIR must name a directory holding model.onnx and tokenizer.json (all-MiniLM-L6-v2, quantized)',
  );

/** The raw bytes of a vector: equal bytes, identical vector (not merely close). */
const bits = (v: Float32Array | undefined) => Buffer.from(v!.buffer, v!.byteOffset, v!.byteLength).toString('hex');
const cosine = (a: Float32Array, b: Float32Array) => a.reduce((sum, x, i) => sum + x * b[i]!, 0);

// Different lengths (a few tokens to a few hundred, one cut at the 256-token limit), two languages.
const texts = [
  'headphones',
  'Trail running shoes, waterproof, size 44',
  'Der Globex Kochmesser 512 ist leicht, spülmaschinenfest und gemacht für Profiküchen. ' +
    'Aus Edelstahl in schwarz, mit kostenlosem Versand und 30 Tagen Rückgaberecht.',
  'Acme office chair 300\ncolour: navy\nmaterial: wool\nsize: XL',
  Array.from({ length: 60 }, (_, i) => `feature ${i} of the deluxe espresso machine`).join('; '),
  'The Hooli bluetooth speaker 731 is wireless, shock resistant and compact design and made for ' +
    'outdoor sports. Crafted from plastic in orange, it comes with free shipping and 30-day returns.',
  'USB-C',
];

let embedder: Embedder;
beforeAll(async () => {
  // What the service runs: its configuration's defaults, only the required settings given (the
  // Elasticsearch address is required but not contacted here).
  embedder = embedderFromConfig(
    loadSimilarityConfig({
      ELASTICSEARCH_URL: 'http://127.0.0.1:9',
      EMBEDDING_MODEL_DIR: modelDir,
      SERVICE_AUTH_SECRET: process.env.SERVICE_AUTH_SECRET,
    }),
  );
  await embedder.ready();
});
afterAll(() => embedder.close());

describe("the service's embedder, as configured by default", () => {
  test(
    'when a text is embedded alone or among texts of other lengths, ' +
      'in any position, then its vector is bit for bit the same',
    async () => {
      const alone = new Map<string, string>();
      for (const text of texts) alone.set(text, bits((await embedder.embed([text]))[0]));

      const together = await embedder.embed(texts);
      const reversed = await embedder.embed([...texts].reverse());
      // Each text between a very short and a very long one.
      const sandwiched = await embedder.embed(texts.flatMap((t) => [texts[0]!, t, texts[4]!]));

      texts.forEach((text, i) => {
        expect(bits(together[i])).toBe(alone.get(text));
        expect(bits(reversed[texts.length - 1 - i])).toBe(alone.get(text));
        expect(bits(sandwiched[3 * i + 1])).toBe(alone.get(text));
      });
    },
  );

  test('when calls of different sizes are embedded at the same time, then every vector is the one its text has alone', async () => {
    const alone = await Promise.all(texts.map(async (t) => bits((await embedder.embed([t]))[0])));
    const bulk = Array.from({ length: 40 }, (_, i) => texts[i % texts.length]!);
    const [a, b, c] = await Promise.all([
      embedder.embed(bulk),
      embedder.embed([...bulk].reverse()),
      embedder.embed([texts[2]!]),
    ]);
    bulk.forEach((t, i) => expect(bits(a[i])).toBe(alone[texts.indexOf(t)]));
    [...bulk].reverse().forEach((t, i) => expect(bits(b[i])).toBe(alone[texts.indexOf(t)]));
    expect(bits(c[0])).toBe(alone[2]);
  });

  test(
    'when two indexing calls of the same size are embedded at once, then the first is answered after its own ' +
      "runs, not after both calls' (not interleaved), and a query sent then goes before the rest of the second",
    async () => {
      const bulk = (tag: string) => Array.from({ length: 24 }, (_, i) => `${texts[i % texts.length]} ${tag}${i}`);
      const order: string[] = [];
      // The order of answers, not their times: a query sent when the first call is answered is
      // answered before the second call only if most of the second's texts were still waiting
      // (run by run in turn, the second would be one run from its end, and answered first).
      const first = embedder.embed(bulk('a')).then(async () => {
        order.push('first call');
        await embedder.embed(['a search query']);
        order.push('query');
      });
      const second = embedder.embed(bulk('b')).then(() => order.push('second call'));
      await Promise.all([first, second]);
      expect(order).toEqual(['first call', 'query', 'second call']);
    },
  );

  test('(why one text per run) when the quantized model runs texts as one padded batch, then their vectors do change', async () => {
    const padded = new OnnxEmbedder({ modelName: 'padded', dims: 384, ...modelFilesIn(modelDir), batchSize: 32 });
    try {
      const batched = await padded.embed(texts);
      const single = await embedder.embed(texts);
      // Close (the same meaning) but not the same vector: the batch-mates leak into it.
      const changed = texts.filter((_, i) => bits(batched[i]) !== bits(single[i]));
      expect(changed.length).toBeGreaterThan(0);
      for (const [i] of texts.entries()) expect(cosine(batched[i]!, single[i]!)).toBeGreaterThan(0.9);
    } finally {
      await padded.close();
    }
  });
});
