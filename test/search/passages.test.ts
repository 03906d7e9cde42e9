/**
 * Entry search for assistants (real Elasticsearch, MongoDB server and embedding model): long
 * entries are searched passage by passage, a hit carries its best passages with exact offsets
 * into the stored content and a calibrated relevance, min_relevance answers nothing when nothing
 * answers, and the filters (site, tags, updated_after) and bounds hold.
 */
import mongoose from 'mongoose';
import { trace } from '@opentelemetry/api';
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { startStack, uniqueId, type Stack } from '../support/stack';

const ENTRIES = '/api/knowledge/knowledge-entries';
const SEARCH = '/api/knowledge/search/entries';
const USER_A = '6c3d4e5f-6a7b-4c8d-9e0f-1a2b3c4d5e6f';

let stack: Stack;
const tenant = uniqueId('passages');
let admin: string;
let agent: string;
let category: string;
let conn: mongoose.Connection;

interface Passage {
  text: string;
  start: number;
  end: number;
  score: number;
  highlights: { start: number; end: number }[];
}
interface Hit {
  entry: { id: string; version: number; content?: string; title: string };
  score: number;
  relevance: number;
  passages: Passage[];
}

beforeAll(async () => {
  stack = await startStack({ env: { INDEXER_INTERVAL_MS: '200' } });
  conn = await mongoose.createConnection(stack.mongoUri).asPromise();
  admin = await stack.tenantWithToken(tenant, 'Admin');
  agent = await stack.token(tenant, 'Agent', ['--user', USER_A]);
  category = (
    await stack.request(tenant, '/api/knowledge/categories', { method: 'POST', token: admin, body: { name: 'c' } })
  ).json.id;
});
afterAll(async () => {
  await conn?.close();
  await stack?.stop();
});

const create = async (body: Record<string, unknown>, token = admin) => {
  const res = await stack.request(tenant, ENTRIES, {
    method: 'POST',
    token,
    body: { category_id: category, visibility: 'internal', language: 'en', ...body },
  });
  expect(res.status).toBe(201);
  await stack.entryIndexed(tenant, res.json.id, token);
  return res.json as { id: string; version: number; content: string };
};
const search = (body: Record<string, unknown>, token = admin) =>
  stack.request(tenant, SEARCH, { method: 'POST', token, body });
const hits = async (body: Record<string, unknown>, token = admin): Promise<Hit[]> => {
  const res = await search({ limit: 10, ...body }, token);
  expect(res.status).toBe(200);
  return res.json as Hit[];
};

/** Plausible filler: numbered sections of paragraphs about store operations, none of them the facts. */
function filler(topic: string, sections: number): string {
  const out: string[] = [];
  for (let s = 1; s <= sections; s++) {
    out.push(`## ${topic} section ${s}`);
    for (let p = 0; p < 3; p++) {
      out.push(
        `Staff at the ${topic.toLowerCase()} desk keep the ledger for week ${s}.${p} up to date. ` +
          `Each shift hands over open tasks in writing, checks the printer paper and restocks the brochure stand. ` +
          `Team leads review the rota on Mondays and note training sessions in the shared calendar. ` +
          `Cleaning of the counter follows the checklist pinned behind the door.`,
      );
    }
  }
  return out.join('\n\n');
}

const WINE_FACT =
  'Recipients of alcohol parcels must show a government-issued photo identification to the courier before handing over.';
const FERRY_FACT =
  'Orders to the North Sea islands travel by ferry and arrive two working days later than on the mainland.';

