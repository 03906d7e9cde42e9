/**
 * The catalogue import CLI: `admin products import --tenant <id> --site <slug> <file.jsonl>`.
 * Good lines are imported, bad ones reported with their line numbers, a summary line at the end.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { startStack, uniqueId, type Stack } from '../support/stack';

const FIXTURE = resolve(__dirname, '../fixtures/catalog-import.jsonl');
const ADMIN = resolve(__dirname, '../../tools/admin/dist/main.js');

let stack: Stack;
const acme = uniqueId('acme');
let admin: string;

beforeAll(async () => {
  stack = await startStack();
  admin = await stack.tenantWithToken(acme, 'Admin');
  await stack.request(acme, '/api/knowledge/sites', {
    method: 'POST',
    token: admin,
    body: { slug: 'shop', name: 'Shop' },
  });
});
afterAll(async () => {
  await stack?.stop();
});

describe('products import CLI', () => {
  test(
    'when a file has good and bad lines, then the good ones are imported, ' +
      'each bad one is reported with its line number, and a summary ends it',
    async () => {
      const res = await stack.catalogAdmin('products', 'import', '--tenant', acme, '--site', 'shop', FIXTURE);
      expect(res.code).toBe(1);
      expect(res.stdout.at(-1)).toMatch(
        /^Imported 7 lines into site "shop" of tenant "[^"]+": 4 created, 0 updated, 0 unchanged, 3 failed; embeddings \d+ recomputed, \d+ skipped, \d+ pending$/,
      );
      expect(res.stderr).toMatch(/line 4: \(line\): Invalid JSON/);
      expect(res.stderr).toMatch(/line 5: price_current: Input should be a valid number/);
      expect(res.stderr).toMatch(/line 7: title: String should have at least 1 character/);
      expect(res.stderr).not.toMatch(/line [1238]:/);
      // Indexed through the similarity service during the import: searchable at once.
      expect(res.stdout.at(-1)).toMatch(/embeddings 4 recomputed, 0 skipped, 0 pending$/);
      const found = await stack.request(acme, '/api/knowledge/search/products', {
        method: 'POST',
        token: admin,
        body: { query: 'waterproof shell' },
      });
      expect(found.json.products[0]).toMatchObject({ title: 'Rain jacket', price_msrp: '100' });

      // The imported products, upserted by external id: exact prices, variants resolved in file order.
      const again = await stack.request(acme, '/api/knowledge/products/bulk?site_id=shop', {
        method: 'POST',
        token: admin,
        body: { products: [{ external_id: 'imp-2', title: 'Trail runner family', language: 'de', is_parent: true }] },
      });
      expect(again.json.results[0].status).toBe('unchanged');
      const parentId = again.json.results[0].id as string;
      const red = await stack.request(acme, '/api/knowledge/products?site_id=shop', {
        method: 'POST',
        token: admin,
        body: {
          external_id: 'imp-2-red',
          title: 'Trail runner red',
          language: 'de',
          parent_external_id: 'imp-2',
          is_variant: true,
          price_current: 0.1,
        },
      });
      expect(red.status).toBe(200);
      expect(red.json).toMatchObject({ parent_product_id: parentId, price_current: '0.1' });
    },
  );

  test('when the same file is imported again, then nothing changes: every good line is unchanged', async () => {
    const res = await stack.catalogAdmin('products', 'import', '--tenant', acme, '--site', 'shop', FIXTURE);
    expect(res.stdout.at(-1)).toMatch(
      /: 0 created, 0 updated, 4 unchanged, 3 failed; embeddings 0 recomputed, 4 skipped, 0 pending$/,
    );
  });

  test('when the site, the tenant or the file is wrong, then a usage error and nothing is imported', async () => {
    await expect(stack.catalogAdmin('products', 'import', '--tenant', acme, '--site', 'nope', FIXTURE)).rejects.toThrow(
      /Site "nope" not found/,
    );
    await expect(
      stack.catalogAdmin('products', 'import', '--tenant', 'no-such-tenant', '--site', 'shop', FIXTURE),
    ).rejects.toThrow(/not found/);
    await expect(
      stack.catalogAdmin('products', 'import', '--tenant', acme, '--site', 'shop', '/nonexistent.jsonl'),
    ).rejects.toThrow(/Cannot read/);
    await expect(stack.catalogAdmin('products', 'import', '--site', 'shop', FIXTURE)).rejects.toThrow(/--tenant/);
  });

  test(
    'when run through `npm run admin` (the real entry point), then ' +
      'exit code, stderr report and summary line are as documented',
    async () => {
      const dir = mkdtempSync(join(tmpdir(), 'kb-import-'));
      const file = join(dir, 'two.jsonl');
      writeFileSync(
        file,
        '{"external_id":"cli-1","title":"One","language":"de","price_current":19.99}\n{"title":"bad","language":"d"}\n',
      );
      const run = (args: string[]) =>
        new Promise<{ code: number; stdout: string; stderr: string }>((done) =>
          execFile(
            process.execPath,
            [ADMIN, ...args],
            { env: { ...process.env, MONGODB_URI: stack.mongoUri, SIMILARITY_GRPC_ADDR: '127.0.0.1:1' } },
            (err, stdout, stderr) => done({ code: err ? ((err as { code?: number }).code ?? 1) : 0, stdout, stderr }),
          ),
        );
      const res = await run(['products', 'import', '--tenant', acme, '--site', 'shop', file]);
      expect(res.code).toBe(1);
      expect(res.stdout.trim().split('\n').at(-1)).toMatch(
        /: 1 created, 0 updated, 0 unchanged, 1 failed; embeddings 0 recomputed, 0 skipped, 1 pending$/,
      );
      expect(res.stderr).toMatch(/line 2: language: String should have at least 2 characters/);
      const usage = await run(['products', 'import', '--tenant', acme, file]);
      expect(usage.code).toBe(2);
      expect(usage.stderr).toMatch(/--site/);
    },
  );
});
