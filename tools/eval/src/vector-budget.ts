/**
 * What the vectors cost Elasticsearch: index bytes, the vector files a node keeps in memory for
 * kNN, and the heap, per 1,000 entries and per 1,000 products, for each vector index type. No
 * services and no model: documents are built as the similarity service builds them (passages,
 * sentences, stems, the hit) from the evaluation corpus (long entries) and the demo data (short
 * ones), with a stand-in embedder (a seeded pseudo-random unit vector per text: sizes do not depend
 * on what a vector says). See docs/operations.md "Vector budget".
 *
 *   node tools/eval/dist/vector-budget.js [--entries 200] [--demo-entries 1000] [--products 1000]
 *       [--variants hnsw,int8_hnsw,bbq_hnsw,hnsw-no-context,bbq_hnsw-no-context] [--out FILE]
 *
 * ELASTICSEARCH_URL names a cluster to use (else a fresh local one, as npm run eval starts). Each
 * variant's index is filled, refreshed and force-merged to one segment before it is measured.
 */
import { createHash } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Client, type estypes } from '@elastic/elasticsearch';
import { catalogue } from '@kb/bench';
import { checkoutDir, startBackends } from '@kb/devstack';
import { centralities, entryMappings, productMappings } from '@kb/search';
import { passageVectorText, sentenceContextText, sentencesOfPassages, topicVectorText } from '@kb/similarity';
import { analyzeText, splitPassages, statedAnswerTypes } from '@kb/text';
import { buildCorpus } from './corpus/generate';

const DIMS = 384;
const log = (msg: string) => process.stdout.write(`[vector-budget] ${msg}\n`);

/** A vector index type, and whether the sentences keep their context vector. */
interface Variant {
  name: string;
  type: 'hnsw' | 'int8_hnsw' | 'bbq_hnsw';
  context: boolean;
}

function variantOf(name: string): Variant {
  const noContext = name.endsWith('-no-context');
  const type = noContext ? name.slice(0, -'-no-context'.length) : name;
  if (type !== 'hnsw' && type !== 'int8_hnsw' && type !== 'bbq_hnsw') throw new Error(`unknown variant ${name}`);
  return { name, type, context: !noContext };
}

/** The stand-in embedder: a unit vector drawn from a generator seeded by the text (and the copy it belongs to). */
function standInVector(text: string): number[] {
  const seed = createHash('sha256').update(text).digest();
  let a = seed.readUInt32LE(0);
  const next = () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const v = Array.from({ length: DIMS }, () => next() + next() + next() - 1.5);
  const norm = Math.hypot(...v);
  return v.map((x) => Number((x / norm).toFixed(5)));
}

interface EntryText {
  title: string;
  summary: string;
  content: string;
  language: string;
  tags: string[];
}

/** The evaluation corpus's entries (10-24 KB of Markdown each). */
function evalEntries(): EntryText[] {
  return buildCorpus().entries.map((e) => ({ ...e }));
}

/** The demo tenant's entries (articles of 2.5-5 KB, and short notes, FAQs and glossary entries). */
function demoEntries(): EntryText[] {
  const dir = join(checkoutDir(), 'tools/devstack/demo');
  const rows = JSON.parse(readFileSync(join(dir, 'entries.json'), 'utf8')) as {
    title: string;
    summary?: string;
    content?: string;
    content_file?: string;
    language: string;
    tags?: string[];
  }[];
  return rows.map((r) => ({
    title: r.title,
    summary: r.summary ?? '',
    content: r.content_file ? readFileSync(join(dir, r.content_file), 'utf8') : (r.content ?? ''),
    language: r.language,
    tags: r.tags ?? [],
  }));
}

