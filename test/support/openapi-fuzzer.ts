/**
 * A compact document-driven API fuzzer in the manner of Schemathesis, for the OpenAPI 3.1 document
 * the gateway serves: request data generated from the document's JSON Schemas with fast-check
 * (seeded), responses checked against the same document with Ajv (JSON Schema 2020-12).
 *
 * - Positive data: values generated from the schemas (and checked valid by Ajv before they are
 *   sent) must not be refused with anything but 401/403/404/409 (positive_data_acceptance).
 * - Negative data: one mutation of a valid request (a required field dropped, an unknown field,
 *   a wrong type, a bound, an enum, a format or a pattern broken, in body, path, query or header;
 *   checked invalid by Ajv) must get 400/401/403/404/422/428 (negative_data_rejection).
 * - Every answer: no 5xx (not_a_server_error), a documented status (status_code_conformance), the
 *   documented content type (content_type_conformance), documented required headers present and
 *   valid (response_headers_conformance), a body that matches its schema (response_schema_conformance).
 */
import fc from 'fast-check';
import Ajv2020, { type ValidateFunction } from 'ajv/dist/2020';
import addFormats from 'ajv-formats';

type Schema = any;
export type Doc = any;

export interface Operation {
  method: string;
  path: string;
  operationId: string;
  op: Doc;
}

/** Ids that exist, by kind, for the fields and parameters that name one (a few random ones too). */
export type Pools = Record<'category' | 'entry' | 'site' | 'product' | 'slug', string[]>;

/** The kind of id a field or parameter names, by its name. */
function kindOf(name: string | undefined): keyof Pools | undefined {
  if (!name) return undefined;
  if (/^(category_id|parent_id)$/.test(name)) return 'category';
  if (/^(entry_id|entry_ids|translation_of)$/.test(name)) return 'entry';
  if (/^(product_id|anchor_product_ids|exclude_product_ids)$/.test(name)) return 'product';
  if (name === 'site_id') return 'site';
  return undefined;
}

export interface FuzzRequest {
  method: string;
  path: string;
  query: Record<string, string>;
  headers: Record<string, string>;
  body?: unknown;
  /** For negative requests: what was broken. */
  mutation?: string;
}

export interface Finding {
  check: string;
  operation: string;
  status: number;
  detail: string;
  request: string;
}

export const HTTP_METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'];

export function operations(doc: Doc): Operation[] {
  const out: Operation[] = [];
  for (const [path, item] of Object.entries<Doc>(doc.paths))
    for (const [method, op] of Object.entries<Doc>(item))
      if (HTTP_METHODS.includes(method)) out.push({ method, path, operationId: op.operationId, op });
  return out;
}

/** JSON Schema validation of data against schemas of the document (their $refs resolved in it). */
export class Validator {
  private readonly ajv = new Ajv2020({ strict: false, allErrors: false, validateFormats: true });
  private readonly cache = new Map<unknown, ValidateFunction>();

  constructor(doc: Doc) {
    addFormats(this.ajv);
    this.ajv.addSchema({ ...doc, $id: 'openapi' } as object);
  }

  /** Undefined when valid, else the first error in words. */
  problem(schema: Schema, value: unknown): string | undefined {
    let validate = this.cache.get(schema);
    if (!validate) {
      validate = this.ajv.compile(rebase(schema));
      this.cache.set(schema, validate);
    }
    if (validate(value)) return undefined;
    const e = validate.errors?.[0];
    return e ? `${e.instancePath || '/'} ${e.message}` : 'invalid';
  }
}

