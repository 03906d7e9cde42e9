import { ANSWER_BYTE_BUDGET, AnswerBudget, answerItemBytes, withinBudget } from '../src/limits';

describe('the answer byte budget (the cut rule)', () => {
  const MiB = 1024 * 1024;

  it('is well under the 16 MiB gRPC message cap', () => {
    expect(ANSWER_BYTE_BUDGET).toBe(8 * MiB);
  });

  it('keeps items in order while the total stays within the budget, and stops at the first that would pass it', () => {
    expect(withinBudget([3, 3, 3, 1], (n) => n, 7)).toEqual([3, 3]);
    expect(withinBudget([3, 4, 1], (n) => n, 7)).toEqual([3, 4]);
  });

  it('always keeps the first item, even one larger than the budget, so a page is never empty', () => {
    expect(withinBudget([9, 1], (n) => n, 7)).toEqual([9]);
    expect(withinBudget([], (n: number) => n, 7)).toEqual([]);
  });

  it('once an item is refused, refuses every later one (an answer is a prefix: a cursor after it loses nothing)', () => {
    const b = new AnswerBudget(10);
    expect([b.admit(6), b.admit(5), b.admit(1), b.admit(0)]).toEqual([true, false, false, false]);
    expect(b.bytes).toBe(6);
  });

  it('measures an item by its JSON in UTF-8 bytes, escapes included, plus an allowance for the REST view', () => {
    const plain = answerItemBytes({ a: 'x' });
    expect(plain).toBe(Buffer.byteLength('{"a":"x"}') + 512);
    // Quotes and control characters grow when escaped; multi-byte characters count as bytes.
    expect(answerItemBytes({ a: '"\u0001' })).toBe(Buffer.byteLength('{"a":"\\"\\u0001"}') + 512);
    expect(answerItemBytes({ a: 'ü€' })).toBe(Buffer.byteLength('{"a":"ü€"}') + 512);
  });
});
