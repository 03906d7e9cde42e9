import { Type } from '@sinclair/typebox';
import { assertValid, isDateTime, normaliseDateTime, parseDateTime, validationIssues } from '../src/validation';
import { AppError, loadConfig, ConfigError } from '@kb/platform';

const Body = Type.Object(
  {
    title: Type.String({ minLength: 1, maxLength: 5 }),
    layer: Type.Optional(Type.Union([Type.String({ maxLength: 3 }), Type.Null()])),
    kind: Type.Optional(Type.Union([Type.Literal('a'), Type.Literal('b'), Type.Literal('c')])),
    id: Type.Optional(Type.String({ format: 'uuid' })),
    tags: Type.Optional(Type.Array(Type.String(), { maxItems: 2 })),
    count: Type.Optional(Type.Integer({ minimum: 0 })),
  },
  { additionalProperties: false },
);

describe('validation issues in the FastAPI shape', () => {
  test.each([
    ['a missing required field', {}, ['body', 'title'], 'missing', 'Field required'],
    [
      'a too-short string',
      { title: '' },
      ['body', 'title'],
      'string_too_short',
      'String should have at least 1 character',
    ],
    [
      'a too-long string',
      { title: 'abcdef' },
      ['body', 'title'],
      'string_too_long',
      'String should have at most 5 characters',
    ],
    [
      'a too-long nullable string',
      { title: 'a', layer: 'abcd' },
      ['body', 'layer'],
      'string_too_long',
      'String should have at most 3 characters',
    ],
    ['an unknown enum value', { title: 'a', kind: 'z' }, ['body', 'kind'], 'enum', "Input should be 'a', 'b' or 'c'"],
    ['a malformed uuid', { title: 'a', id: 'nope' }, ['body', 'id'], 'uuid_parsing', 'Input should be a valid UUID'],
    [
      'too many items',
      { title: 'a', tags: ['1', '2', '3'] },
      ['body', 'tags'],
      'too_long',
      'List should have at most 2 items after validation, not 3',
    ],
    [
      'a wrong item type',
      { title: 'a', tags: ['1', 2] },
      ['body', 'tags', 1],
      'string_type',
      'Input should be a valid string',
    ],
    [
      'a negative integer',
      { title: 'a', count: -1 },
      ['body', 'count'],
      'greater_than_equal',
      'Input should be greater than or equal to 0',
    ],
    [
      'an unknown key',
      { title: 'a', extra: 1 },
      ['body', 'extra'],
      'extra_forbidden',
      'Extra inputs are not permitted',
    ],
  ])('when the input has %s, then the issue names its location, type and message', (_label, value, loc, type, msg) => {
    expect(validationIssues(Body, value, ['body'])).toEqual(expect.arrayContaining([{ loc, type, msg }]));
  });

  test('when the input is valid, then assertValid returns it and throws nothing', () => {
    expect(assertValid(Body, { title: 'ok', layer: null }, ['body'])).toEqual({ title: 'ok', layer: null });
  });

  test('when the input is invalid, then assertValid throws a 422-kind AppError with every issue', () => {
    try {
      assertValid(Body, { title: '', count: -2 }, ['body']);
      throw new Error('expected a throw');
    } catch (err) {
      expect(err).toBeInstanceOf(AppError);
      expect((err as AppError).kind).toBe('invalid');
      expect((err as AppError).issues?.map((i) => i.loc.join('.'))).toEqual(['body.title', 'body.count']);
    }
  });
});

describe('date-time format', () => {
  test.each([
    '2026-11-27T21:00:00Z',
    '2026-11-27t21:00:00.123z',
    '2024-02-29T00:00:00+01:00',
    '2026-04-30T23:59:59-05:30',
    '2026-01-01',
    '2026-01-01T00:00:00',
    '2026-01-01 10:30',
    '2026-01-01T10:30:00.123456+0100',
  ])('%s is a date-time', (value) => {
    expect(isDateTime(value)).toBe(true);
  });

  test.each([
    ['a day the month does not have', '2026-02-30T00:00:00Z'],
    ['February 29th of a common year', '2025-02-29T00:00:00Z'],
    ['April 31st', '2026-04-31T00:00:00Z'],
    ['hour 24', '2026-01-01T24:00:00Z'],
    ['month 13', '2026-13-01T00:00:00Z'],
    ['month 0', '2026-00-10'],
    ['second 60', '2026-01-01T23:59:60Z'],
    ['an offset of 24 hours', '2026-01-01T00:00:00+24:00'],
    ['an hour without minutes', '2026-01-01T10'],
    ['a zone on a date alone', '2026-01-01Z'],
    ['one-digit month and day', '2026-1-1'],
    ['words', 'yesterday'],
    ['a number', '1767225600'],
  ])('%s (%s) is not', (_, value) => {
    expect(isDateTime(value)).toBe(false);
  });

  test.each([
    ['2026-01-01', '2026-01-01T00:00:00.000Z'],
    ['2026-01-01T00:00:00', '2026-01-01T00:00:00.000Z'],
    ['2026-01-01 10:30', '2026-01-01T10:30:00.000Z'],
    ['2026-01-01T00:30:00+01:00', '2025-12-31T23:30:00.000Z'],
    ['2026-01-01T10:30:00.123456+0100', '2026-01-01T09:30:00.123Z'],
    ['2024-02-29T23:00:00-05:30', '2024-03-01T04:30:00.000Z'],
    ['0099-06-01T00:00:00Z', '0099-06-01T00:00:00.000Z'],
  ])('%s is %s in UTC, whatever the machine zone', (value, utc) => {
    expect(normaliseDateTime(value)).toBe(utc);
    expect(parseDateTime(value)).toBe(Date.parse(utc));
  });

  test('a value that is not a date-time is not normalised', () => {
    expect(() => normaliseDateTime('2026-02-30')).toThrow(RangeError);
    expect(parseDateTime('2026-02-30')).toBeUndefined();
  });
});

describe('configuration from the environment', () => {
  const Schema = Type.Object({
    PORT: Type.Integer({ default: 8080, minimum: 1, maximum: 65535 }),
    URL: Type.String({ pattern: '^https?://' }),
  });

  test('when variables are valid, then they are converted and defaulted', () => {
    expect(loadConfig(Schema, { URL: 'http://x' })).toEqual({ PORT: 8080, URL: 'http://x' });
    expect(loadConfig(Schema, { URL: 'http://x', PORT: '9000' }).PORT).toBe(9000);
  });

  test('when a variable is wrong or missing, then one line names each variable once', () => {
    expect(() => loadConfig(Schema, { PORT: 'eighty' })).toThrow(ConfigError);
    try {
      loadConfig(Schema, { PORT: 'eighty' });
    } catch (err) {
      const message = (err as Error).message;
      expect(message).not.toContain('\n');
      expect(message).toMatch(/PORT expected integer \(value not shown\)/);
      expect(message).not.toContain('eighty');
      expect(message).toMatch(/URL is required \(not set\)/);
      expect(message.match(/URL/g)).toHaveLength(1);
    }
  });
});