describe('passages of a long entry', () => {
  let wine: { id: string; version: number; content: string };
  beforeAll(async () => {
    // ~20 KB; the fact sits in the last section, far past what one vector of the whole entry sees.
    wine = await create({
      title: 'Courier handbook',
      content: `# Courier handbook\n\n${filler('Courier', 18)}\n\n## Handing over\n\n${WINE_FACT}\n\n${filler('Dispatch', 3)}`,
    });
    await create({ title: 'Island delivery', content: `# Islands\n\n${filler('Island', 4)}\n\n${FERRY_FACT}` });
    expect(wine.content.length).toBeGreaterThan(15_000);
  });

  test('when a question paraphrases a fact at the end of a long entry, then it comes first with the passage holding the fact', async () => {
    const [top] = await hits({ query: 'do I need ID when receiving a wine delivery?' });
    expect(top!.entry.id).toBe(wine.id);
    expect(top!.passages.length).toBeGreaterThan(0);
    expect(top!.passages.length).toBeLessThanOrEqual(3);
    expect(top!.passages.some((p) => p.text.includes(WINE_FACT))).toBe(true);
  });

  test('when passages come back, then each is content.slice(start, end), ≤ 1,200 characters, best first, highlights inside', async () => {
    const list = await hits({ query: 'photo identification courier alcohol', passages: 5 });
    const top = list.find((h) => h.entry.id === wine.id)!;
    expect(top.passages.length).toBeGreaterThan(1);
    for (const p of top.passages) {
      expect(top.entry.content!.slice(p.start, p.end)).toBe(p.text);
      expect(p.text.length).toBeLessThanOrEqual(1200);
      for (const h of p.highlights) {
        expect(h.start).toBeGreaterThanOrEqual(0);
        expect(h.end).toBeLessThanOrEqual(p.text.length);
        expect(['photo', 'identification', 'courier', 'alcohol']).toContain(p.text.slice(h.start, h.end).toLowerCase());
      }
    }
    const scores = top.passages.map((p) => p.score);
    expect([...scores].sort((a, b) => b - a)).toEqual(scores);
    expect(top.passages[0]!.highlights.length).toBeGreaterThan(0);
  });

  test('when include_content is false, then hits carry passages but no content; passages 0 gives none', async () => {
    const [top] = await hits({ query: 'ferry to the islands', include_content: false });
    expect(top!.entry).not.toHaveProperty('content');
    expect(top!.entry.title).toBe('Island delivery');
    expect(top!.passages[0]!.text).toContain('ferry');
    const [bare] = await hits({ query: 'ferry to the islands', passages: 0 });
    expect(bare!.passages).toEqual([]);
  });

  test('when the index holds an older version than MongoDB, then passages are cut from the stored content', async () => {
    const e = await create({
      title: 'Gift wrapping',
      content: `${filler('Wrapping', 2)}\n\nGift wrap costs three euros.`,
    });
    const changed = `Gift wrapping is free in December.\n\n${filler('Wrapping', 2)}`;
    await conn
      .collection('knowledge_entries')
      .updateOne({ _id: e.id as never }, { $set: { content: changed, version: e.version + 1 } });
    const top = (await hits({ query: 'gift wrap price' })).find((h) => h.entry.id === e.id)!;
    expect(top.entry.version).toBe(e.version + 1);
    for (const p of top.passages) expect(changed.slice(p.start, p.end)).toBe(p.text);
  });
});

describe('provenance', () => {
  test('when an entry search is answered, then a span names every entry version and passage given', async () => {
    // The services run in this process: a tracer provider registered here sees their spans.
    const exporter = new InMemorySpanExporter();
    trace.setGlobalTracerProvider(new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] }));
    try {
      const list = await hits({ query: 'ferry to the islands', passages: 2 });
      const span = exporter.getFinishedSpans().find((s) => s.name === 'retrieval knowledge-entries');
      expect(span).toBeDefined();
      const a = span!.attributes;
      expect(a['gen_ai.operation.name']).toBe('retrieval');
      // Asked without a language: read in the one it is written in.
      expect(a['kb.retrieval.query_language']).toBe('en');
      expect(a['kb.retrieval.query_language_source']).toBe('detected');
      expect(a['kb.retrieval.entry_ids']).toEqual(list.map((h) => h.entry.id));
      expect(a['kb.retrieval.entry_versions']).toEqual(list.map((h) => h.entry.version));
      const given = list.flatMap((h) => h.passages.map((p) => `${h.entry.id}@${h.entry.version}:${p.start}-${p.end}:`));
      const traced = (a['kb.retrieval.passages'] as string[]).map((t) => t.slice(0, t.lastIndexOf(':') + 1));
      expect(traced).toEqual(given);
    } finally {
      trace.disable();
    }
  });
});

