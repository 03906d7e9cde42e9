import type Koa from 'koa';
import Router from '@koa/router';
import { Kind, type Static, type TObject, type TSchema } from '@sinclair/typebox';
import { Value } from '@sinclair/typebox/value';
import { AppError, type Caller, type ValidationIssue } from '@kb/platform';
import { assertValid, validationIssues } from '@kb/rules';
import type { Tenant } from './tenancy';
import { readJsonBody } from './body';
import { shadowed } from './allowed-methods';

export const API_PREFIX = '/api/knowledge';

type Method = 'get' | 'post' | 'put' | 'delete';

export interface HandlerInput<P extends TObject, Q extends TObject, B extends TSchema> {
  params: Static<P>;
  query: Static<Q>;
  body: Static<B>;
  caller: Caller;
  tenant: Tenant;
  ctx: Koa.Context;
}

export interface RouteResult {
  status?: number;
  body: unknown;
  headers?: Record<string, string>;
}

export interface RouteSpec<P extends TObject, Q extends TObject, B extends TSchema> {
  method: Method;
  /** OpenAPI-style path below /api/knowledge, e.g. `/categories/{category_id}`. */
  path: string;
  operationId: string;
  summary: string;
  description?: string;
  tag: string;
  /** Marks routes that are extensions of the published interface. */
  extension?: boolean;
  /** A POST that changes nothing (a search): documented as a read (no 409), as GETs are. */
  readOnly?: boolean;
  params?: P;
  query?: Q;
  body?: B;
  /** Responses beyond the ones every route gives (openapi.ts): status → description, schema, headers it carries. */
  responses: Record<
    number,
    { description: string; schema?: TSchema; headers?: Record<string, { description: string; required?: boolean }> }
  >;
  handler: (input: HandlerInput<P, Q, B>) => Promise<RouteResult>;
}

/** A created resource: 201 with its Location. */
export const created = (body: unknown, location: string): RouteResult => ({
  status: 201,
  body,
  headers: { Location: location },
});

/** Who asks: the tenant the request is addressed to, and the caller its token proves. */
export interface Authentication {
  tenant(ctx: Koa.Context): Promise<Tenant>;
  /** The caller the token proves (an API token's identity at most TOKEN_CACHE_TTL_MS old). */
  check(ctx: Koa.Context, tenant: Tenant): Promise<Caller>;
  /** Counts the request against the caller's rate limit; throws 429 past it. */
  admit(tenant: Tenant, caller: Caller): void;
}

type Empty = TObject<{}>; // eslint-disable-line @typescript-eslint/no-empty-object-type

/**
 * The gateway's route table. Each route is declared once with its typebox schemas; the same
 * declaration validates requests (FastAPI-style 422 on failure) and produces the OpenAPI
 * document, so the two cannot drift.
 *
 * Every request's token is checked before anything is answered, and before its body is read or
 * it counts against a rate limit (the caller's, once known). An API token's check is kept for
 * TOKEN_CACHE_TTL_MS (authentication.ts), so most requests start without a call.
 */
export class RouteTable {
  readonly specs: RouteSpec<TObject, TObject, TSchema>[] = [];

  constructor(
    private readonly router: Router,
    private readonly auth: Authentication,
    private readonly bodyLimitBytes: number,
    /** Told after every route that may write (any but GET and the read-only searches), whatever it answered. */
    private readonly afterWrite?: (tenantId: string) => void,
  ) {}

  /** The spec's handler, and afterWrite told when it may have written. */
  private async handled<P extends TObject, Q extends TObject, B extends TSchema>(
    spec: RouteSpec<P, Q, B>,
    caller: Caller,
    run: () => Promise<RouteResult>,
  ): Promise<RouteResult> {
    if (spec.method === 'get' || spec.readOnly || !this.afterWrite) return run();
    try {
      return await run();
    } finally {
      this.afterWrite(caller.tenant_id);
    }
  }

  define<P extends TObject = Empty, Q extends TObject = Empty, B extends TSchema = Empty>(
    spec: RouteSpec<P, Q, B>,
  ): void {
    this.specs.push(spec as unknown as RouteSpec<TObject, TObject, TSchema>);
    const koaPath = API_PREFIX + spec.path.replace(/\{(\w+)\}/g, ':$1');
    this.router[spec.method](spec.operationId, koaPath, async (ctx, next) => {
      if (shadowed(this.router, koaPath, ctx.path)) return next(); // a literal sibling path answers
      const tenant = await this.auth.tenant(ctx);
      // Authenticate first: an anonymous caller learns nothing from validation errors.
      const caller = await this.auth.check(ctx, tenant);
      this.auth.admit(tenant, caller);
      const result = await this.handled(spec, caller, () => answer(spec, { ctx, tenant, caller }, this.bodyLimitBytes));
      for (const [k, v] of Object.entries(result.headers ?? {})) ctx.set(k, v);
      ctx.status = result.status ?? 200;
      ctx.body = result.body;
    });
  }

