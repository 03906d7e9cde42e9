import type { TSchema } from '@sinclair/typebox';
import type { RouteSpec } from './route';
import { API_PREFIX } from './route';
import { ErrorResponse, ValidationErrorResponse } from './schemas';

type Json = Record<string, unknown>;

/**
 * Converts a typebox schema to plain JSON Schema for OpenAPI 3.1: named schemas ($id) become
 * components referenced with $ref, and unions of literals become `enum`.
 */
function converter(components: Record<string, unknown>) {
  const convert = (schema: unknown, root = false): unknown => {
    if (Array.isArray(schema)) return schema.map((s) => convert(s));
    if (!schema || typeof schema !== 'object') return schema;
    const s = schema as Json;
    if (typeof s.$id === 'string' && !root) {
      if (!(s.$id in components)) {
        components[s.$id] = {};
        components[s.$id] = convert(s, true);
      }
      return { $ref: `#/components/schemas/${s.$id}` };
    }
    const anyOf = s.anyOf as Json[] | undefined;
    if (anyOf?.length && anyOf.every((b) => 'const' in b)) {
      const values = anyOf.map((b) => b.const);
      return {
        type: typeof values[0] === 'number' ? 'number' : 'string',
        enum: values,
        ...pick(s, ['description', 'default']),
      };
    }
    const out: Json = {};
    for (const [k, v] of Object.entries(s)) {
      if (k === '$id') continue;
      out[k] = convert(v);
    }
    return out;
  };
  return convert;
}

function pick(o: Json, keys: string[]): Json {
  return Object.fromEntries(keys.filter((k) => k in o).map((k) => [k, o[k]]));
}

type Convert = (schema: unknown) => unknown;
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- the route table holds routes of every shape
type AnySpec = RouteSpec<any, any, any>;

/** The OpenAPI 3.1 document of the declared routes, with their schemas as named components. */
export function buildOpenApi(specs: RouteSpec<never, never, never>[] | AnySpec[], info: { version: string }): Json {
  const components: Record<string, unknown> = {};
  const convert = converter(components);
  const errors = errorResponses(convert);
  const paths: Record<string, Json> = {};
  for (const spec of specs as AnySpec[]) {
    const path = API_PREFIX + spec.path;
    paths[path] ??= {};
    paths[path]![spec.method] = operation(spec, convert, errors);
  }
  return {
    openapi: '3.1.0',
    info: {
      title: 'Knowledge service',
      version: info.version,
      description:
        'Tenant-scoped knowledge for a support and commerce assistant. Routes marked x-extension go beyond the published interface.',
    },
    servers: [{ url: '/' }],
    paths,
    components: {
      schemas: components,
      securitySchemes: {
        bearerAuth: { type: 'http', scheme: 'bearer', description: 'API token (kbt_…) or OAuth access token (JWT)' },
      },
    },
  };
}

/** The error answers every route can give, the same for all. */
function errorResponses(convert: Convert): Json {
  const errorRef = convert(ErrorResponse);
  const validationRef = convert(ValidationErrorResponse);
  const errorResponse = (description: string, schema: unknown = errorRef) => ({
    description,
    content: { 'application/json': { schema } },
  });
  return {
    401: errorResponse('Missing, malformed, expired, revoked or wrong-tenant token'),
    403: errorResponse('Scope or role does not allow this'),
    404: errorResponse('Not found (or not visible to the caller)'),
    422: errorResponse('Validation error', validationRef),
    429: errorResponse('Rate limited; retry after the Retry-After seconds'),
    503: errorResponse('A dependency is down; retry after the Retry-After seconds'),
  };
}

/** One operation; its schemas are converted in document order (parameters, responses, body), which orders the components. */
function operation(spec: AnySpec, convert: Convert, errors: Json): Json {
  const params = parameters(spec, convert);
  const responses: Json = {};
  for (const [status, r] of Object.entries(spec.responses)) {
    responses[status] = r.schema
      ? { description: r.description, content: { 'application/json': { schema: convert(r.schema) } } }
      : { description: r.description };
  }
  Object.assign(responses, errors);
  return {
    operationId: spec.operationId,
    summary: spec.summary,
    ...(spec.description ? { description: spec.description } : {}),
    tags: [spec.tag],
    ...(spec.extension ? { 'x-extension': true } : {}),
    parameters: params,
    ...(spec.body
      ? { requestBody: { required: true, content: { 'application/json': { schema: convert(spec.body) } } } }
      : {}),
    responses,
    security: [{ bearerAuth: [] }],
  };
}

/** Path and query parameters from the route's schemas, then the headers every route reads. */
function parameters(spec: AnySpec, convert: Convert): Json[] {
  const out: Json[] = [];
  const add = (where: 'path' | 'query', schema: TSchema | undefined) => {
    const props = (schema?.properties ?? {}) as Record<string, TSchema>;
    const required = new Set<string>((schema?.required as string[] | undefined) ?? []);
    for (const [name, prop] of Object.entries(props)) {
      out.push({
        name,
        in: where,
        required: where === 'path' || required.has(name),
        schema: convert(prop),
        ...pick(prop as Json, ['description']),
      });
    }
  };
  add('path', spec.params);
  add('query', spec.query);
  for (const header of ['X-Scopes', 'X-Audit-Source', 'X-Client-Id', 'X-Request-Id']) {
    out.push({ name: header, in: 'header', required: false, schema: { type: 'string' } });
  }
  return out;
}
