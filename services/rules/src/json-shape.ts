import { AppError, type ValidationIssue } from '@kb/platform';
import { JSON_LIMITS } from './limits';

/**
 * The shape of a JSON body, checked before anything recurses into it: the gateway on every
 * body, the catalog on every product it reads (import lines do not pass through the gateway).
 */
export type ShapeProblem = { kind: 'duplicate'; key: string } | { kind: 'too_deep' };

/**
 * One pass over a (well-formed) JSON text: the first key that appears twice in one object
 * (JSON.parse would silently keep the last), or nesting deeper than `maxDepth`. A linear scan,
 * so a body nested 10,000 deep costs no stack.
 */
export function jsonShapeProblem(text: string, maxDepth: number = JSON_LIMITS.maxDepth): ShapeProblem | null {
  const stack: { keys: Set<string> | null; expectKey: boolean }[] = [];
  for (let i = 0; i < text.length; i++) {
    const ch = text[i];
    if (ch === '{' || ch === '[') {
      if (stack.length >= maxDepth) return { kind: 'too_deep' };
      stack.push(ch === '{' ? { keys: new Set(), expectKey: true } : { keys: null, expectKey: false });
    } else if (ch === '}' || ch === ']') stack.pop();
    else if (ch === ',') {
      const top = stack[stack.length - 1];
      if (top?.keys) top.expectKey = true;
    } else if (ch === ':') {
      const top = stack[stack.length - 1];
      if (top) top.expectKey = false;
    } else if (ch === '"') {
      let j = i + 1;
      while (j < text.length && text[j] !== '"') j += text[j] === '\\' ? 2 : 1;
      const top = stack[stack.length - 1];
      if (top?.keys && top.expectKey) {
        let key: string;
        try {
          key = JSON.parse(text.slice(i, j + 1)) as string;
        } catch {
          key = text.slice(i + 1, j);
        }
        if (top.keys.has(key)) return { kind: 'duplicate', key };
        top.keys.add(key);
      }
      i = j;
    }
  }
  return null;
}

export const tooDeepIssue = (loc: (string | number)[]): ValidationIssue => ({
  loc,
  msg: `JSON should be nested at most ${JSON_LIMITS.maxDepth} levels deep`,
  type: 'json_too_deep',
});

// Control characters (NUL among them) break logs and drivers; a leading `$` is a MongoDB
// operator and a `.` a MongoDB path and an Elasticsearch object path; an empty name is
// refused by Elasticsearch.
const BAD_KEY = /^$|^\$|\.|[\u0000-\u001f\u007f]/;

/**
 * Keys of every object in a parsed value: at most `maxKeys` per object, each at most
 * `maxKeyLength` characters and none a MongoDB or Elasticsearch would trip on. Issues point at
 * the offending key, e.g. ["body", "metadata", "a.b"]. `depth` is the nesting level of `value`
 * (1 for a body); the walk stops at the depth limit, so a value parsed elsewhere (an import
 * line, a gRPC field) can never take it deep into the stack.
 */
export function keyIssues(value: unknown, loc: (string | number)[] = ['body'], depth = 1): ValidationIssue[] {
  if (value === null || typeof value !== 'object') return [];
  if (depth > JSON_LIMITS.maxDepth) return [tooDeepIssue(loc)];
  if (Array.isArray(value)) return value.flatMap((item, i) => keyIssues(item, [...loc, i], depth + 1));
  const keys = Object.keys(value);
  const issues: ValidationIssue[] = [];
  if (keys.length > JSON_LIMITS.maxKeys) {
    issues.push({ loc, msg: `Object should have at most ${JSON_LIMITS.maxKeys} keys`, type: 'too_many_keys' });
  }
  for (const key of keys) {
    if ([...key].length > JSON_LIMITS.maxKeyLength) {
      issues.push({
        loc: [...loc, key],
        msg: `Key should have at most ${JSON_LIMITS.maxKeyLength} characters`,
        type: 'key_too_long',
      });
    } else if (BAD_KEY.test(key)) {
      issues.push({
        loc: [...loc, key],
        msg: 'Key should be non-empty, without control characters or ".", and not start with "$"',
        type: 'key_invalid',
      });
    }
    issues.push(...keyIssues((value as Record<string, unknown>)[key], [...loc, key], depth + 1));
  }
  return issues;
}

/**
 * A free-form object field that crosses gRPC as JSON text (entry metadata, site config):
 * undefined when not sent or empty, a 422 at `loc` when the text is not JSON.
 */
export function parseJsonField(json: string | null | undefined, loc: (string | number)[]): unknown {
  if (json === null || json === undefined || json === '') return undefined;
  try {
    return JSON.parse(json) as unknown;
  } catch {
    throw AppError.invalid([{ loc, msg: 'Input should be a valid dictionary', type: 'dict_type' }]);
  }
}
