/**
 * What quantizing the vectors does to a nested kNN, as entry search runs it: real model vectors
 * (those an evaluation run left in its embedding cache) grouped into documents of 40 nested
 * vectors (as an entry's sentences), the evaluation's questions embedded by the local model, and
 * for each index type the kNN's top 10 documents against exact cosine over every vector
 * (recall@10), and how far the scores it reports (documents and inner hits) are from the exact
 * cosines. See docs/experiments.md (2026-11-29, the vector budget).
 *
 *   ELASTICSEARCH_URL=… node tools/eval/dist/vector-recall.js --from <embedding cache index> [--vectors 8000]
 *       [--types hnsw,int8_hnsw,bbq_hnsw,bbq_hnsw:10]
 */
import { parseArgs } from 'node:util';
import { Client, type estypes } from '@elastic/elasticsearch';
import { ensureEmbeddingModel } from '@kb/devstack';
import { embedQueries } from './baseline';
import { buildCorpus } from './corpus/generate';

const PER_DOC = 40;
/** An index type, and after a colon its rescore_vector.oversample (`bbq_hnsw:10`); without one, Elasticsearch's default. */
function indexOptions(spec: string): estypes.MappingDenseVectorIndexOptions {
  const [type, oversample] = spec.split(':');
  return {
    type: type as estypes.MappingDenseVectorIndexOptionsType,
    m: 16,
    ef_construction: 100,
    ...(oversample !== undefined ? { rescore_vector: { oversample: Number(oversample) } } : {}),
  };
}
const log = (msg: string) => process.stdout.write(`[vector-recall] ${msg}\n`);

function decode(f32: string): Float32Array {
  const bytes = Buffer.from(f32, 'base64');
  return new Float32Array(bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength));
}

const dot = (a: ArrayLike<number>, b: ArrayLike<number>) => {
  let s = 0;
  for (let i = 0; i < a.length; i++) s += a[i]! * b[i]!;
  return s;
};
const unit = (v: Float32Array) => {
  const n = Math.sqrt(dot(v, v));
  return v.map((x) => x / n);
};

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      from: { type: 'string' },
      vectors: { type: 'string', default: '8000' },
      types: { type: 'string', default: 'hnsw,int8_hnsw,bbq_hnsw' },
    },
  });
  if (!values.from || !process.env.ELASTICSEARCH_URL) throw new Error('ELASTICSEARCH_URL and --from INDEX are needed');
  const es = new Client({ node: process.env.ELASTICSEARCH_URL, requestTimeout: 600_000 });
  const res = await es.search<{ embedding: { f32: string } }>({ index: values.from, size: Number(values.vectors) });
  const vectors = res.hits.hits.map((h) => unit(decode(h._source!.embedding.f32)));
  const docs = Array.from({ length: Math.ceil(vectors.length / PER_DOC) }, (_, d) =>
    vectors.slice(d * PER_DOC, (d + 1) * PER_DOC),
  );
  log(`${vectors.length} vectors in ${docs.length} documents`);
  const model = await ensureEmbeddingModel(log);
  const questions = buildCorpus().questions.map((q) => q.question);
  const queries = (await embedQueries(model, questions)).map(unit);
  // Exact: each document's best cosine, and each vector's.
  const exact = queries.map((q) => docs.map((vs) => vs.map((v) => dot(q, v))));
  const exactTop = exact.map((perDoc) =>
    perDoc
      .map((cs, d) => ({ d, best: Math.max(...cs) }))
      .sort((a, b) => b.best - a.best)
      .slice(0, 10),
  );
  const rows: string[] = [];
  for (const name of values.types.split(',')) {
    const options = indexOptions(name);
    const index = `recall-${name.replace(':', '-')}`;
    await es.indices.delete({ index }, { ignore: [404] });
    await es.indices.create({
      index,
      settings: { number_of_shards: 1, number_of_replicas: 0, 'index.refresh_interval': '-1' },
      mappings: {
        properties: {
          d: { type: 'integer' },
          s: {
            type: 'nested',
            properties: {
              v: { type: 'dense_vector', dims: 384, similarity: 'cosine', index: true, index_options: options },
            },
          },
        },
      },
    });
    for (let start = 0; start < docs.length; start += 50) {
      const operations = docs
        .slice(start, start + 50)
        .flatMap((vs, i) => [
          { index: { _index: index, _id: String(start + i) } },
          { d: start + i, s: vs.map((v) => ({ v: Array.from(v) })) },
        ]);
      const bulk = await es.bulk({ operations });
      if (bulk.errors) throw new Error(`bulk into ${index} failed`);
    }
    await es.indices.refresh({ index });
    await es.indices.forcemerge({ index, max_num_segments: 1 });
    await es.indices.refresh({ index });
    let recall = 0;
    let docError = 0;
    let innerError = 0;
    let inner = 0;
    for (const [qi, q] of queries.entries()) {
      const found = await es.search({
        index,
        size: 10,
        _source: false,
        knn: {
          field: 's.v',
          query_vector: Array.from(q),
          k: 10,
          num_candidates: 200,
          inner_hits: { size: 3, _source: false, fields: [] },
        },
      });
      const want = new Set(exactTop[qi]!.map((t) => t.d));
      for (const hit of found.hits.hits) {
        const d = Number(hit._id);
        if (want.has(d)) recall += 1 / 10;
        docError += Math.abs(2 * (hit._score ?? 0) - 1 - Math.max(...exact[qi]![d]!));
        for (const ih of hit.inner_hits?.['s']?.hits.hits ?? []) {
          const offset = ih._nested?.offset ?? 0;
          innerError += Math.abs(2 * (ih._score ?? 0) - 1 - exact[qi]![d]![offset]!);
          inner++;
        }
      }
    }
    const n = queries.length;
    const meanError = (sum: number, count: number) => (sum / Math.max(1, count)).toExponential(2);
    rows.push(
      `| ${name} | ${(recall / n).toFixed(3)} | ${meanError(docError, n * 10)} | ${meanError(innerError, inner)} |`,
    );
    log(rows.at(-1)!);
    await es.indices.delete({ index });
  }
  await es.close();
  process.stdout.write(
    `\n${queries.length} questions, ${vectors.length} vectors in ${docs.length} nested documents; k 10, num_candidates 200\n\n` +
      '| index type | recall@10 (documents) | mean |score − exact cosine|, documents | inner hits |\n|---|---|---|---|\n' +
      `${rows.join('\n')}\n`,
  );
}

main().catch((err: unknown) => {
  process.stderr.write(`vector-recall: ${(err as Error).stack ?? String(err)}\n`);
  process.exitCode = 1;
});