/** A schema's local refs pointed at the document added to Ajv as `openapi`. */
function rebase(schema: Schema): Schema {
  return JSON.parse(JSON.stringify(schema).replace(/"#\/components\//g, '"openapi#/components/'));
}

/** Generation of valid values from JSON Schema (the subset OpenAPI documents use). */
export class Generator {
  constructor(
    private readonly doc: Doc,
    private readonly pools: Pools,
  ) {}

  deref(schema: Schema): Schema {
    let s = schema;
    while (s && typeof s === 'object' && typeof s.$ref === 'string') {
      const name = s.$ref.split('/').pop();
      const { $ref: _ref, ...rest } = s;
      s = { ...this.doc.components.schemas[name], ...rest };
    }
    return s ?? {};
  }

  /** Valid values of `schema`; `name` is the field or parameter it is the schema of (array items inherit it). */
  arbitrary(schema: Schema, depth = 0, name?: string): fc.Arbitrary<unknown> {
    const s = this.deref(schema);
    if ('const' in s) return fc.constant(s.const);
    if (Array.isArray(s.enum)) return fc.constantFrom(...s.enum);
    const branches = s.anyOf ?? s.oneOf;
    if (Array.isArray(branches)) return fc.oneof(...branches.map((b: Schema) => this.arbitrary(b, depth, name)));
    if (Array.isArray(s.type)) {
      const types = depth >= 3 ? s.type.filter((t: string) => t !== 'array' && t !== 'object') : s.type;
      return fc.oneof(...types.map((type: string) => this.arbitrary({ ...s, type }, depth, name)));
    }
    switch (s.type) {
      case 'string':
        return this.string(s, name);
      case 'integer':
        return fc.integer({ min: s.minimum ?? -1_000_000, max: s.maximum ?? 1_000_000 });
      case 'number':
        return fc.oneof(
          fc.integer({ min: Math.ceil(s.minimum ?? -1_000_000), max: Math.floor(s.maximum ?? 1_000_000) }),
          fc.double({ min: s.minimum ?? -1e6, max: s.maximum ?? 1e6, noNaN: true, noDefaultInfinity: true }),
        );
      case 'boolean':
        return fc.boolean();
      case 'null':
        return fc.constant(null);
      case 'array': {
        const min = s.minItems ?? 0;
        return fc.array(this.arbitrary(s.items ?? {}, depth + 1, name), {
          minLength: min,
          maxLength: Math.min(s.maxItems ?? min + 3, min + 3),
        });
      }
      case 'object':
        return this.object(s, depth);
      default:
        return depth >= 2 ? fc.oneof(fc.string(), fc.integer(), fc.boolean()) : fc.jsonValue({ maxDepth: 2 });
    }
  }

  private string(s: Schema, name?: string): fc.Arbitrary<string> {
    const min = s.minLength ?? 0;
    const max = s.maxLength ?? Infinity;
    const fits = (v: string) => [...v].length >= min && [...v].length <= max;
    const kind = kindOf(name);
    const known = kind ? [...this.pools[kind], ...(kind === 'site' ? this.pools.slug : [])].filter(fits) : [];
    const existing = known.length ? [{ arbitrary: fc.constantFrom(...known), weight: 4 }] : [];
    if (s.format === 'uuid') {
      const ids = known.filter((v) => UUID.test(v));
      return fc.oneof(...(ids.length ? [{ arbitrary: fc.constantFrom(...ids), weight: 4 }] : []), {
        arbitrary: fc.uuid(),
        weight: 1,
      });
    }
    if (s.format === 'date-time')
      return fc
        .date({ min: new Date('1970-01-01T00:00:00Z'), max: new Date('2100-01-01T00:00:00Z'), noInvalidDate: true })
        .map((d) => d.toISOString());
    if (typeof s.pattern === 'string') {
      let matching = fc.stringMatching(new RegExp(s.pattern, 'u')).filter(fits);
      if (s.not?.format === 'uuid') matching = matching.filter((v) => !UUID.test(v));
      return matching;
    }
    const upTo = Math.min(max, min + 24);
    const text = fc.oneof(
      { arbitrary: fc.string({ minLength: min, maxLength: upTo, unit: 'grapheme-ascii' }), weight: 3 },
      { arbitrary: fc.string({ minLength: min, maxLength: upTo, unit: 'binary' }), weight: 1 },
    );
    const boundary = Number.isFinite(max) && max <= 20_000 ? [fc.constant('x'.repeat(max))] : [];
    return fc.oneof({ arbitrary: text, weight: 4 }, ...boundary, ...existing).filter(fits);
  }

  /** An object; `allOf` rules of the form if {prop: const} then/else are applied to the value chosen for prop. */
  private object(s: Schema, depth: number): fc.Arbitrary<unknown> {
    const rules = (s.allOf ?? []).filter((r: Schema) => r.if);
    const discriminant = rules
      .map((r: Schema) => Object.keys(r.if.properties ?? {})[0])
      .find((p: string | undefined) => p !== undefined);
    if (discriminant && s.properties?.[discriminant]) {
      const choices = [undefined, ...(this.deref(s.properties[discriminant]).enum ?? [])];
      return fc
        .constantFrom(...choices)
        .chain((value) => this.plainObject(applyRules(s, rules, discriminant, value), depth));
    }
    return this.plainObject(s, depth);
  }

  private plainObject(s: Schema, depth: number): fc.Arbitrary<unknown> {
    const props: Record<string, Schema> = s.properties ?? {};
    const required: string[] = s.required ?? [];
    const shape: Record<string, fc.Arbitrary<unknown>> = {};
    for (const [name, prop] of Object.entries(props)) shape[name] = this.arbitrary(prop, depth + 1, name);
    const fixed = fc.record(shape, { requiredKeys: required.filter((r) => r in props) });
    const extra = s.additionalProperties;
    if (Object.keys(props).length || !extra || typeof extra !== 'object' || depth >= 3) return fixed;
    // A free-form object: a few keys of the documented shape.
    const key = s.propertyNames ? this.string(this.deref(s.propertyNames)) : fc.string({ minLength: 1, maxLength: 8 });
    return fc.dictionary(key, this.arbitrary(extra, depth + 1), { maxKeys: depth >= 2 ? 1 : 3 });
  }
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** The object schema as it is when `prop` is `value` (undefined: absent): the rules' then/else merged in. */
function applyRules(s: Schema, rules: Schema[], prop: string, value: unknown): Schema {
  const properties = { ...s.properties };
  let required: string[] = [...(s.required ?? [])];
  if (value === undefined) delete properties[prop];
  else {
    properties[prop] = { const: value };
    required.push(prop);
  }
  for (const rule of rules) {
    const cond = rule.if.properties?.[prop];
    const holds = value !== undefined && cond && 'const' in cond && cond.const === value;
    const branch = holds ? rule.then : rule.else;
    if (!branch) continue;
    Object.assign(properties, branch.properties ?? {});
    required = [...required, ...(branch.required ?? [])];
  }
  return { ...s, allOf: undefined, properties, required: [...new Set(required)] };
}

/** One mutation that makes a valid value invalid against `schema`, described; undefined when none applies. */
export function mutations(gen: Generator, schema: Schema, value: unknown): { value: unknown; what: string }[] {
  const s = gen.deref(schema);
  const out: { value: unknown; what: string }[] = [];
  out.push({ value: Array.isArray(value) ? { not: 'a list' } : [value], what: 'the whole value of another type' });
  if (s.type === 'object' && value && typeof value === 'object' && !Array.isArray(value)) {
    const obj = value as Record<string, unknown>;
    for (const r of s.required ?? []) {
      const { [r]: _dropped, ...rest } = obj;
      out.push({ value: rest, what: `required ${r} left out` });
    }
    if (s.additionalProperties === false) out.push({ value: { ...obj, zz_unknown: 1 }, what: 'an unknown field' });
    if (s.propertyNames) {
      for (const key of ['', 'a.b', '$where'])
        out.push({ value: { ...obj, [key]: 1 }, what: `the key ${JSON.stringify(key)}` });
    }
    for (const [name, prop] of Object.entries<Schema>(s.properties ?? {})) {
      for (const m of fieldMutations(gen, prop))
        out.push({ value: { ...obj, [name]: m.value }, what: `${name}: ${m.what}` });
    }
  }
  return out;
}

/** Values that break one field's schema. */
export function fieldMutations(gen: Generator, schema: Schema): { value: unknown; what: string }[] {
  const s = gen.deref(schema);
  const types: string[] = Array.isArray(s.type) ? s.type : s.type ? [s.type] : [];
  const branchTypes = (s.anyOf ?? s.oneOf ?? []).map((b: Schema) => gen.deref(b).type).filter(Boolean);
  const all = [...types, ...branchTypes];
  const out: { value: unknown; what: string }[] = [];
  if (!all.includes('object') && !all.includes('number')) out.push({ value: { a: 1 }, what: 'an object' });
  if (all.length && !all.includes('string')) out.push({ value: 'text', what: 'a string' });
  if (all.length && !all.includes('null')) out.push({ value: null, what: 'null' });
  const str = [s, ...(s.anyOf ?? [])].map((b) => gen.deref(b)).find((b) => b.type === 'string');
  if (str) {
    if (str.maxLength !== undefined && str.maxLength <= 100_000)
      out.push({ value: 'y'.repeat(str.maxLength + 1), what: `${str.maxLength + 1} characters` });
    if (str.minLength) out.push({ value: '', what: 'empty' });
    if (str.format === 'uuid') out.push({ value: 'not-a-uuid', what: 'not a uuid' });
    if (str.format === 'date-time') out.push({ value: 'yesterday', what: 'not a date-time' });
    if (str.pattern) out.push({ value: ' $ ', what: `not matching ${str.pattern}` });
    if (Array.isArray(str.enum)) out.push({ value: 'zz-not-in-enum', what: 'not in the enum' });
  }
  if (Array.isArray(s.enum)) out.push({ value: 'zz-not-in-enum', what: 'not in the enum' });
  const num = [s, ...(s.anyOf ?? [])].map((b) => gen.deref(b)).find((b) => b.type === 'integer' || b.type === 'number');
  if (num) {
    if (num.maximum !== undefined) out.push({ value: num.maximum + 1, what: `above ${num.maximum}` });
    if (num.minimum !== undefined) out.push({ value: num.minimum - 1, what: `below ${num.minimum}` });
    if (num.type === 'integer') out.push({ value: 1.5, what: 'a fraction' });
  }
  const arr = [s, ...(s.anyOf ?? [])].map((b) => gen.deref(b)).find((b) => b.type === 'array');
  if (arr) {
    if (arr.minItems) out.push({ value: [], what: 'no items' });
    if (arr.maxItems !== undefined && arr.maxItems <= 1000)
      out.push({ value: Array.from({ length: arr.maxItems + 1 }, () => 'x'), what: `${arr.maxItems + 1} items` });
  }
  return out;
}

/** Query and header values that break a parameter's schema (as text). */
export function parameterMutations(gen: Generator, schema: Schema): { value: string; what: string }[] {
  const s = gen.deref(schema);
  const out: { value: string; what: string }[] = [];
  if (s.type === 'integer') {
    out.push({ value: 'ten', what: 'not an integer' }, { value: '1.5', what: 'a fraction' });
    if (s.maximum !== undefined) out.push({ value: String(s.maximum + 1), what: `above ${s.maximum}` });
    if (s.minimum !== undefined) out.push({ value: String(s.minimum - 1), what: `below ${s.minimum}` });
  }
  if (s.type === 'boolean') out.push({ value: 'yes', what: 'not a boolean' });
  if (s.type === 'string') {
    if (s.format === 'uuid') out.push({ value: 'not-a-uuid', what: 'not a uuid' });
    if (Array.isArray(s.enum)) out.push({ value: 'zz-not-in-enum', what: 'not in the enum' });
    if (s.pattern) out.push({ value: 'has space!', what: `not matching ${s.pattern}` });
    if (s.maxLength !== undefined && s.maxLength <= 500)
      out.push({ value: 'y'.repeat(s.maxLength + 1), what: 'too long' });
  }
  return out;
}