/** An entry's document as the similarity service writes it (domain/index-entries.ts, entrySource). */
function entryDocument(
  e: EntryText,
  copy: number,
  context: boolean,
): { doc: Record<string, unknown>; vectors: number } {
  const salt = `#${copy}`;
  const passages = splitPassages(e.content);
  const sentences = sentencesOfPassages(passages);
  const sentenceVectors = sentences.map((ss) => ss.map((s) => standInVector(s + salt)));
  const flat = centralities(sentenceVectors.flat());
  let next = 0;
  const doc = {
    tenant_id: 'budget',
    visibility: 'internal',
    type: 'knowledge',
    language: e.language,
    tags: e.tags,
    title: e.title,
    summary: e.summary,
    content: e.content,
    search_keywords: [],
    stems: analyzeText([e.title, e.summary].join('\n'), e.language),
    updated_at: new Date(0).toISOString(),
    version: 1,
    hit: { entry: { id: `entry-${copy}`, title: e.title, summary: e.summary, tags: e.tags, language: e.language } },
    vector: standInVector(`${e.title}\n${e.content.slice(0, 2000)}${salt}`),
    topic_vector: standInVector(topicVectorText(e) + salt),
    has_topic: true,
    passages: passages.map((p) => ({
      start: p.start,
      end: p.end,
      stems: analyzeText([...p.headings, p.text].join('\n'), e.language),
      vector: standInVector(passageVectorText(e.title, p) + salt),
      answers: statedAnswerTypes(p.text, e.language),
    })),
    sentences: passages.flatMap((p, i) =>
      sentences[i]!.map((s, j) => ({
        start: p.start,
        end: p.end,
        vector: sentenceVectors[i]![j]!,
        ...(context ? { context_vector: standInVector(sentenceContextText(e.title, p, s) + salt) } : {}),
        centrality: flat[next++]!,
      })),
    ),
  };
  const vectors = 2 + passages.length + next * (context ? 2 : 1);
  return { doc, vectors };
}

/** A product's document as the similarity service writes it (index-products.ts), three vectors. */
function productDocument(p: ReturnType<typeof catalogue>[number], i: number): Record<string, unknown> {
  const props = Object.entries(p.properties)
    .map(([k, v]) => `${k}: ${v}`)
    .join('\n');
  const attrs = Object.entries(p.attributes)
    .map(([k, v]) => `${k}: ${v}`)
    .join('\n');
  return {
    tenant_id: 'budget',
    site_id: 'site',
    language: p.language,
    availability: p.availability,
    external_id: p.external_id,
    sku: p.sku,
    gtin: p.gtin,
    brand: p.brand,
    category: p.category,
    title: p.title,
    search_keywords: p.search_keywords,
    description: p.description,
    short_description: p.short_description,
    price_current: p.price_current,
    is_parent: p.is_parent ?? false,
    is_variant: p.is_variant ?? false,
    version: 1,
    hit: { id: `product-${i}`, ...p, price_current: String(p.price_current), has_similarity_anchor: false },
    vector_description: standInVector(`${p.title}\n${p.description}`),
    vector_properties: standInVector(`${p.title}\n${props}#${i}`),
    vector_attributes: standInVector(`${p.title}\n${attrs}#${i}`),
  };
}

/** The mapping with every dense_vector's index type set, and the sentences' context vector left out if asked. */
function withVariant(mapping: estypes.MappingTypeMapping, v: Variant): estypes.MappingTypeMapping {
  const visit = (props: Record<string, estypes.MappingProperty>): Record<string, estypes.MappingProperty> =>
    Object.fromEntries(
      Object.entries(props)
        .filter(([name]) => v.context || name !== 'context_vector')
        .map(([name, p]) => {
          if (p.type === 'dense_vector') {
            const m = p as estypes.MappingDenseVectorProperty;
            return [name, { ...m, index_options: { ...m.index_options, type: v.type } }];
          }
          if (p.type === 'nested') {
            const n = p as estypes.MappingNestedProperty;
            return [name, { ...n, properties: visit(n.properties ?? {}) }];
          }
          return [name, p];
        }),
    );
  return { ...mapping, properties: visit(mapping.properties ?? {}) };
}

/** Index bytes, vector files and memory of one filled index. */
interface Measured {
  index: string;
  variant: string;
  items: number;
  vectors: number;
  luceneDocs: number;
  storeBytes: number;
  /** Bytes of each Lucene file kind (extension: vec raw floats, vex HNSW graph, veq int8, veb bbq, ...). */
  files: Record<string, number>;
  /** _disk_usage: each vector field's knn_vectors bytes. */
  knnByField: Record<string, number>;
  /** The files an HNSW search reads (graph and the vectors it compares: quantized where quantized). */
  searchBytes: number;
  /** Heap held for the index's segments: nested documents' parent bitsets, and the rest (segments stats). */
  fixedBitSetBytes: number;
  heapUsedBefore: number;
  heapUsedAfter: number;
  indexSeconds: number;
}

