/** The interactive API docs: one page, a fixed list of swagger-ui files, strict headers, no API operation. */
import { statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { startGateway, type TestGateway } from './support/gateway';

let gw: TestGateway;
beforeAll(async () => {
  gw = await startGateway();
});
afterAll(() => gw.close());

const DOCS = '/api/knowledge/docs';
const PACKAGE = dirname(require.resolve('swagger-ui-dist/package.json'));
const CSP = (h: Record<string, unknown>) => String(h['content-security-policy']);

/** The page's script, style sheet and icon URLs, in order. */
async function assetUrls(): Promise<string[]> {
  const page = await gw.request(DOCS, { token: null });
  return [...page.text.matchAll(/(?:src|href)="([^"]+)"/g)].map((m) => m[1] as string);
}

test('when the docs are asked for, with or without a trailing slash, then the same page with strict headers, without a token', async () => {
  const [bare, slash] = [await gw.request(DOCS, { token: null }), await gw.request(`${DOCS}/`, { token: null })];
  for (const res of [bare, slash]) {
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(res.headers['x-content-type-options']).toBe('nosniff');
    expect(res.headers['cache-control']).toBe('no-cache');
    expect(res.headers.etag).toMatch(/^"[\w-]+"$/);
    expect(CSP(res.headers)).toContain("script-src 'self'");
    expect(CSP(res.headers)).toContain("style-src 'self'");
    expect(CSP(res.headers)).toContain("connect-src 'self'");
    expect(CSP(res.headers)).toContain("default-src 'none'");
    expect(CSP(res.headers)).not.toContain('unsafe');
    expect(res.text).toContain('<div id="swagger-ui"></div>');
  }
  expect(slash.text).toBe(bare.text);
  // Every URL the page loads is an absolute path on this origin, below the docs.
  const urls = await assetUrls();
  expect(urls.length).toBeGreaterThanOrEqual(4);
  for (const url of urls) expect(url).toMatch(/^\/api\/knowledge\/docs\/assets\/[0-9a-f]{16}\/[\w.-]+$/);
});

test('when the page is asked for again with its ETag, then 304 with no body', async () => {
  const first = await gw.request(DOCS, { token: null });
  const again = await gw.request(DOCS, { token: null, headers: { 'If-None-Match': String(first.headers.etag) } });
  expect([again.status, again.text]).toEqual([304, '']);
});

test('when each asset the page names is fetched, then it is the package file, immutable, with its content type and nosniff', async () => {
  const types: Record<string, string> = {
    js: 'text/javascript; charset=utf-8',
    css: 'text/css; charset=utf-8',
    png: 'image/png',
  };
  for (const url of await assetUrls()) {
    const res = await gw.request(url, { token: null });
    const name = url.split('/').at(-1) as string;
    expect([url, res.status]).toEqual([url, 200]);
    expect(res.headers['content-type']).toBe(types[name.split('.').at(-1) as string]);
    expect(res.headers['cache-control']).toBe('public, max-age=31536000, immutable');
    expect(res.headers['x-content-type-options']).toBe('nosniff');
    expect(res.headers.etag).toBeDefined();
    if (name !== 'initializer.js')
      expect(Number(res.headers['content-length'])).toBe(statSync(join(PACKAGE, name)).size);
  }
  const init = await gw.request((await assetUrls()).find((u) => u.endsWith('/initializer.js')) as string, {
    token: null,
  });
  expect(init.text).toContain('url: "/api/knowledge/openapi.json"');
  expect(init.text).toContain('persistAuthorization: false');
  expect(init.text).toContain('validatorUrl: null');
});

test('when the client takes gzip, then the bundle comes gzipped under its own ETag, varying by Accept-Encoding', async () => {
  const url = (await assetUrls()).find((u) => u.endsWith('/swagger-ui-bundle.js')) as string;
  const plain = await gw.request(url, { token: null });
  const gzipped = await gw.request(url, { token: null, headers: { 'Accept-Encoding': 'gzip, deflate, br' } });
  expect(gzipped.headers['content-encoding']).toBe('gzip');
  expect(gzipped.headers.vary).toMatch(/Accept-Encoding/);
  expect(Number(gzipped.headers['content-length'])).toBeLessThan(Number(plain.headers['content-length']) / 2);
  expect(gzipped.headers.etag).not.toBe(plain.headers.etag);
  const revalidated = await gw.request(url, {
    token: null,
    headers: { 'Accept-Encoding': 'gzip', 'If-None-Match': String(gzipped.headers.etag) },
  });
  expect(revalidated.status).toBe(304);
});

test.each([
  ['a file of the package not on the list', 'swagger-ui.js'],
  ['the package manifest', 'package.json'],
  ['an encoded path out of the package', '..%2F..%2Fpackage.json'],
  ['an encoded absolute path', '%2Fetc%2Fpasswd'],
])('when %s is asked for, then 404 in the error shape', async (_what, file) => {
  const [, stamp] = /assets\/(\w+)\//.exec((await assetUrls())[0] as string) as RegExpExecArray;
  const res = await gw.request(`${DOCS}/assets/${stamp}/${file}`, { token: null });
  expect([res.status, res.json]).toEqual([404, { detail: 'Not Found' }]);
});

test('when an asset is asked for under another stamp or path, then 404', async () => {
  for (const path of [
    `${DOCS}/assets/0000000000000000/swagger-ui-bundle.js`,
    `${DOCS}/swagger-ui-bundle.js`,
    `${DOCS}/assets/../../openapi.json`,
    `${DOCS}/index.html`,
  ]) {
    const res = await gw.request(path, { token: null });
    expect([path, res.status]).toEqual([path, 404]);
  }
});

test('when the docs are written to, then 405 in the error shape, as for any route', async () => {
  const res = await gw.request(DOCS, { token: null, method: 'POST', body: {} });
  expect([res.status, res.json]).toEqual([405, { detail: 'Method Not Allowed' }]);
});

test('when the OpenAPI document is read, then the docs routes are not in it', async () => {
  const doc = (await gw.request('/api/knowledge/openapi.json', { token: null })).json as { paths: object };
  expect(Object.keys(doc.paths).filter((p) => p.includes('/docs'))).toEqual([]);
});
