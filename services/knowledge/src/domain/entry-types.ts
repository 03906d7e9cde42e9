import { Value } from '@sinclair/typebox/value';
import { AppError } from '@kb/platform';
import { METADATA_SCHEMAS, normaliseDateTime, validationIssues } from '@kb/rules';
import type { Viewer } from './visibility';

/** The validated, normalised metadata of a type; 422 at ["body", "metadata", …] otherwise. */
export function normaliseMetadata(type: string, raw: unknown): Record<string, unknown> {
  const schema = METADATA_SCHEMAS[type] ?? METADATA_SCHEMAS.knowledge!;
  const value = raw === undefined || raw === null ? {} : raw;
  const withDefaults = Value.Default(schema, structuredClone(value));
  if (!Value.Check(schema, withDefaults))
    throw AppError.invalid(validationIssues(schema, withDefaults, ['body', 'metadata']));
  const cleaned = Value.Clean(schema, withDefaults) as Record<string, unknown>;
  if (type === 'memory' && typeof cleaned.expires_at === 'string') {
    cleaned.expires_at = normaliseDateTime(cleaned.expires_at as string); // RFC 3339 UTC, whatever form was sent
  }
  if (type === 'glossary' && Array.isArray(cleaned.synonyms)) {
    cleaned.synonyms = [...new Set((cleaned.synonyms as string[]).map((s) => s.trim()).filter(Boolean))];
  }
  return cleaned;
}

/** When a memory entry expires (null for every other type, or without expires_at). */
export function expiryOf(type: string, metadata: Record<string, unknown>): Date | null {
  if (type !== 'memory' || typeof metadata.expires_at !== 'string') return null;
  return new Date(metadata.expires_at);
}

/** Whether an entry has expired (only memories expire) at `now`. */
export function isExpired(e: { expires_at: Date | null }, now: number = Date.now()): boolean {
  return !!e.expires_at && e.expires_at.getTime() <= now;
}

/** 403 unless the viewer's role may write entries of this type; the skill index only the system writes. */
export function assertMayWriteType(v: Viewer, type: string): void {
  if (type === 'skill_index')
    throw AppError.forbidden('skill_index entries are maintained by the system and cannot be written');
  if (!v.writableTypes.includes(type)) throw AppError.forbidden(`Role ${v.caller.role} may not write ${type} entries`);
}