/**
 * Elasticsearch 9.2's view of the vector files kNN reads through the page cache (`_stats/dense_vector`,
 * `off_heap`): vec raw floats, vex the HNSW graph, veq int8 vectors, veb bbq vectors, in bytes.
 */
async function offHeap(es: Client, index: string): Promise<Record<string, number>> {
  const res = await es.transport.request<{
    _all: { primaries: { dense_vector?: { off_heap?: Record<string, number> } } };
  }>({ method: 'GET', path: `/${encodeURIComponent(index)}/_stats/dense_vector` });
  const files: Record<string, number> = {};
  for (const [key, bytes] of Object.entries(res._all.primaries.dense_vector?.off_heap ?? {})) {
    const ext = /^total_(\w+)_size_bytes$/.exec(key)?.[1];
    if (ext) files[ext] = bytes;
  }
  return files;
}

async function heapUsed(es: Client): Promise<number> {
  const res = await es.nodes.stats({ metric: 'jvm' });
  return Object.values(res.nodes)[0]?.jvm?.mem?.heap_used_in_bytes ?? 0;
}

async function fill(
  es: Client,
  index: string,
  mapping: estypes.MappingTypeMapping,
  docs: Iterable<Record<string, unknown>>,
): Promise<number> {
  await es.indices.delete({ index }, { ignore: [404] });
  await es.indices.create({
    index,
    settings: { number_of_shards: 1, number_of_replicas: 0, 'index.refresh_interval': '-1' },
    mappings: mapping,
  });
  const began = performance.now();
  let batch: unknown[] = [];
  let bytes = 0;
  let id = 0;
  const flush = async () => {
    if (batch.length === 0) return;
    const res = await es.bulk({ operations: batch });
    if (res.errors) throw new Error(`bulk: ${JSON.stringify(res.items.find((i) => i.index?.error))}`);
    batch = [];
    bytes = 0;
  };
  for (const doc of docs) {
    batch.push({ index: { _index: index, _id: String(id++) } }, doc);
    bytes += 5_000 + JSON.stringify(doc).length;
    if (bytes > 6_000_000) await flush();
  }
  await flush();
  await es.indices.refresh({ index });
  await es.indices.forcemerge({ index, max_num_segments: 1 }, { requestTimeout: 3_600_000 });
  await es.indices.refresh({ index });
  return (performance.now() - began) / 1000;
}

async function measure(
  es: Client,
  index: string,
  variant: Variant,
  items: number,
  vectors: number,
  heapBefore: number,
  seconds: number,
): Promise<Measured> {
  const stats = await es.indices.stats({ index, metric: ['store', 'docs', 'segments'] });
  const primaries = stats._all.primaries!;
  const files = await offHeap(es, index);
  const usage = (await es.indices.diskUsage({ index, run_expensive_tasks: true })) as Record<
    string,
    { fields?: Record<string, { knn_vectors_in_bytes?: number }> }
  >;
  const knnByField: Record<string, number> = {};
  for (const [field, u] of Object.entries(usage[index]?.fields ?? {}))
    if ((u.knn_vectors_in_bytes ?? 0) > 0) knnByField[field] = u.knn_vectors_in_bytes!;
  const search = variant.type === 'hnsw' ? ['vec', 'vex'] : ['vex', variant.type === 'int8_hnsw' ? 'veq' : 'veb'];
  return {
    index,
    variant: variant.name,
    items,
    vectors,
    luceneDocs: primaries.docs?.count ?? 0,
    storeBytes: primaries.store?.size_in_bytes ?? 0,
    files,
    knnByField,
    searchBytes: search.reduce((sum, ext) => sum + (files[ext] ?? 0), 0),
    fixedBitSetBytes: primaries.segments?.fixed_bit_set_memory_in_bytes ?? 0,
    heapUsedBefore: heapBefore,
    heapUsedAfter: await heapUsed(es),
    indexSeconds: seconds,
  };
}

function* cycle<T>(items: T[], count: number): Generator<[T, number]> {
  for (let i = 0; i < count; i++) yield [items[i % items.length]!, i];
}

