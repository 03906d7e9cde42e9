/**
 * How an install switches entry search to a multilingual model through the OpenAI-compatible
 * provider (docs/search.md): a local stand-in `/v1/embeddings` server plays the model. The
 * similarity service then works on new, empty indices named after the model; `reindex --kind
 * entries` fills them from MongoDB; German questions are then ranked by meaning
 * (EMBEDDING_LANGUAGES=en,de), and every vector came from the new model. And when the model
 * refuses a text, only the entry it belongs to fails, with an index error.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { analyzeText } from '@kb/text';
import { startStack, uniqueId, type Stack } from '../support/stack';

const DIMS = 64;
/** A text containing this is refused by the stand-in, as an endpoint refuses a text it cannot embed. */
const REFUSED = 'UNEMBEDDABLE';
const MODEL = 'stand-in-multilingual';

/**
 * A toy multilingual model: the text's English and German stems hashed into DIMS buckets, unit
 * length. Texts sharing stems in either language point the same way.
 */
function standInVector(text: string): number[] {
  const v = new Array<number>(DIMS).fill(0);
  const terms = `${analyzeText(text, 'en')} ${analyzeText(text, 'de')}`.split(' ').filter((t) => t !== '');
  for (const t of terms) {
    let h = 2166136261;
    for (let i = 0; i < t.length; i++) h = Math.imul(h ^ t.charCodeAt(i), 16777619);
    v[(h >>> 0) % DIMS]! += 1;
  }
  if (terms.length === 0) v[0] = 1;
  const norm = Math.hypot(...v);
  return v.map((x) => x / norm);
}

let server: Server;
let calls = 0;
let first: Stack | undefined;
let second: Stack | undefined;
const tenant = uniqueId('switch');

async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
  let raw = '';
  for await (const chunk of req) raw += chunk;
  const body = JSON.parse(raw) as { model: string; input: string[] };
  calls += 1;
  // What a real endpoint does with a text it will not take (too long, say): 400 for the request.
  if (body.input.some((t) => t.includes(REFUSED))) {
    res
      .writeHead(400, { 'content-type': 'application/json' })
      .end(JSON.stringify({ error: { message: 'input too long', type: 'invalid_request_error' } }));
    return;
  }
  res.writeHead(200, { 'content-type': 'application/json' }).end(
    JSON.stringify({
      object: 'list',
      model: body.model,
      data: body.input.map((text, index) => ({ object: 'embedding', index, embedding: standInVector(text) })),
      usage: { prompt_tokens: 0, total_tokens: 0 },
    }),
  );
}

beforeAll(async () => {
  server = createServer((req, res) => {
    handle(req, res).catch((err: Error) => res.writeHead(500).end(JSON.stringify({ error: { message: err.message } })));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
});
afterAll(async () => {
  await first?.stop();
  await second?.stop();
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

test('when an install switches to a multilingual model, then entries are searchable by it once reindexed', async () => {
  first = await startStack({ env: { INDEXER_INTERVAL_MS: '200' } });
  const token = await first.tenantWithToken(tenant, 'Admin');
  const category = (
    await first.request(tenant, '/api/knowledge/categories', { method: 'POST', token, body: { name: 'c' } })
  ).json.id;
  const entry = (
    await first.request(tenant, '/api/knowledge/knowledge-entries', {
      method: 'POST',
      token,
      body: {
        title: 'Sperrgut',
        content: 'Sperrige Möbel liefert eine Spedition bis in die Wohnung; der Termin wird telefonisch vereinbart.',
        category_id: category,
        visibility: 'internal',
        language: 'de',
      },
    })
  ).json;
  expect(entry.embedding_model).toBe('all-MiniLM-L6-v2-q');
  const mongoUri = first.mongoUri;
  const prefix = new URL(mongoUri).pathname.slice(1);
  await first.stop();
  first = undefined;

  second = await startStack({
    env: {
      MONGODB_URI: mongoUri,
      ELASTICSEARCH_INDEX_PREFIX: prefix,
      INDEXER_INTERVAL_MS: '200',
      EMBEDDING_PROVIDER: 'openai',
      EMBEDDING_API_URL: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`,
      EMBEDDING_MODEL_NAME: MODEL,
      EMBEDDING_DIMS: String(DIMS),
      EMBEDDING_LANGUAGES: 'en,de',
    },
  });
  const search = async () =>
    (
      await second!.request(tenant, '/api/knowledge/search/entries', {
        method: 'POST',
        token,
        body: { query: 'Wann liefert die Spedition die Möbel?', language: 'de' },
      })
    ).json as { entry: { id: string; embedding_model: string }; relevance: number; passages: { text: string }[] }[];
  // New model, new indices: nothing of the old model's vectors is used, so nothing is found yet.
  expect(await search()).toEqual([]);
  const before = calls;
  expect((await second.admin('reindex', 'entries')).join('\n')).toContain('Reindexed 1 entries (0 failed)');
  expect(calls).toBeGreaterThan(before);
  const hits = await search();
  expect(hits[0]?.entry.id).toBe(entry.id);
  expect(hits[0]!.entry.embedding_model).toBe(MODEL);
  expect(hits[0]!.passages[0]!.text).toContain('Spedition');
});

test('when the model refuses a passage of an entry, then that entry gets an index error and the others are indexed', async () => {
  const env = {
    INDEXER_INTERVAL_MS: '200',
    EMBEDDING_PROVIDER: 'openai',
    EMBEDDING_API_URL: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`,
    EMBEDDING_MODEL_NAME: MODEL,
    EMBEDDING_DIMS: String(DIMS),
    EMBEDDING_LANGUAGES: 'en,de',
  };
  const stack = await startStack({ env });
  try {
    const t = uniqueId('refused');
    const token = await stack.tenantWithToken(t, 'Admin');
    const category = (
      await stack.request(t, '/api/knowledge/categories', { method: 'POST', token, body: { name: 'c' } })
    ).json.id;
    const create = async (title: string, content: string) => {
      const res = await stack.request(t, '/api/knowledge/knowledge-entries', {
        method: 'POST',
        token,
        body: { title, content, category_id: category, visibility: 'internal', language: 'en' },
      });
      expect(res.status).toBe(201); // a write never fails because indexing did
      return res.json as { id: string };
    };
    const good = await create('Parcel lockers', 'Parcel lockers keep a delivery for three days.');
    const long = `# Manual\n\nParcel lockers open with a code.\n\n## Appendix\n\nThis passage is ${REFUSED} by the model.`;
    const bad = await create('Locker manual', long);
    let lines: string[] = [];
    for (let i = 0; i < 50 && !lines.some((l) => l.includes(bad.id)); i++) {
      await new Promise((r) => setTimeout(r, 200));
      lines = await stack.admin('index', 'errors', '--tenant', t);
    }
    const line = lines.find((l) => l.includes(bad.id));
    expect(line).toMatch(/embedding_refused: .*refused the texts \(400\)/);
    expect(lines.some((l) => l.includes(good.id))).toBe(false);
    const hits = (
      await stack.request(t, '/api/knowledge/search/entries', {
        method: 'POST',
        token,
        body: { query: 'parcel lockers', language: 'en' },
      })
    ).json as { entry: { id: string } }[];
    expect(hits.map((h) => h.entry.id)).toContain(good.id);
  } finally {
    await stack.stop();
  }
});
