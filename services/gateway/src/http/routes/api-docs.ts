import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { gzipSync } from 'node:zlib';
import type Koa from 'koa';
import type Router from '@koa/router';
import { API_PREFIX } from '../route';

/** Where the interactive API docs (swagger-ui) are served: public, documentation only. */
export const DOCS_PATH = `${API_PREFIX}/docs`;

interface Asset {
  body: Buffer;
  gzip?: Buffer;
  type: string;
  etag: string;
}

/** The only files of swagger-ui-dist ever served: nothing else of the package is reachable. */
const PACKAGE_FILES: Record<string, string> = {
  'swagger-ui-bundle.js': 'text/javascript; charset=utf-8',
  'swagger-ui.css': 'text/css; charset=utf-8',
  'index.css': 'text/css; charset=utf-8',
  'favicon-32x32.png': 'image/png',
  'favicon-16x16.png': 'image/png',
};

// swagger-ui's own page loads the petstore and a standalone layout with a box for any other
// URL; this one loads only this gateway's document, over the same origin the page came from
// (so `<tenant>.localhost` and every tenant host call their own tenant). The token entered in
// Authorize stays in the page's memory (persistAuthorization off): a token is a secret, and
// localStorage would keep it in the browser profile after the tab is closed. validatorUrl null:
// no badge fetched from validator.swagger.io.
const INITIALIZER = `window.ui = SwaggerUIBundle({
  url: ${JSON.stringify(`${API_PREFIX}/openapi.json`)},
  dom_id: '#swagger-ui',
  layout: 'BaseLayout',
  presets: [SwaggerUIBundle.presets.apis],
  deepLinking: true,
  validatorUrl: null,
  persistAuthorization: false,
  queryConfigEnabled: false,
  displayRequestDuration: true,
  filter: true,
});
`;

// Scripts, styles and images only from this origin (swagger-ui's icons are data: URIs in its
// CSS); calls ("Try it") only to this origin; nothing may frame the page.
const CONTENT_SECURITY_POLICY = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "font-src 'self'",
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');

const SECURITY_HEADERS = {
  'Content-Security-Policy': CONTENT_SECURITY_POLICY,
  'X-Content-Type-Options': 'nosniff',
  'Referrer-Policy': 'no-referrer',
  'Cross-Origin-Resource-Policy': 'same-origin',
};

const asset = (body: Buffer, type: string): Asset => ({
  body,
  // Only text is worth compressing (the bundle: 1.7 MB, ~0.5 MB gzipped); done once.
  gzip: type.startsWith('image/') ? undefined : gzipSync(body, { level: 9 }),
  type,
  etag: `"${createHash('sha256').update(body).digest('base64url').slice(0, 27)}"`,
});

interface Docs {
  page: Asset;
  /** File name → asset, below `${DOCS_PATH}/assets/<stamp>/`. */
  assets: Map<string, Asset>;
  /** A hash over every asset: their URLs change whenever one of them does, so they are immutable. */
  stamp: string;
}

function loadDocs(): Docs {
  const dir = dirname(require.resolve('swagger-ui-dist/package.json'));
  const assets = new Map<string, Asset>();
  for (const [name, type] of Object.entries(PACKAGE_FILES))
    assets.set(name, asset(readFileSync(join(dir, name)), type));
  assets.set('initializer.js', asset(Buffer.from(INITIALIZER), 'text/javascript; charset=utf-8'));
  const stamp = createHash('sha256')
    .update([...assets.values()].map((a) => a.etag).join())
    .digest('hex')
    .slice(0, 16);
  const base = `${DOCS_PATH}/assets/${stamp}`;
  const page = `<!doctype html>
<html lang="en">
  <head>
    <meta charset="utf-8">
    <meta name="viewport" content="width=device-width, initial-scale=1">
    <title>Knowledge service API</title>
    <link rel="stylesheet" href="${base}/swagger-ui.css">
    <link rel="stylesheet" href="${base}/index.css">
    <link rel="icon" type="image/png" href="${base}/favicon-32x32.png" sizes="32x32">
    <link rel="icon" type="image/png" href="${base}/favicon-16x16.png" sizes="16x16">
  </head>
  <body>
    <div id="swagger-ui"></div>
    <script src="${base}/swagger-ui-bundle.js"></script>
    <script src="${base}/initializer.js"></script>
  </body>
</html>
`;
  return { page: asset(Buffer.from(page), 'text/html; charset=utf-8'), assets, stamp };
}

/** The asset, its ETag answered with 304, gzipped when the client takes it. */
function send(ctx: Koa.Context, file: Asset, cacheControl: string): void {
  const gzip = file.gzip && ctx.acceptsEncodings('gzip', 'identity') === 'gzip';
  ctx.set(SECURITY_HEADERS);
  ctx.set('Cache-Control', cacheControl);
  ctx.vary('Accept-Encoding');
  ctx.type = file.type;
  // One representation, one ETag: the gzipped bytes are another.
  ctx.etag = gzip ? `${file.etag.slice(0, -1)}-gzip"` : file.etag;
  ctx.status = 200;
  if (ctx.fresh) {
    ctx.status = 304;
    return;
  }
  if (gzip) ctx.set('Content-Encoding', 'gzip');
  ctx.body = gzip ? file.gzip : file.body;
}

/**
 * GET /api/knowledge/docs (and /docs/): swagger-ui over the served OpenAPI document, with its
 * assets from the swagger-ui-dist package (no CDN: it works offline) under
 * /docs/assets/<stamp>/<file>, a fixed list of files. Not API operations: not in the OpenAPI
 * document, no tenant and no token (the page holds no data; its calls carry the token the user
 * enters). The package is read on the first request, not at start.
 */
export function apiDocsRoutes(router: Router): void {
  let docs: Docs | undefined;
  const loaded = () => (docs ??= loadDocs());
  const page = (ctx: Koa.Context) => send(ctx, loaded().page, 'no-cache');
  router.get(DOCS_PATH, page);
  router.get(`${DOCS_PATH}/`, page);
  router.get(`${DOCS_PATH}/assets/:stamp/:file`, (ctx) => {
    const { stamp, assets } = loaded();
    const file = ctx.params.stamp === stamp ? assets.get(ctx.params.file ?? '') : undefined;
    if (file) send(ctx, file, 'public, max-age=31536000, immutable');
    // otherwise no body: the error handler's 404, as for any unknown path
  });
}
