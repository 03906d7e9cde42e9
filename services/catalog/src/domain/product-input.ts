import { AppError, type ValidationIssue } from '@kb/platform';
import {
  jsonShapeProblem,
  keyIssues,
  numberToken,
  isValid,
  ProductInput,
  RATING_BOUNDS,
  tooDeepIssue,
  validationIssues,
  DECIMAL_FIELDS,
  exactDecimal,
  MAX_DECIMAL_DIGITS,
  parseKeepingNumbers,
  resolveNumbers,
} from '@kb/rules';

export { ProductInput } from '@kb/rules';

/**
 * Schema problems, the keys of attributes and properties (as the gateway checks every body:
 * the import CLI and a bulk item reach here without it), then the exact-decimal rules
 * (representable; rating within RATING_BOUNDS, on the exact value the schema sees as a string).
 */
export function productIssues(value: unknown, prefix: (string | number)[]): ValidationIssue[] {
  if (!isValid(ProductInput, value)) return validationIssues(ProductInput, value, prefix);
  const keys = keyIssues(value, prefix);
  if (keys.length) return keys.slice(0, 20);
  const issues: ValidationIssue[] = [];
  const input = value as ProductInput;
  for (const field of DECIMAL_FIELDS) {
    const v = input[field];
    if (v == null) continue;
    if (exactDecimal(v) === undefined) {
      issues.push({
        loc: [...prefix, field],
        msg: `Decimal input should have no more than ${MAX_DECIMAL_DIGITS} digits in total`,
        type: 'decimal_max_digits',
      });
    } else if (field === 'rating_average') {
      const low = Number(v) < RATING_BOUNDS.minimum;
      if (low || Number(v) > RATING_BOUNDS.maximum) {
        issues.push({
          loc: [...prefix, field],
          msg: low
            ? `Input should be greater than or equal to ${RATING_BOUNDS.minimum}`
            : `Input should be less than or equal to ${RATING_BOUNDS.maximum}`,
          type: low ? 'greater_than_equal' : 'less_than_equal',
        });
      }
    }
  }
  return issues;
}

export function assertProductInput(value: unknown, prefix: (string | number)[] = ['body']): ProductInput {
  const issues = productIssues(value, prefix);
  if (issues.length) throw AppError.invalid(issues);
  return value as ProductInput;
}

/**
 * A product from a line of JSON text (the import file): numbers keep their source text, prices
 * and rating sent as strings are refused (as at the HTTP edge). Returns the value or the issues.
 */
export function productFromJsonText(
  text: string,
  prefix: (string | number)[],
): { value?: ProductInput; issues: ValidationIssue[] } {
  // Depth first, on the text: a line nested thousands deep never reaches a recursive step.
  const shape = jsonShapeProblem(text);
  if (shape?.kind === 'too_deep') return { issues: [tooDeepIssue(prefix)] };
  if (shape?.kind === 'duplicate')
    return { issues: [{ loc: prefix, msg: `Invalid JSON: duplicate key "${shape.key}"`, type: 'json_invalid' }] };
  let raw: unknown;
  try {
    raw = parseKeepingNumbers(text);
  } catch {
    return { issues: [{ loc: prefix, msg: 'Invalid JSON', type: 'json_invalid' }] };
  }
  if (!raw || typeof raw !== 'object' || Array.isArray(raw)) {
    return { issues: [{ loc: prefix, msg: 'Input should be a valid dictionary', type: 'dict_type' }] };
  }
  const wrongType: ValidationIssue[] = [];
  for (const field of DECIMAL_FIELDS) {
    const v = (raw as Record<string, unknown>)[field];
    if (v !== undefined && v !== null && numberToken(v) === undefined) {
      wrongType.push({ loc: [...prefix, field], msg: 'Input should be a valid number', type: 'float_type' });
    }
  }
  const value = resolveNumbers(raw);
  const issues = [
    ...wrongType,
    ...productIssues(value, prefix).filter((i) => !wrongType.some((w) => w.loc.join() === i.loc.join())),
  ];
  return issues.length ? { issues } : { value: value as ProductInput, issues };
}

/** A product body as decoded from its JSON text: the value, or why it could not be read. */
export interface DecodedProduct {
  value?: unknown;
  issues?: ValidationIssue[];
}
