import { AppError, type knowledgeV1 } from '@kb/platform';
import { parseJsonField } from '@kb/rules';

/** An entry's fields as sent on create or update; `sent_fields` tells absent from sent as null. */
export type EntryInput = knowledgeV1.EntryInput__Output;

/** A field of the input: undefined when not sent, null when sent as null. */
export function field<K extends keyof EntryInput>(input: EntryInput, name: K): EntryInput[K] | null | undefined {
  if (!input.sent_fields.includes(name as string)) return undefined;
  const value = input[name];
  return value === undefined ? null : value;
}

/** The metadata object as sent (JSON over gRPC); undefined when not sent or empty. */
export const parseMetadata = (json: string | null | undefined): unknown => parseJsonField(json, ['body', 'metadata']);

const PERSONAL_ROUTE = 'POST /api/knowledge/knowledge-entries/personal';

/** 422: visibility `personal` is for the personal route only (create and update alike). */
export function personalOffItsRoute(): AppError {
  return AppError.invalid([
    {
      loc: ['body', 'visibility'],
      msg: `Personal entries can only be created through ${PERSONAL_ROUTE}`,
      type: 'value_error',
    },
  ]);
}

/** 409: one entry per language in a translation group. */
export function languageTaken(language: string): AppError {
  return AppError.conflict(`The translation group already has an entry in language "${language}"`);
}

/** 409: a write that lost the race against another one after its read. */
export function changedMeanwhile(): AppError {
  return AppError.conflict('The entry was changed by another request; read it again and retry');
}
