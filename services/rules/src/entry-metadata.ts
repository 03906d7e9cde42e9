import { Type, type TSchema } from '@sinclair/typebox';

const Str = Type.String({ minLength: 1 });

/**
 * One metadata schema per entry type: the knowledge service validates with them, the gateway
 * publishes them (OpenAPI, per type on create) (docs/api.md, "Metadata per type"). Strict schemas reject
 * unknown keys; defaults fill in, and the cleaned value replaces what the client sent.
 */
export const METADATA_SCHEMAS: Record<string, TSchema> = {
  knowledge: Type.Record(Type.String(), Type.Unknown()),
  bootstrap: Type.Record(Type.String(), Type.Unknown()),
  process: Type.Object(
    {
      steps: Type.Array(
        Type.Object(
          { title: Str, detail: Type.Optional(Type.Union([Type.String(), Type.Null()])) },
          { additionalProperties: false },
        ),
        { minItems: 1 },
      ),
    },
    { additionalProperties: false },
  ),
  skill: Type.Object(
    {
      trigger_description: Str,
      examples: Type.Optional(Type.Array(Type.String())),
    },
    { additionalProperties: false },
  ),
  memory: Type.Object(
    { expires_at: Type.Optional(Type.Union([Type.String({ format: 'date-time' }), Type.Null()])) },
    { additionalProperties: false },
  ),
  glossary: Type.Object(
    {
      term: Type.Optional(Type.String()),
      synonyms: Type.Optional(Type.Array(Type.String())),
    },
    { additionalProperties: false },
  ),
  skill_index: Type.Record(Type.String(), Type.Unknown()),
};
