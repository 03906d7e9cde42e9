import { FormatRegistry, type TSchema, type Static, Kind } from '@sinclair/typebox';
import { Value } from '@sinclair/typebox/value';
import { ValueErrorType, type ValueError } from '@sinclair/typebox/errors';
import { AppError, type ValidationIssue } from '@kb/platform';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
/**
 * The date-time forms accepted: RFC 3339 (`2026-11-27T21:00:00Z`, `…+01:00`), and the ISO 8601
 * forms pydantic's datetime takes too: a date alone (midnight), a space for the `T`, minutes
 * without seconds, an offset without its colon (`+0100`), and no zone at all (read as UTC).
 */
const DATE_TIME =
  /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,9}))?)?(Z|([+-])(\d{2}):?(\d{2}))?)?$/i;

/**
 * The moment a date-time names (milliseconds since the epoch), or undefined when it is not one
 * of the accepted forms (DATE_TIME) or names no real moment: Date.parse alone is not enough, V8
 * takes any day up to 31 in any month and hour 24, rolling them over (2026-02-30 is March 2nd),
 * and reads a time without a zone as local time.
 */
export function parseDateTime(value: string): number | undefined {
  const m = DATE_TIME.exec(value);
  if (!m) return undefined;
  const n = (group: number) => Number(m[group] ?? 0);
  const [year, month, day, hour, minute, second] = [n(1), n(2), n(3), n(4), n(5), n(6)] as const;
  const [offsetHours, offsetMinutes] = [n(10), n(11)] as const;
  const at = new Date(0);
  // setUTCFullYear, not Date.UTC, which reads years 0-99 as 1900-1999; day 0 of the next month is this one's last.
  at.setUTCFullYear(year, month, 0);
  if (month < 1 || month > 12 || day < 1 || day > at.getUTCDate()) return undefined;
  if (hour > 23 || minute > 59 || second > 59 || offsetHours > 23 || offsetMinutes > 59) return undefined;
  at.setUTCFullYear(year, month - 1, day);
  at.setUTCHours(hour, minute, second, Number((m[7] ?? '').padEnd(3, '0').slice(0, 3)));
  const sign = m[9] === '-' ? -1 : 1;
  return at.getTime() - sign * (offsetHours * 60 + offsetMinutes) * 60_000;
}

/** Whether `value` is an accepted date-time that names a real moment (parseDateTime). */
export function isDateTime(value: string): boolean {
  return parseDateTime(value) !== undefined;
}

/**
 * An accepted date-time as its RFC 3339 UTC form (`2026-01-01` → `2026-01-01T00:00:00.000Z`), so
 * that what is stored and queried never depends on the form the caller wrote; throws on a value
 * isDateTime refuses.
 */
export function normaliseDateTime(value: string): string {
  const at = parseDateTime(value);
  if (at === undefined) throw new RangeError(`Not a date-time: ${value}`);
  return new Date(at).toISOString();
}

// typebox checks formats only when they are registered.
if (!FormatRegistry.Has('uuid')) FormatRegistry.Set('uuid', (v) => UUID.test(v));
if (!FormatRegistry.Has('date-time')) FormatRegistry.Set('date-time', isDateTime);

export function isUuid(value: string): boolean {
  return UUID.test(value);
}

function toLoc(prefix: (string | number)[], path: string): (string | number)[] {
  const parts = path
    .split('/')
    .slice(1)
    .map((p) => p.replace(/~1/g, '/').replace(/~0/g, '~'))
    .map((p) => (/^\d+$/.test(p) ? Number(p) : p));
  return [...prefix, ...parts];
}

const isLiteralUnion = (schema: TSchema): boolean =>
  schema[Kind] === 'Union' && Array.isArray(schema.anyOf) && schema.anyOf.every((s: TSchema) => s[Kind] === 'Literal');

