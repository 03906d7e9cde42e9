import type { EntryContext } from '../src/domain/entries/context';
import { oneAtATimePerKey } from '../src/domain/entries/one-at-a-time';
import { writeUnit } from '../src/domain/entries/write-unit';
import { caller } from './support/fixtures';

const tick = () => new Promise((resolve) => setImmediate(resolve));

describe('skill-index rebuilds of one tenant, one at a time', () => {
  it('when two calls for one key overlap, then the second starts only after the first ended, even when it failed', async () => {
    const turns = oneAtATimePerKey();
    const log: string[] = [];
    let release!: () => void;
    const first = turns('t1', async () => {
      log.push('first start');
      await new Promise<void>((resolve) => (release = resolve));
      log.push('first end');
      throw new Error('first failed');
    });
    const second = turns('t1', async () => void log.push('second'));
    await tick();
    expect(log).toEqual(['first start']);
    release();
    await expect(first).rejects.toThrow('first failed');
    await second;
    expect(log).toEqual(['first start', 'first end', 'second']);
  });

  it('when calls are for different keys, then they do not wait for each other', async () => {
    const turns = oneAtATimePerKey();
    const log: string[] = [];
    void turns('t1', () => new Promise<void>(() => log.push('t1 hangs')));
    await turns('t2', async () => void log.push('t2'));
    expect(log).toEqual(['t1 hangs', 't2']);
  });
});

describe('a write without transactions', () => {
  it('when the write touches no skill, then the skill index is not read and the write runs once', async () => {
    let ofType = 0;
    const ctx = {
      transactions: { run: <T>(work: () => Promise<T>) => work() },
      entries: { ofType: async () => ((ofType += 1), []) },
      skillIndexTurns: () => {
        throw new Error('not queued');
      },
    } as unknown as EntryContext;
    expect(await writeUnit(ctx, caller(), false, async () => 'done')).toEqual({ result: 'done', index: null });
    expect(ofType).toBe(0);
  });
});