function parseArgs(argv: string[]) {
  const opts = {
    entries: 200,
    demoEntries: 1000,
    products: 1000,
    variants: ['hnsw', 'int8_hnsw', 'bbq_hnsw', 'hnsw-no-context', 'bbq_hnsw-no-context'],
    out: join(checkoutDir(), 'eval-results/vector-budget.json'),
  };
  for (let i = 0; i < argv.length; i++) {
    const value = argv[++i];
    if (value === undefined) throw new Error(`${argv[i - 1]} needs a value`);
    switch (argv[i - 1]) {
      case '--entries':
        opts.entries = Number(value);
        break;
      case '--demo-entries':
        opts.demoEntries = Number(value);
        break;
      case '--products':
        opts.products = Number(value);
        break;
      case '--variants':
        opts.variants = value.split(',');
        break;
      case '--out':
        opts.out = value;
        break;
      default:
        throw new Error(`unknown option ${argv[i - 1]}`);
    }
  }
  return opts;
}

const mib = (b: number) => (b / 1048576).toFixed(1);
const per1000 = (m: Measured, b: number) => (b * 1000) / m.items;

function row(m: Measured): string {
  const field = Object.entries(m.knnByField)
    .map(([f, b]) => `${f} ${mib(per1000(m, b))}`)
    .join(', ');
  return (
    `| ${m.index} | ${m.variant} | ${m.items} | ${(m.vectors / m.items).toFixed(1)} | ${mib(per1000(m, m.storeBytes))} | ` +
    `${mib(per1000(m, m.searchBytes))} | ${mib(per1000(m, (m.files.vec ?? 0) + (m.files.vex ?? 0)))} | ${field} | ` +
    `${(per1000(m, m.fixedBitSetBytes) / 1024).toFixed(0)} | ` +
    `${mib(m.heapUsedBefore)} → ${mib(m.heapUsedAfter)} | ${m.indexSeconds.toFixed(0)} |`
  );
}

async function main(): Promise<void> {
  const opts = parseArgs(process.argv.slice(2));
  const backends = process.env.ELASTICSEARCH_URL ? undefined : await startBackends({ persistent: false, log });
  const es = new Client({ node: process.env.ELASTICSEARCH_URL ?? backends!.elasticsearchUrl, requestTimeout: 600_000 });
  const results: Measured[] = [];
  try {
    const sets = [
      { name: 'entries-eval', texts: evalEntries(), count: opts.entries },
      { name: 'entries-demo', texts: demoEntries(), count: opts.demoEntries },
    ];
    for (const name of opts.variants) {
      const variant = variantOf(name);
      for (const set of sets) {
        if (set.count === 0) continue;
        const index = `budget-${set.name}-${variant.name}`.toLowerCase();
        let vectors = 0;
        const docs = (function* () {
          for (const [e, i] of cycle(set.texts, set.count)) {
            const built = entryDocument(e, i, variant.context);
            vectors += built.vectors;
            yield built.doc;
          }
        })();
        const heap = await heapUsed(es);
        log(`${index}: ${set.count} entries`);
        const seconds = await fill(es, index, withVariant(entryMappings(DIMS), variant), docs);
        results.push(await measure(es, index, variant, set.count, vectors, heap, seconds));
        log(row(results.at(-1)!));
        await es.indices.delete({ index });
      }
      if (opts.products > 0 && variant.context) {
        const index = `budget-products-${variant.name}`;
        const products = catalogue(opts.products).map(productDocument);
        const heap = await heapUsed(es);
        const seconds = await fill(es, index, withVariant(productMappings(DIMS), variant), products);
        results.push(await measure(es, index, variant, opts.products, opts.products * 3, heap, seconds));
        log(row(results.at(-1)!));
        await es.indices.delete({ index });
      }
    }
  } finally {
    await es.close();
    await backends?.stop();
  }
  writeFileSync(opts.out, `${JSON.stringify({ at: new Date().toISOString(), opts, results }, null, 2)}\n`);
  process.stdout.write(
    '\n| index | variant | items | vectors each | store MiB / 1,000 | kNN search files MiB / 1,000 | vec+vex MiB / 1,000 | ' +
      'knn bytes by field MiB / 1,000 | nested bitsets KiB / 1,000 | heap used MiB before → after | s |\n' +
      '|---|---|---|---|---|---|---|---|---|---|---|\n' +
      results.map(row).join('\n') +
      `\n\nwritten to ${opts.out}\n`,
  );
}

main().catch((err: unknown) => {
  process.stderr.write(`vector-budget: ${(err as Error).stack ?? String(err)}\n`);
  process.exitCode = 1;
});
