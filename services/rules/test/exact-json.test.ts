import { LINEAR_DECIMAL_PATTERN, INTERFACE_DECIMAL_PATTERN } from '../src/exact-json';
import { ProductInput } from '../src/product-input';
import { validationIssues } from '../src/validation';

describe('the decimal string pattern', () => {
  test(
    'when every string of up to six characters over digits, signs, points and a letter ' +
      'is tried, then the check pattern accepts exactly what the published one does',
    () => {
      const published = new RegExp(INTERFACE_DECIMAL_PATTERN);
      const check = new RegExp(LINEAR_DECIMAL_PATTERN);
      const alphabet = ['0', '7', '+', '-', '.', 'x'];
      const disagreements: string[] = [];
      let tried = 0;
      const visit = (s: string) => {
        tried++;
        if (published.test(s) !== check.test(s)) disagreements.push(s);
        if (s.length < 6) for (const c of alphabet) visit(s + c);
      };
      visit('');
      expect(tried).toBe(55_987);
      expect(disagreements).toEqual([]);
    },
  );

  test('when a price is thousands of zeros and then a letter, then the product input refuses it at once as a pattern mismatch', () => {
    // With the published pattern this one check backtracks cubically: minutes, so the test times out.
    const price = `${'0'.repeat(20_000)}x`;
    const issues = validationIssues(ProductInput, { title: 'Kettle', language: 'en', price_current: price }, ['body']);
    expect(issues).toEqual([
      {
        loc: ['body', 'price_current'],
        msg: `String should match pattern '${LINEAR_DECIMAL_PATTERN}'`,
        type: 'string_pattern_mismatch',
      },
    ]);
  }, 5_000);
});
