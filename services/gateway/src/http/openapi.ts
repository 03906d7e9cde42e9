import type { TSchema } from '@sinclair/typebox';
import { type RouteSpec, API_PREFIX } from './route';
import { SCOPES } from '@kb/platform';
import { JSON_LIMITS } from '@kb/rules';
import { ErrorResponse, ValidationErrorResponse } from './schemas';
import { AUDIT_SOURCE, CLIENT_ID } from './authentication';

type Json = Record<string, unknown>;

const COMPONENTS = '#/components/schemas/';

/**
 * Converts a typebox schema to plain JSON Schema for OpenAPI 3.1: named schemas ($id) become
 * components (under `refBase`) referenced with $ref, and unions of literals become `enum`.
 */
function converter(components: Record<string, unknown>, refBase = COMPONENTS) {
  const convert = (schema: unknown, root = false): unknown => {
    if (Array.isArray(schema)) return schema.map((s) => convert(s));
    if (!schema || typeof schema !== 'object') return schema;
    const s = schema as Json;
    if (typeof s.$id === 'string' && !root) {
      if (!(s.$id in components)) {
        components[s.$id] = {};
        components[s.$id] = convert(s, true);
      }
      return { $ref: `${refBase}${s.$id}` };
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
    if (isFreeForm(s)) return { $ref: `${refBase}JsonObject`, ...pick(s, ['description']) };
    const out: Json = {};
    for (const [k, v] of Object.entries(s)) {
      if (k === '$id' || k === 'refusals') continue;
      out[k] = convert(v);
    }
    return out;
  };
  return convert;
}

/** A typebox Record(String, Unknown): an object of any keys (metadata, config, attributes). */
function isFreeForm(s: Json): boolean {
  const pattern = s.patternProperties as Json | undefined;
  return s.type === 'object' && !!pattern && Object.keys(pattern).length === 1 && isAny(Object.values(pattern)[0]);
}
const isAny = (s: unknown) => !!s && typeof s === 'object' && Object.keys(s).length === 0;

/**
 * What every JSON body may hold inside its free-form objects, as body.ts checks it before any
 * schema: keys of 1-128 characters, none empty, starting with `$`, or holding `.` or a control
 * character (MongoDB operators and paths, Elasticsearch object paths); at most 200 keys per
 * object; nesting at most 32 levels deep (the body counted), which JSON Schema cannot state.
 */
function jsonComponents(refBase = COMPONENTS): Json {
  const key = { type: 'string', minLength: 1, maxLength: JSON_LIMITS.maxKeyLength, pattern: KEY_PATTERN };
  return {
    JsonValue: {
      description: `Any JSON value; objects inside follow JsonObject's key rules; at most ${JSON_LIMITS.maxDepth} levels deep in all.`,
      type: ['null', 'boolean', 'number', 'string', 'array', 'object'],
      items: { $ref: `${refBase}JsonValue` },
      maxProperties: JSON_LIMITS.maxKeys,
      propertyNames: key,
      additionalProperties: { $ref: `${refBase}JsonValue` },
    },
    JsonObject: {
      description:
        `A free-form object: at most ${JSON_LIMITS.maxKeys} keys, each 1-${JSON_LIMITS.maxKeyLength} characters, ` +
        'not starting with "$" and without "." or control characters (422 otherwise, at the key), the same for ' +
        `every object nested inside; at most ${JSON_LIMITS.maxDepth} levels deep, the body counted.`,
      type: 'object',
      maxProperties: JSON_LIMITS.maxKeys,
      propertyNames: key,
      additionalProperties: { $ref: `${refBase}JsonValue` },
    },
  };
}

const DEFS = '#/$defs/';

/**
 * A typebox schema as one self-contained JSON Schema (an MCP tool's input or output schema): the
 * document's conversion, with the named parts it uses under its own `$defs`.
 */
export function selfContainedSchema(schema: TSchema): Json {
  const defs = jsonComponents(DEFS) as Record<string, unknown>;
  const root = converter(defs, DEFS)(schema, true) as Json;
  const used = new Set<string>();
  const refsIn = (value: unknown) => [...JSON.stringify(value).matchAll(/"#\/\$defs\/(\w+)"/g)].map((m) => m[1]!);
  for (let todo = refsIn(root); todo.length;) {
    const name = todo.pop()!;
    if (used.has(name)) continue;
    used.add(name);
    todo.push(...refsIn(defs[name]));
  }
  if (!used.size) return root;
  return { ...root, $defs: Object.fromEntries([...used].sort().map((n) => [n, defs[n]])) };
}
/** body.ts's BAD_KEY, stated positively. */
const KEY_PATTERN = '^[^$.\\x00-\\x1f\\x7f][^.\\x00-\\x1f\\x7f]*$';

function pick(o: Json, keys: string[]): Json {
  return Object.fromEntries(keys.filter((k) => k in o).map((k) => [k, o[k]]));
}

type Convert = (schema: unknown) => unknown;
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- the route table holds routes of every shape
type AnySpec = RouteSpec<any, any, any>;

/** The OpenAPI 3.1 document of the declared routes, with their schemas as named components. */
export function buildOpenApi(specs: RouteSpec<never, never, never>[] | AnySpec[], info: { version: string }): Json {
  const components: Record<string, unknown> = jsonComponents();
  const convert = converter(components);
  const errorRef = convert(ErrorResponse);
  const validationRef = convert(ValidationErrorResponse);
  const paths: Record<string, Json> = {};
  for (const spec of specs as AnySpec[]) {
    const path = API_PREFIX + spec.path;
    paths[path] ??= {};
    paths[path]![spec.method] = operation(spec, convert, { errorRef, validationRef });
  }
  return {
    openapi: '3.1.0',
    info: {
      title: 'Knowledge service',
      version: info.version,
      description:
        'Tenant-scoped knowledge for a support and commerce assistant. Routes marked x-extension go beyond the published interface. ' +
        'Every response carries X-Request-Id. A method a path does not serve is a 405 with Allow listing the ones it does; ' +
        'OPTIONS answers 204 with Allow. An id that does not exist, belongs to another tenant or is hidden from the caller is a 404. ' +
        'Query integers and booleans are read in plain spelling only (decimal digits; true or false): anything else is a 422.',
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

interface ErrorSchemas {
  errorRef: unknown;
  validationRef: unknown;
}

const header = (description: string, schema: Json = { type: 'string' }, required = true): Json => ({
  description,
  required,
  schema,
});
const REQUEST_ID = header('The request id (the one sent, when valid; else a new one)');
const RETRY_AFTER = header('Seconds to wait before retrying', { type: 'string', pattern: '^[0-9]+$' });

/**
 * The error answers of one operation: the ones every route can give (authentication, scopes,
 * unknown ids or tenant address, validation of parameters and headers, rate limit, a dependency
 * down), those of a body (malformed JSON, too large, not JSON) and of a write (conflicts).
 */
function errorResponses(spec: AnySpec, { errorRef, validationRef }: ErrorSchemas): Json {
  const error = (description: string, headers: Json = {}, schema: unknown = errorRef) => ({
    description,
    headers: { 'X-Request-Id': REQUEST_ID, ...headers },
    content: { 'application/json': { schema } },
  });
  const write = spec.method !== 'get' && spec.readOnly !== true;
  return {
    ...(spec.body ? { 400: error('Malformed JSON body (or a key sent twice)') } : {}),
    401: error('Missing, malformed, expired, revoked or wrong-tenant token', {
      'WWW-Authenticate': header('Bearer challenge'),
    }),
    403: error('Scope or role does not allow this (X-Scopes narrows the token scopes)'),
    404: error(
      'Not found: an unknown id, one of another tenant or hidden from the caller, or an unknown tenant address',
    ),
    ...(write ? { 409: error('Conflict with the current state (see the description)') } : {}),
    ...(spec.body ? { 413: error('Request body too large') } : {}),
    ...(spec.body ? { 415: error('Not application/json, or an unsupported Content-Encoding') } : {}),
    422: error('Validation error: body, path, query or header', {}, validationRef),
    429: error('Rate limited', { 'Retry-After': RETRY_AFTER }),
    503: error('A dependency is down', { 'Retry-After': RETRY_AFTER }),
  };
}

/** One operation; its schemas are converted in document order (parameters, responses, body), which orders the components. */
function operation(spec: AnySpec, convert: Convert, schemas: ErrorSchemas): Json {
  const params = parameters(spec, convert);
  const responses: Json = {};
  for (const [status, r] of Object.entries(spec.responses)) {
    const headers: Json = { 'X-Request-Id': REQUEST_ID };
    if (status === '201') headers.Location = header('Where the created resource is read', { type: 'string' });
    for (const [name, h] of Object.entries(r.headers ?? {}))
      headers[name] = header(h.description, { type: 'string' }, h.required ?? true);
    const schema = r.schema ? convert(r.schema) : Number(status) >= 400 ? schemas.errorRef : undefined;
    responses[status] = {
      description: r.description,
      headers,
      ...(schema ? { content: { 'application/json': { schema } } } : {}),
    };
  }
  const errors = errorResponses(spec, schemas);
  for (const [status, r] of Object.entries(errors)) {
    if (status in responses) {
      // The route's own description of this status says more than the generic one.
      responses[status] = { ...(r as Json), description: (responses[status] as Json).description };
    } else responses[status] = r;
  }
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
    responses: Object.fromEntries(Object.entries(responses).sort(([a], [b]) => Number(a) - Number(b))),
    security: [{ bearerAuth: [] }],
  };
}

/** The request headers every route reads, as authentication.ts and request-id.ts check them. */
const REQUEST_HEADERS: Json[] = [
  {
    name: 'X-Scopes',
    description:
      `Space-separated scopes (${SCOPES.join(', ')}): narrows the token's scopes to the ones named here ` +
      '(words that are not scopes are ignored; empty leaves none, so most calls answer 403). Never adds a scope.',
    schema: { type: 'string' },
  },
  {
    name: 'X-Audit-Source',
    description:
      'The channel recorded with every write (default api). Sent, it must match the pattern (422 otherwise).',
    schema: { type: 'string', pattern: AUDIT_SOURCE.source },
  },
  {
    name: 'X-Client-Id',
    description:
      'The client recorded with every write (set by the MCP channel). Sent, it must match the pattern (422 otherwise).',
    schema: { type: 'string', pattern: CLIENT_ID.source },
  },
  {
    name: 'X-Request-Id',
    description: 'Kept as the request id when it matches the pattern; otherwise a new id is made (never refused).',
    schema: { type: 'string' },
  },
];

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
  for (const h of REQUEST_HEADERS) out.push({ ...h, in: 'header', required: false });
  return out;
}