describe('relevance', () => {
  test('when nothing answers a question, then min_relevance 0.5 gives an empty list while an answerable one keeps its entry', async () => {
    const none = await hits({ query: 'what is the boiling point of liquid nitrogen on Mars?', min_relevance: 0.5 });
    expect(none).toEqual([]);
    const all = await hits({ query: 'what is the boiling point of liquid nitrogen on Mars?' });
    expect(all.length).toBeGreaterThan(0);
    for (const h of all) expect(h.relevance).toBeLessThan(0.5);
    const answered = await hits({ query: 'must the person accepting a wine parcel show ID?', min_relevance: 0.5 });
    expect(answered[0]?.entry.title).toBe('Courier handbook');
    expect(answered[0]!.relevance).toBeGreaterThanOrEqual(0.5);
    expect(answered[0]!.relevance).toBeLessThanOrEqual(1);
  });

  test('when a question’s word is only in an entry the caller may not see, then it stays unknown to that caller', async () => {
    const query = 'must the person accepting a quokkaberry wine parcel show ID?';
    const courier = async (token: string) => {
      const hit = (await hits({ query }, token)).find((h) => h.entry.title === 'Courier handbook');
      expect(hit).toBeDefined();
      return hit!.relevance;
    };
    const before = await courier(agent);
    expect(await courier(admin)).toBeCloseTo(before, 2);
    await create({ title: 'Jam cellar', content: 'Quokkaberry jam ships in glass jars.', visibility: 'restricted' });
    // The agent may not see the new entry: for it the word is still unknown and nothing changes.
    expect(await courier(agent)).toBeCloseTo(before, 2);
    // The admin sees it: the knowledge base knows the word, and the same entry is more likely the answer.
    expect(await courier(admin)).toBeGreaterThan(before + 0.02);
  });
});

describe('filters', () => {
  test('when tags, updated_after or a site (uuid or slug) are given, then only matching entries come back', async () => {
    const tagged = await create({ title: 'Cheese storage', content: 'Keep cheese cold.', tags: ['dairy', 'food'] });
    const plain = await create({ title: 'Cheese knives', content: 'Cheese knives are in aisle 4.' });
    const ids = async (extra: Record<string, unknown>) =>
      (await hits({ query: 'cheese', ...extra })).map((h) => h.entry.id);
    expect(await ids({ tags: ['dairy', 'other'] })).toEqual([tagged.id]);
    const before = (await stack.request(tenant, `${ENTRIES}/${plain.id}`, { token: admin })).json.updated_at;
    await new Promise((r) => setTimeout(r, 20));
    await stack.request(tenant, `${ENTRIES}/${tagged.id}`, { method: 'PUT', token: admin, body: { summary: 'cold' } });
    expect(await ids({ updated_after: before })).toEqual([tagged.id]);
    // The other ISO 8601 forms pydantic takes: no zone is UTC, a date alone its midnight.
    expect(await ids({ updated_after: before.replace(/Z$/, '') })).toEqual([tagged.id]);
    expect(await ids({ updated_after: '2999-01-01' })).toEqual([]);
    expect(await ids({ updated_after: '2000-01-01 00:00' })).toEqual(await ids({}));
    const site = await stack.request(tenant, '/api/knowledge/sites', {
      method: 'POST',
      token: admin,
      body: { name: 'Cheese shop', slug: 'cheese-shop' },
    });
    expect(site.status).toBe(201);
    const assigned = await stack.request(tenant, `/api/knowledge/sites/${site.json.id}/knowledge`, {
      method: 'PUT',
      token: admin,
      body: { entry_ids: [plain.id] },
    });
    expect(assigned.json.assigned).toBe(1);
    expect(await ids({ site_id: site.json.id })).toEqual([plain.id]);
    expect(await ids({ site_id: 'cheese-shop' })).toEqual([plain.id]);
    expect((await search({ query: 'cheese', site_id: 'no-such-site' })).status).toBe(404);
  });

  test('when an Agent searches, then a restricted entry and its passages never come back', async () => {
    const secret = await create({
      title: 'Supplier margins',
      content: `${filler('Margins', 3)}\n\nThe supplier margin on truffles is forty percent.`,
      visibility: 'restricted',
    });
    const asAgent = await hits({ query: 'truffle supplier margin', passages: 5 }, agent);
    expect(asAgent.map((h) => h.entry.id)).not.toContain(secret.id);
    expect(JSON.stringify(asAgent)).not.toContain('forty percent');
    expect((await hits({ query: 'truffle supplier margin' })).map((h) => h.entry.id)).toContain(secret.id);
  });
});