  /**
   * A declared route answered for an already authenticated and admitted caller, with its input
   * given as values rather than read from the request (the MCP tools): the same schemas validate
   * it (the same 422 issues) and the same handler answers, so no door reaches more than REST does.
   */
  async invoke(
    operationId: string,
    input: { params?: unknown; query?: unknown; body?: unknown },
    who: { ctx: Koa.Context; tenant: Tenant; caller: Caller },
  ): Promise<RouteResult> {
    const spec = this.specs.find((s) => s.operationId === operationId);
    if (!spec) throw new Error(`no route ${operationId}`);
    const params = spec.params ? assertValid(spec.params, input.params ?? {}, ['path']) : {};
    const query = spec.query ? assertValid(spec.query, input.query ?? {}, ['query']) : {};
    const body = spec.body ? validBody(spec.body, input.body) : undefined;
    return this.handled(spec, who.caller, () => spec.handler({ params, query, body, ...who }));
  }
}

/** A JSON body as the route's schema types it (its defaults applied), or a 422 listing every problem. */
function validBody<B extends TSchema>(schema: B, raw: unknown): Static<B> {
  if (raw === undefined) throw AppError.invalid([{ loc: ['body'], msg: 'Field required', type: 'missing' }]);
  return assertValid(schema, Value.Default(schema, structuredClone(raw)), ['body']);
}

/** The route's answer for this caller: the request validated, then its handler. */
async function answer<P extends TObject, Q extends TObject, B extends TSchema>(
  spec: RouteSpec<P, Q, B>,
  { ctx, tenant, caller }: { ctx: Koa.Context; tenant: Tenant; caller: Caller },
  bodyLimitBytes: number,
): Promise<RouteResult> {
  await readJsonBody(ctx, bodyLimitBytes);
  const params = spec.params ? assertValid(spec.params, { ...ctx.params }, ['path']) : {};
  const query = spec.query ? validQuery(spec.query, ctx.query) : {};
  const body = spec.body ? validBody(spec.body, ctx.request.body) : undefined;
  return spec.handler({ params, query, body, caller, tenant, ctx } as HandlerInput<P, Q, B>);
}

type QueryValue = string | string[] | undefined;

// The documented spellings of typed query values: integers in plain decimal digits (a leading
// minus is read too, so that `limit=-1` is told its bound rather than that it is no number),
// booleans as `true` or `false`.
const INTEGER = /^-?\d+$/;
const NUMBER = /^-?\d+(?:\.\d+)?$/;

const PARSING: Record<string, { msg: string; type: string }> = {
  Integer: { msg: 'Input should be a valid integer, unable to parse string as an integer', type: 'int_parsing' },
  Number: { msg: 'Input should be a valid number, unable to parse string as a number', type: 'float_parsing' },
  Boolean: { msg: 'Input should be a valid boolean, unable to interpret input', type: 'bool_parsing' },
};

/** A query string as the schema's integer, number or boolean; undefined when spelled otherwise. */
function parseScalar(kind: string, text: string): number | boolean | undefined {
  if (kind === 'Boolean') return text === 'true' ? true : text === 'false' ? false : undefined;
  if (!(kind === 'Integer' ? INTEGER : NUMBER).test(text)) return undefined;
  // Digits beyond a double's range are still a number: keep them finite so the schema's
  // bounds answer (less than or equal to 500) rather than a type error.
  const n = Number(text);
  return Number.isFinite(n) ? n : Math.sign(n) * Number.MAX_VALUE;
}

/**
 * The query typed by the schema, or a 422 listing every problem. Query strings are text, and
 * this is the one place they become numbers and booleans, in their documented spellings only:
 * typebox's Value.Convert, used before, also took `-0`, `1` or `TRUE` for a boolean and
 * `1e400` (as 1), `10.5` or `0x10` for an integer, and the route answered as if they were valid.
 * Anything else is FastAPI's `int_parsing`/`bool_parsing` naming the parameter; repeated keys
 * stay arrays (and fail a scalar schema).
 */
function validQuery<Q extends TObject>(schema: Q, query: Record<string, QueryValue>): Static<Q> {
  const value: Record<string, unknown> = {};
  const unreadable: ValidationIssue[] = [];
  for (const [name, raw] of Object.entries(query)) {
    if (raw === undefined) continue;
    const kind = String(schema.properties[name]?.[Kind] ?? '');
    if (typeof raw !== 'string' || !PARSING[kind]) {
      value[name] = raw;
      continue;
    }
    const parsed = parseScalar(kind, raw);
    if (parsed === undefined) unreadable.push({ loc: ['query', name], ...PARSING[kind] });
    else value[name] = parsed;
  }
  const sameLoc = (i: ValidationIssue) => unreadable.some((u) => u.loc[1] === i.loc[1]);
  const issues = [...unreadable, ...validationIssues(schema, value, ['query']).filter((i) => !sameLoc(i))];
  if (issues.length) throw AppError.invalid(issues);
  return value as Static<Q>;
}
