/**
 * What the benchmark's HTTP client costs per call: `fetch` against undici's `request` (the layer
 * the Elasticsearch client uses), against a local server answering a similar-search-sized JSON,
 * one call at a time, client and server in this process. Prints p50 and CPU per call; exits.
 *
 *   node tools/bench/dist/client-cost.js
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Agent, request } from 'undici';

const CALLS = 2000;
const WARM_UP = 300;

async function main(): Promise<void> {
  const answer = JSON.stringify({
    hits: Array.from({ length: 10 }, (_, i) => ({ id: `p${i}`, title: 'x'.repeat(200), score: i })),
  });
  const server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      res.setHeader('content-type', 'application/json');
      res.end(answer);
    });
  });
  server.keepAliveTimeout = 60_000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/search/similar`;
  const body = JSON.stringify({ anchor_product_ids: ['a'], limit: 10 });
  const headers = { 'content-type': 'application/json', authorization: 'Bearer x' };
  const dispatcher = new Agent({ keepAliveTimeout: 60_000 });
  const clients: [string, () => Promise<unknown>][] = [
    ['fetch', async () => JSON.parse(await (await fetch(url, { method: 'POST', headers, body })).text())],
    [
      'undici request',
      async () => JSON.parse(await (await request(url, { method: 'POST', headers, body, dispatcher })).body.text()),
    ],
  ];
  try {
    for (const [name, call] of [...clients, ...clients]) {
      for (let i = 0; i < WARM_UP; i++) await call();
      const times: number[] = [];
      const cpu = process.cpuUsage();
      for (let i = 0; i < CALLS; i++) {
        const started = process.hrtime.bigint();
        await call();
        times.push(Number(process.hrtime.bigint() - started) / 1e6);
      }
      const used = process.cpuUsage(cpu);
      times.sort((a, b) => a - b);
      console.log(
        `${name.padEnd(15)} p50 ${times[CALLS / 2]!.toFixed(3)} ms, ` +
          `CPU per call (client and server) ${((used.user + used.system) / 1000 / CALLS).toFixed(3)} ms`,
      );
    }
  } finally {
    await dispatcher.close();
    server.close();
  }
}

void main();
