/**
 * The interactive API docs (/api/knowledge/docs) in a real browser, as a newcomer opens them:
 * Debian's headless Chromium driven by playwright-core. Every operation of the served OpenAPI
 * document renders; nothing the page loads fails, nothing goes anywhere but the gateway (the
 * page works offline) and the console stays clean (a Content-Security-Policy refusal would show
 * there); then "Try it out" with a real token lists the tenant's categories: 200 and the body.
 *
 * Needs Chromium (`apt-get install chromium`; CHROMIUM_PATH overrides /usr/bin/chromium); without
 * it the group is skipped with the reason in its title, a failure under KB_REQUIRE_BROWSER_TESTS=1
 * (CI).
 */
import { existsSync } from 'node:fs';
import { chromium, type Browser, type Page } from 'playwright-core';
import { startStack, uniqueId, type Stack } from '../support/stack';

const CHROMIUM = process.env.CHROMIUM_PATH || '/usr/bin/chromium';

function skipReason(): string | undefined {
  if (existsSync(CHROMIUM)) return undefined;
  const reason = `no Chromium at ${CHROMIUM} (apt-get install chromium, or set CHROMIUM_PATH)`;
  if (process.env.KB_REQUIRE_BROWSER_TESTS === '1')
    throw new Error(`KB_REQUIRE_BROWSER_TESTS=1 but the browser test cannot run: ${reason}`);
  return reason;
}
const skip = skipReason();
const suite = skip ? describe.skip : describe;

const METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'];

/** "GET /api/knowledge/categories" for every operation of the document. */
function operationsOf(doc: { paths: Record<string, Record<string, unknown>> }): string[] {
  return Object.entries(doc.paths).flatMap(([path, item]) =>
    Object.keys(item)
      .filter((m) => METHODS.includes(m))
      .map((m) => `${m.toUpperCase()} ${path}`),
  );
}

/** What the page did that it should not have: failed or refused requests, other hosts, console errors. */
interface Trouble {
  failed: string[];
  elsewhere: string[];
  errors: string[];
}

function watch(page: Page, origin: string): Trouble {
  const trouble: Trouble = { failed: [], elsewhere: [], errors: [] };
  page.on('request', (req) => {
    const url = new URL(req.url());
    if (url.protocol !== 'data:' && url.origin !== origin) trouble.elsewhere.push(req.url());
  });
  page.on('requestfailed', (req) => trouble.failed.push(`${req.url()}: ${req.failure()?.errorText}`));
  page.on('response', (res) => {
    if (res.status() >= 400) trouble.failed.push(`${res.url()}: ${res.status()}`);
  });
  page.on('console', (msg) => {
    if (msg.type() === 'error') trouble.errors.push(msg.text());
  });
  page.on('pageerror', (err) => trouble.errors.push(String(err)));
  return trouble;
}

suite(skip ? `API docs in a browser (skipped: ${skip})` : 'API docs in a browser', () => {
  let stack: Stack;
  let browser: Browser;
  const tenant = uniqueId('docs');
  let token = '';

  beforeAll(async () => {
    [stack, browser] = await Promise.all([
      startStack(),
      // --no-sandbox: the tests run as root, where Chromium's sandbox cannot start.
      chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox', '--disable-dev-shm-usage'] }),
    ]);
    token = await stack.tenantWithToken(tenant, 'Admin');
  });
  afterAll(async () => {
    await browser?.close();
    await stack?.stop();
  });

  const WHEN = 'when a newcomer opens the docs and tries a call with a token';
  const THEN =
    'then every operation renders, nothing fails or leaves the gateway, and the call answers 200 with the body';
  test(`${WHEN}, ${THEN}`, async () => {
    const name = `Returns ${uniqueId('docs')}`;
    const created = await stack.request(tenant, '/api/knowledge/categories', { token, method: 'POST', body: { name } });
    expect(created.status).toBe(201);
    const doc = (await stack.request(tenant, '/api/knowledge/openapi.json')).json;
    const operations = operationsOf(doc).sort();
    expect(operations.length).toBeGreaterThan(20);

    const origin = `http://${tenant}.localhost:${stack.port}`;
    const page = await browser.newPage();
    const trouble = watch(page, origin);
    const sent: { url: string; authorization?: string }[] = [];
    page.on('request', (req) => sent.push({ url: req.url(), authorization: req.headers().authorization }));

    // The address the README gives (with a trailing slash it is the same page: the unit tests).
    const response = await page.goto(`${origin}/api/knowledge/docs`);
    expect(response?.status()).toBe(200);
    const blocks = page.locator('.opblock');
    // (Expressions the page evaluates are strings: the tests are compiled without the DOM types.)
    await page.waitForFunction(`document.querySelectorAll('.opblock').length >= ${operations.length}`, undefined, {
      timeout: 15_000,
    });
    const rendered = await blocks.evaluateAll((els) =>
      els.map((el) => {
        const method = el.querySelector('.opblock-summary-method')?.textContent;
        return `${method} ${el.querySelector('.opblock-summary-path')?.getAttribute('data-path')}`;
      }),
    );
    expect(rendered.sort()).toEqual(operations);

    // Authorize with the tenant's real token, then list categories through "Try it out".
    await page.locator('button.authorize').first().click();
    await page.locator('.modal-ux input').first().fill(token);
    await page.locator('.modal-ux button.authorize').click();
    await page.locator('.modal-ux button.btn-done').click();
    const list = page.locator('.opblock-get', {
      has: page.locator('.opblock-summary-path[data-path="/api/knowledge/categories"]'),
    });
    await list.locator('.opblock-summary').first().click();
    await list.locator('button.try-out__btn').click();
    await list.locator('button.execute').click();
    const live = list.locator('.live-responses-table tr.response');
    await expect(live.locator('.response-col_status').first().textContent({ timeout: 10_000 })).resolves.toContain(
      '200',
    );
    await expect(live.locator('.response-col_description').first().textContent()).resolves.toContain(name);
    const call = sent.find((r) => new URL(r.url).pathname === '/api/knowledge/categories');
    expect(call).toEqual({ url: `${origin}/api/knowledge/categories`, authorization: `Bearer ${token}` });

    expect(trouble).toEqual({ failed: [], elsewhere: [], errors: [] });
    // The token was kept in the page only (persistAuthorization off): nothing in storage.
    expect(await page.evaluate('JSON.stringify(localStorage)')).not.toContain(token);
    await page.close();
  }, 45_000); // ~27 s seen with the load average at 12 on 2 cores (a CI run beside it)
});
