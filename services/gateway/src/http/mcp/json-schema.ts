import type { TSchema } from '@sinclair/typebox';

type Json = Record<string, unknown>;

/**
 * A typebox schema as a self-contained JSON Schema for an MCP tool's input or output: the same
 * schema REST validates with, with named parts inlined (a tool schema is read on its own, with
 * no components to refer to) and unions of literals written as `enum`, which models read best.
 */
export function toolSchema(schema: TSchema): Json {
  return JSON.parse(JSON.stringify(plain(schema))) as Json;
}

function plain(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(plain);
  if (!schema || typeof schema !== 'object') return schema;
  const s = schema as Json;
  const anyOf = s.anyOf as Json[] | undefined;
  if (anyOf?.length && anyOf.every((b) => 'const' in b)) {
    const values = anyOf.map((b) => b.const);
    const out: Json = { type: typeof values[0] === 'number' ? 'number' : 'string', enum: values };
    for (const k of ['description', 'default']) if (k in s) out[k] = s[k];
    return out;
  }
  const out: Json = {};
  for (const [k, v] of Object.entries(s)) if (k !== '$id') out[k] = plain(v);
  return out;
}
