import { Type } from '@sinclair/typebox';
import { FIELD_LIMITS } from '@kb/rules';

export const Uuid = Type.String({ format: 'uuid', examples: ['7c6a2f4e-5b0d-4a53-9a37-0d2a4b9f1c11'] });
export const DateTime = Type.String({ format: 'date-time' });
export const Nullable = <T extends Parameters<typeof Type.Union>[0][number]>(schema: T) =>
  Type.Union([schema, Type.Null()]);

export const ErrorResponse = Type.Object({ detail: Type.String() }, { $id: 'ErrorResponse' });
export const ValidationErrorResponse = Type.Object(
  {
    detail: Type.Array(
      Type.Object({
        loc: Type.Array(Type.Union([Type.String(), Type.Integer()])),
        msg: Type.String(),
        type: Type.String(),
      }),
    ),
  },
  { $id: 'HTTPValidationError' },
);

export const Category = Type.Object(
  {
    id: Uuid,
    tenant_id: Type.String(),
    name: Type.String({ minLength: 1, maxLength: 200 }),
    description: Nullable(Type.String()),
    parent_id: Nullable(Uuid),
    sort_order: Type.Integer({ minimum: 0, default: 0 }),
    created_at: DateTime,
    updated_at: DateTime,
  },
  { $id: 'Category' },
);

export const CategoryCreate = Type.Object(
  {
    name: Type.String({ minLength: 1, maxLength: 200 }),
    description: Type.Optional(Nullable(Type.String({ maxLength: FIELD_LIMITS.text }))),
    parent_id: Type.Optional(Nullable(Uuid)),
    sort_order: Type.Optional(Type.Integer({ minimum: 0, maximum: FIELD_LIMITS.int32, default: 0 })),
  },
  { additionalProperties: false, $id: 'CategoryCreate' },
);

export const CategoryUpdate = Type.Object(
  {
    name: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
    description: Type.Optional(Nullable(Type.String({ maxLength: FIELD_LIMITS.text }))),
    parent_id: Type.Optional(Nullable(Uuid)),
    sort_order: Type.Optional(Type.Integer({ minimum: 0, maximum: FIELD_LIMITS.int32 })),
  },
  { additionalProperties: false, $id: 'CategoryUpdate' },
);
