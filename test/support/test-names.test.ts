import { ofTestRun, testName, testRun } from './test-names';

describe('the names a test run gives what it makes on the backends', () => {
  test('when a run names a database or an index prefix, then its teardown finds it, and nothing of another run or of a user', () => {
    const run = testRun();
    const db = testName('kbtest');
    expect(db).toMatch(new RegExp(`^kbtest-${run}[0-9a-f]{8}$`));
    expect(ofTestRun(db, run)).toBe(true);
    expect(ofTestRun(`${testName('t')}-products-all-minilm-l6-v2-q-384-20261128162855200-02646d`, run)).toBe(true);
    const other = run === 'ffff' ? '0000' : 'ffff';
    expect(ofTestRun(db, other)).toBe(false);
    for (const theirs of [
      'kb-products-all-minilm-l6-v2-q-384',
      'knowledge_service',
      'admin',
      `kbtest${run}00000000`,
      `${run}00000000`,
      `kbtest-${run}0000`,
    ])
      expect([theirs, ofTestRun(theirs, run)]).toEqual([theirs, false]);
  });
});