function quoteList(values: unknown[]): string {
  const q = values.map((v) => `'${String(v)}'`);
  return q.length > 1 ? `${q.slice(0, -1).join(', ')} or ${q[q.length - 1]}` : (q[0] ?? '');
}

/**
 * One typebox error in the wording and type names FastAPI (pydantic) uses. Long because it is a
 * table: one short case per typebox error kind, read top to bottom.
 */
function describe(error: ValueError): { msg: string; type: string } {
  const s = error.schema;
  switch (error.type) {
    case ValueErrorType.ObjectRequiredProperty:
      return { msg: 'Field required', type: 'missing' };
    case ValueErrorType.ObjectAdditionalProperties:
      return { msg: 'Extra inputs are not permitted', type: 'extra_forbidden' };
    case ValueErrorType.String:
      return { msg: 'Input should be a valid string', type: 'string_type' };
    case ValueErrorType.StringMinLength:
      return {
        msg: `String should have at least ${s.minLength} character${s.minLength === 1 ? '' : 's'}`,
        type: 'string_too_short',
      };
    case ValueErrorType.StringMaxLength:
      return { msg: `String should have at most ${s.maxLength} characters`, type: 'string_too_long' };
    case ValueErrorType.StringPattern:
      return { msg: `String should match pattern '${s.pattern}'`, type: 'string_pattern_mismatch' };
    case ValueErrorType.StringFormat:
      if (s.format === 'uuid') return { msg: 'Input should be a valid UUID', type: 'uuid_parsing' };
      if (s.format === 'date-time') return { msg: 'Input should be a valid datetime', type: 'datetime_parsing' };
      return { msg: `Input should be a valid ${s.format}`, type: 'value_error' };
    case ValueErrorType.Integer:
      return { msg: 'Input should be a valid integer', type: 'int_type' };
    case ValueErrorType.Number:
      return { msg: 'Input should be a valid number', type: 'float_type' };
    case ValueErrorType.Boolean:
      return { msg: 'Input should be a valid boolean', type: 'bool_type' };
    case ValueErrorType.IntegerMinimum:
    case ValueErrorType.NumberMinimum:
      return { msg: `Input should be greater than or equal to ${s.minimum}`, type: 'greater_than_equal' };
    case ValueErrorType.IntegerMaximum:
    case ValueErrorType.NumberMaximum:
      return { msg: `Input should be less than or equal to ${s.maximum}`, type: 'less_than_equal' };
    case ValueErrorType.IntegerExclusiveMinimum:
    case ValueErrorType.NumberExclusiveMinimum:
      return { msg: `Input should be greater than ${s.exclusiveMinimum}`, type: 'greater_than' };
    case ValueErrorType.IntegerExclusiveMaximum:
    case ValueErrorType.NumberExclusiveMaximum:
      return { msg: `Input should be less than ${s.exclusiveMaximum}`, type: 'less_than' };
    case ValueErrorType.Array:
      return { msg: 'Input should be a valid list', type: 'list_type' };
    case ValueErrorType.ArrayMinItems:
      return {
        msg:
          `List should have at least ${s.minItems} item${s.minItems === 1 ? '' : 's'} ` +
          `after validation, not ${(error.value as unknown[]).length}`,
        type: 'too_short',
      };
    case ValueErrorType.ArrayMaxItems:
      return {
        msg: `List should have at most ${s.maxItems} items after validation, not ${(error.value as unknown[]).length}`,
        type: 'too_long',
      };
    case ValueErrorType.Object:
      return { msg: 'Input should be a valid dictionary', type: 'dict_type' };
    case ValueErrorType.Literal:
      return { msg: `Input should be ${quoteList([s.const])}`, type: 'literal_error' };
    case ValueErrorType.Null:
      return { msg: 'Input should be None', type: 'none_required' };
    case ValueErrorType.Never:
      return { msg: 'This field may not be sent', type: 'extra_forbidden' };
    case ValueErrorType.Union:
      if (isLiteralUnion(s)) {
        // A value the schema leaves out on purpose, with the reason (`refusals`, e.g. visibility
        // personal off the personal route), rather than the bare list of what is allowed.
        const refusal = (s.refusals as Record<string, string> | undefined)?.[String(error.value)];
        if (refusal) return { msg: refusal, type: 'value_error' };
        return { msg: `Input should be ${quoteList(s.anyOf.map((l: TSchema) => l.const))}`, type: 'enum' };
      }
      return { msg: error.message, type: 'value_error' };
    default:
      return { msg: error.message, type: 'value_error' };
  }
}

