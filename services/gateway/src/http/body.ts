import type Koa from 'koa';
import coBody from 'co-body';
import { AppError } from '@kb/platform';
import { jsonShapeProblem, keyIssues, tooDeepIssue } from '@kb/rules';

/**
 * Reads a JSON body for POST/PUT/PATCH into `ctx.request.body`: 415 for another content type or
 * an unsupported Content-Encoding, 413 above the limit, 400 for malformed JSON or a key sent
 * twice, 422 for a body nested too deep or with unsafe keys. An empty body stays undefined so
 * the route's schema reports it as missing (422). Called by the route once the caller is
 * authenticated (an anonymous caller's body is never read); read once, however often asked.
 */
export function readJsonBody(ctx: Koa.Context, limitBytes: number): Promise<void> {
  const state = ctx.state as { bodyRead?: Promise<void> };
  state.bodyRead ??= parseBody(ctx, limitBytes);
  return state.bodyRead;
}

async function parseBody(ctx: Koa.Context, limitBytes: number): Promise<void> {
  const tooLarge = () => AppError.payloadTooLarge(`Request body too large (limit ${limitBytes} bytes)`);
  if (!['POST', 'PUT', 'PATCH'].includes(ctx.method)) return;
  const length = Number(ctx.get('Content-Length') || '0');
  const chunked = Boolean(ctx.get('Transfer-Encoding'));
  if (length === 0 && !chunked) return;
  if (!ctx.is('application/json', '+json'))
    throw AppError.unsupportedMediaType('Unsupported media type: send application/json');
  if (length > limitBytes) throw tooLarge();
  const { parsed, raw } = await readJson(ctx, limitBytes, tooLarge);
  ctx.request.body = parsed;
  // The raw text stays available to routes that need numbers digit for digit (prices).
  ctx.request.rawBody = raw;
  // JSON.parse keeps the last of two equal keys; a body that says two things is refused.
  const problem = jsonShapeProblem(raw);
  if (problem?.kind === 'duplicate') throw AppError.badRequest(`Malformed JSON body: duplicate key "${problem.key}"`);
  if (problem?.kind === 'too_deep') throw AppError.invalid([tooDeepIssue(['body'])]);
  const issues = keyIssues(parsed);
  if (issues.length) throw AppError.invalid(issues.slice(0, 20));
}

/** co-body's reading, its failures as AppErrors (it raises http-errors with its own messages). */
async function readJson(
  ctx: Koa.Context,
  limitBytes: number,
  tooLarge: () => AppError,
): Promise<{ parsed: unknown; raw: string }> {
  try {
    return (await coBody.json(ctx, { limit: limitBytes, strict: false, returnRawBody: true })) as {
      parsed: unknown;
      raw: string;
    };
  } catch (err) {
    const e = err as { status?: number; type?: string };
    if (e.status === 413 || e.type === 'entity.too.large') throw tooLarge();
    if (e.status === 400 || e.type === 'entity.parse.failed') throw AppError.badRequest('Malformed JSON body');
    if (e.status === 415) throw AppError.unsupportedMediaType('Unsupported content encoding');
    throw AppError.badRequest('Could not read the request body');
  }
}

declare module 'koa' {
  interface Request {
    body?: unknown;
    rawBody?: string;
  }
}