describe('German', () => {
  test('when a German question uses another form of a word, then stemming finds the German entry', async () => {
    const de = await create({
      language: 'de',
      title: 'Rückgabe',
      content: `${filler('Lager', 3)}\n\nRücksendungen von Kühlschränken holt die Spedition kostenlos ab.`,
    });
    const found = await hits({ query: 'Wer holt eine Rücksendung eines Kühlschranks ab?', language: 'de' });
    expect(found[0]?.entry.id).toBe(de.id);
    expect(found[0]!.passages[0]!.text).toContain('Rücksendungen');
    // Without language the question is read as the German it is (ranked by its words), every entry searched.
    const unsaid = await hits({ query: 'Wer holt eine Rücksendung eines Kühlschranks ab?' });
    expect(unsaid[0]?.entry.id).toBe(de.id);
    expect(unsaid[0]!.passages[0]!.text).toContain('Rücksendungen');
    expect(unsaid.some((h) => h.entry.id !== de.id)).toBe(true); // English entries were searched too
  });

  test('when a German entry names its subject in every passage, then the passage with the question’s other word comes first', async () => {
    // Across the index "Gebühr" is common (a price list uses it everywhere) and "Lastschrift" rare;
    // within the debit entry it is the other way round: there "Gebühr" tells its passages apart.
    const fees = Array.from(
      { length: 8 },
      (_, i) =>
        `## Teil ${i + 1}\n\nJede Gebühr steht in dieser Liste. Die Gebühr für Leistung ${i + 1} ist fest, ` +
        'und keine Gebühr ändert sich ohne Ankündigung.',
    );
    await create({ language: 'de', title: 'Preisliste', content: fees.join('\n\n') });
    const section = (i: number) =>
      `## Abschnitt ${i}\n\nDie Lastschrift ist bei uns die beliebteste Zahlungsart. Eine Lastschrift ` +
      `erteilen Sie im Kundenkonto, und jede Lastschrift erscheint in der Übersicht ${i}.`;
    const debit = await create({
      language: 'de',
      title: 'Lastschrift',
      content: [
        section(1),
        section(2),
        section(3),
        '## Rückgaben\n\nFür eine zurückgegebene Lastschrift berechnen wir eine Gebühr von 3 Euro.',
        section(4),
        section(5),
      ].join('\n\n'),
    });
    const found = await hits({ query: 'Welche Gebühr kostet eine Lastschrift?', language: 'de', passages: 3 });
    const hit = found.find((h) => h.entry.id === debit.id);
    expect(hit?.passages[0]?.text).toContain('Gebühr von 3 Euro');
  });
  test('when a German question asks what something costs, then the passage that states an amount comes first', async () => {
    // The answer shares only the subject with the question, which every passage names.
    const section = (i: number) =>
      `## Teil ${i}\n\nDer Expressversand ist schnell. Mit Expressversand kommt das Paket zügig, ` +
      `und den Expressversand wählen Sie an der Kasse im Schritt ${i}.`;
    const express = await create({
      language: 'de',
      title: 'Expressversand',
      content: [
        section(1),
        section(2),
        '## Aufpreis\n\nFür den Expressversand berechnen wir 9,90 Euro zusätzlich pro Paket.',
        section(3),
        section(4),
      ].join('\n\n'),
    });
    const found = await hits({ query: 'Was kostet der Expressversand?', language: 'de', passages: 3 });
    const hit = found.find((h) => h.entry.id === express.id);
    expect(hit?.passages[0]?.text).toContain('9,90 Euro');
  });
});

describe('bounds', () => {
  test.each([
    [{ query: 'x', passages: 6 }, 'passages'],
    [{ query: 'x', passages: -1 }, 'passages'],
    [{ query: 'x', min_relevance: 1.5 }, 'min_relevance'],
    [{ query: 'x', min_relevance: -0.1 }, 'min_relevance'],
    [{ query: 'x', tags: Array.from({ length: 21 }, (_, i) => `t${i}`) }, 'tags'],
    [{ query: 'x', updated_after: 'yesterday' }, 'updated_after'],
    [{ query: 'x', updated_after: '2026-02-30T00:00:00Z' }, 'updated_after'],
    [{ query: 'x', include_content: 'no' }, 'include_content'],
  ])('when the search body is %j, then 422 naming %s', async (body, field) => {
    const res = await search(body);
    expect(res.status).toBe(422);
    expect(res.json.detail[0].loc[1]).toBe(field);
  });
});