/**
 * For a union such as `string | null`, report the branch that matches the value's JSON type
 * (a too-long string says "at most 50 characters", not "does not match any").
 */
function unwrapUnion(error: ValueError): ValueError {
  if (error.type !== ValueErrorType.Union || isLiteralUnion(error.schema)) return error;
  const candidates: ValueError[] = [];
  for (const branch of error.errors) {
    const first = branch.First();
    if (first) candidates.push(first);
  }
  const sameType = candidates.find(
    (c) =>
      c.type !== ValueErrorType.Null &&
      c.type !== ValueErrorType.Literal &&
      c.type !== ValueErrorType.String &&
      c.type !== ValueErrorType.Object &&
      c.type !== ValueErrorType.Array &&
      c.type !== ValueErrorType.Number &&
      c.type !== ValueErrorType.Integer &&
      c.type !== ValueErrorType.Boolean,
  );
  if (sameType) return unwrapUnion(sameType);
  const typeError = candidates.find((c) => c.type !== ValueErrorType.Null);
  return typeError ?? error;
}

const ASTRAL = /[\uD800-\uDBFF][\uDC00-\uDFFF]/g;

/**
 * The value as JSON Schema measures it: typebox counts a string's length in UTF-16 units, JSON
 * Schema (and so the OpenAPI document and every client checking against it) in characters. Each
 * character outside the BMP becomes one U+FFFD, which no schema here tells apart from it (not
 * white space, not ASCII, in no pattern's class). The value itself when it has none (the usual case).
 */
function asCharacters(value: unknown): unknown {
  let astral = false;
  const walk = (v: unknown): unknown => {
    if (typeof v === 'string') {
      if (!/[\uD800-\uDBFF]/.test(v)) return v;
      astral = true;
      return v.replace(ASTRAL, '\uFFFD');
    }
    if (Array.isArray(v)) return v.map(walk);
    // Values validated here are parsed JSON: every object is a plain one (of whichever realm).
    if (v && typeof v === 'object') return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, walk(x)]));
    return v;
  };
  const shadow = walk(value);
  return astral ? shadow : value;
}

/** Whether `value` satisfies `schema`, string lengths counted in characters as JSON Schema counts them. */
export function isValid(schema: TSchema, value: unknown): boolean {
  return Value.Check(schema, asCharacters(value));
}

/** Every problem of `value` against `schema`, in FastAPI's {loc, msg, type} shape (one per location). */
export function validationIssues(schema: TSchema, value: unknown, prefix: (string | number)[]): ValidationIssue[] {
  const issues: ValidationIssue[] = [];
  const seen = new Set<string>();
  for (const raw of Value.Errors(schema, asCharacters(value))) {
    const error = unwrapUnion(raw);
    const loc = toLoc(prefix, error.path);
    const key = JSON.stringify(loc);
    if (seen.has(key)) continue;
    seen.add(key);
    issues.push({ loc, ...describe(error) });
  }
  return issues;
}

/** Returns the value typed by the schema, or throws a 422-kind AppError listing every problem. */
export function assertValid<T extends TSchema>(schema: T, value: unknown, prefix: (string | number)[]): Static<T> {
  if (isValid(schema, value)) return value as Static<T>;
  throw AppError.invalid(validationIssues(schema, value, prefix));
}
