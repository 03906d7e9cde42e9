import type Koa from 'koa';
import Router from '@koa/router';
import { Type, type Static, type TObject, type TSchema } from '@sinclair/typebox';
import { Value } from '@sinclair/typebox/value';
import { AppError, assertValid, type Caller } from '@kb/common';
import type { Tenant } from './tenancy';

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
  params?: P;
  query?: Q;
  body?: B;
  /** Success responses: status → description and schema. */
  responses: Record<number, { description: string; schema?: TSchema }>;
  handler: (input: HandlerInput<P, Q, B>) => Promise<RouteResult>;
}

export type AuthenticatedContext = (ctx: Koa.Context) => Promise<{ caller: Caller; tenant: Tenant }>;

const Empty = Type.Object({});

/**
 * The gateway's route table. Each route is declared once with its typebox schemas; the same
 * declaration validates requests (FastAPI-style 422 on failure) and produces the OpenAPI
 * document, so the two cannot drift.
 */
export class RouteTable {
  readonly specs: RouteSpec<TObject, TObject, TSchema>[] = [];

  constructor(
    private readonly router: Router,
    private readonly authenticated: AuthenticatedContext,
  ) {}

  define<P extends TObject = typeof Empty, Q extends TObject = typeof Empty, B extends TSchema = typeof Empty>(spec: RouteSpec<P, Q, B>): void {
    this.specs.push(spec as unknown as RouteSpec<TObject, TObject, TSchema>);
    const koaPath = API_PREFIX + spec.path.replace(/\{(\w+)\}/g, ':$1');
    this.router[spec.method](spec.operationId, koaPath, async (ctx) => {
      // Authenticate first: an anonymous caller learns nothing from validation errors.
      const { caller, tenant } = await this.authenticated(ctx);
      const params = spec.params ? assertValid(spec.params, { ...ctx.params }, ['path']) : {};
      const query = spec.query ? assertValid(spec.query, convertQuery(spec.query, ctx.query), ['query']) : {};
      let body: unknown = undefined;
      if (spec.body) {
        body = ctx.request.body;
        if (body === undefined) throw AppError.invalid([{ loc: ['body'], msg: 'Field required', type: 'missing' }]);
        body = assertValid(spec.body, Value.Default(spec.body, structuredClone(body)), ['body']);
      }
      const result = await spec.handler({ params, query, body, caller, tenant, ctx } as HandlerInput<P, Q, B>);
      for (const [k, v] of Object.entries(result.headers ?? {})) ctx.set(k, v);
      ctx.status = result.status ?? 200;
      ctx.body = result.body;
    });
  }
}

/** Query strings are text: convert numbers and booleans the schema asks for; repeated keys stay arrays. */
function convertQuery(schema: TObject, query: Record<string, string | string[] | undefined>): unknown {
  const copy: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(query)) if (v !== undefined) copy[k] = v;
  return Value.Convert(schema, copy);
}
