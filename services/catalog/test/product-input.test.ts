import { AppError } from '@kb/platform';
import { PRODUCT_INPUT_FIELDS, ProductCreate, ProductInput } from '@kb/rules';
import { assertProductInput, productFromJsonText, productIssues } from '../src/domain/product-input';

const types = (issues: { type: string }[]) => issues.map((i) => i.type);

describe('product input', () => {
  test('when the gateway form and the catalog form are compared, then they have the same fields in the same order', () => {
    expect(Object.keys(ProductCreate.properties)).toEqual(Object.keys(ProductInput.properties));
    expect(PRODUCT_INPUT_FIELDS[0]).toBe('title');
    expect(PRODUCT_INPUT_FIELDS).toContain('sync_hash');
  });

  test('when only title and language are sent, then there is no issue', () => {
    expect(productIssues({ title: 'Chair', language: 'de' }, ['body'])).toEqual([]);
  });

  test('when the title is missing, then the issue is "missing" at body.title', () => {
    const issues = productIssues({ language: 'de' }, ['body']);
    expect(issues).toContainEqual(expect.objectContaining({ loc: ['body', 'title'], type: 'missing' }));
  });

  test('when an unknown field is sent, then it is refused as extra_forbidden', () => {
    expect(types(productIssues({ title: 'x', language: 'de', colour: 'red' }, ['body']))).toContain('extra_forbidden');
  });

  test('when the language is longer than 5 characters, then it is too long', () => {
    expect(types(productIssues({ title: 'x', language: 'de-DE-x' }, ['body']))).toEqual(['string_too_long']);
  });

  test('when rating_count is negative, then it is below its bound', () => {
    expect(types(productIssues({ title: 'x', language: 'de', rating_count: -1 }, ['body']))).toEqual([
      'greater_than_equal',
    ]);
  });

  test('when a price has 34 digits written out, then it is accepted', () => {
    expect(productIssues({ title: 'x', language: 'de', price_current: `${'9'.repeat(30)}.9999` }, ['body'])).toEqual(
      [],
    );
  });

  test('when a price has 35 digits written out, then it is refused with decimal_max_digits at its field', () => {
    const issues = productIssues(
      { title: 'x', language: 'de', price_msrp: `${'1'.repeat(20)}.${'1'.repeat(15)}` },
      [3],
    );
    expect(issues).toEqual([expect.objectContaining({ loc: [3, 'price_msrp'], type: 'decimal_max_digits' })]);
  });

  test('when the rating is above 5 by a fraction, then it is refused as less_than_equal 5', () => {
    const issues = productIssues({ title: 'x', language: 'de', rating_average: '5.01' }, ['body']);
    expect(issues).toEqual([
      { loc: ['body', 'rating_average'], msg: 'Input should be less than or equal to 5', type: 'less_than_equal' },
    ]);
  });

  test('when the rating is negative, then it is refused as greater_than_equal 0', () => {
    expect(types(productIssues({ title: 'x', language: 'de', rating_average: '-0.5' }, ['body']))).toEqual([
      'greater_than_equal',
    ]);
  });

  test('when a decimal string is not a number, then the pattern refuses it', () => {
    expect(types(productIssues({ title: 'x', language: 'de', price_current: '12,50' }, ['body']))).toEqual([
      'string_pattern_mismatch',
    ]);
  });

  test('when the input is invalid, then assertProductInput throws an invalid AppError with the issues', () => {
    expect.assertions(2);
    try {
      assertProductInput({ language: 'de' });
    } catch (err) {
      expect(err).toBeInstanceOf(AppError);
      expect((err as AppError).kind).toBe('invalid');
    }
  });

  test('when an import line has a price as a JSON number, then its exact digits are kept as a string', () => {
    const { value, issues } = productFromJsonText(
      '{"title":"x","language":"de","price_current":19.990000000000000001}',
      [0],
    );
    expect(issues).toEqual([]);
    expect(value?.price_current).toBe('19.990000000000000001');
  });

  test('when an import line has a price as a string, then it is a float_type issue', () => {
    const { value, issues } = productFromJsonText('{"title":"x","language":"de","price_current":"19.99"}', [4]);
    expect(value).toBeUndefined();
    expect(issues).toEqual([{ loc: [4, 'price_current'], msg: 'Input should be a valid number', type: 'float_type' }]);
  });

  test('when an import line repeats a key, then it is refused as json_invalid', () => {
    expect(types(productFromJsonText('{"title":"x","title":"y","language":"de"}', [0]).issues)).toEqual([
      'json_invalid',
    ]);
  });

  test('when an import line is not an object, then it is a dict_type issue', () => {
    expect(types(productFromJsonText('[1,2]', [0]).issues)).toEqual(['dict_type']);
  });
});
