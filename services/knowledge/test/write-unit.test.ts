import type { EntryContext } from '../src/domain/entries/context';
import { oneAtATimePerKey } from '../src/domain/entries/one-at-a-time';
import { joinedRebuilds } from '../src/domain/entries/skill-index-rebuilds';
import { writeUnit } from '../src/domain/entries/write-unit';
import type { Entry } from '../src/domain/types';
import { caller, entry as entryFixture } from './support/fixtures';

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
      transactions: { available: async () => false, run: <T>(work: () => Promise<T>) => work() },
      entries: { ofType: async () => ((ofType += 1), []) },
      skillIndexTurns: () => {
        throw new Error('not queued');
      },
    } as unknown as EntryContext;
    expect(await writeUnit(ctx, caller(), false, async () => 'done')).toEqual({ result: 'done', index: null });
    expect(ofType).toBe(0);
  });
});

describe('skill-index rebuilds without transactions, joined', () => {
  const entry = (n: number) => ({ id: `index-${n}` }) as unknown as Entry;

  it('when writes ask while a rebuild runs, then they share the one rebuild after it, which starts after they asked', async () => {
    const started: number[] = [];
    const releases: (() => void)[] = [];
    const rebuilds = joinedRebuilds(async () => {
      started.push(started.length + 1);
      await new Promise<void>((resolve) => releases.push(resolve));
      return entry(started.length);
    });
    const first = rebuilds('t1', caller());
    await tick();
    const asked = [rebuilds('t1', caller()), rebuilds('t1', caller()), rebuilds('t1', caller())];
    await tick();
    expect(started).toEqual([1]); // the later ones wait: the running rebuild may have read before their writes
    releases[0]!();
    expect((await first)?.id).toBe('index-1');
    await tick();
    expect(started).toEqual([1, 2]);
    releases[1]!();
    expect((await Promise.all(asked)).map((e) => e?.id)).toEqual(['index-2', 'index-2', 'index-2']);
  });

  it('when a rebuild fails, then its writes get the failure and the next write starts a new one', async () => {
    let calls = 0;
    const rebuilds = joinedRebuilds(async () => {
      calls += 1;
      if (calls === 1) throw new Error('lease not free');
      return entry(calls);
    });
    await expect(rebuilds('t1', caller())).rejects.toThrow('lease not free');
    expect((await rebuilds('t1', caller()))?.id).toBe('index-2');
  });

  it('when a skill is written, then it is written before the rebuild is asked for, outside any transaction', async () => {
    const log: string[] = [];
    const ctx = {
      transactions: { available: async () => false, run: () => Promise.reject(new Error('no transactions here')) },
      skillIndexRebuilds: async () => (log.push('rebuild'), entry(1)),
    } as unknown as EntryContext;
    const written = await writeUnit(ctx, caller(), true, async (tx) => (log.push(`write ${String(tx)}`), 'done'));
    expect(written).toEqual({ result: 'done', index: entry(1) });
    expect(log).toEqual(['write undefined', 'rebuild']);
  });
});

describe('a skill write with transactions (a replica set)', () => {
  it('when a skill is written, then the write and the skill-index rebuild run in one transaction under the tenant lease', async () => {
    const log: string[] = [];
    const tx = { id: 'tx-1' } as unknown;
    const skill = entryFixture({ type: 'skill', metadata: { trigger_description: 'a customer asks for a refund' } });
    const ctx = {
      transactions: {
        available: async () => true,
        run: async <T>(work: (t: unknown) => Promise<T>) => (log.push('begin'), await work(tx)),
      },
      skillIndexTurns: <T>(_tenant: string, fn: () => Promise<T>) => fn(),
      skillIndexLease: async <T>(_tenant: string, fn: () => Promise<T>) => {
        log.push('lease');
        return { result: await fn(), kept: true };
      },
      skillIndexRebuilds: () => Promise.reject(new Error('the fallback is not used with transactions')),
      entries: {
        ofType: async (_t: string, type: string, t: unknown) => {
          log.push(`read ${type} ${String(t === tx)}`);
          return type === 'skill' ? [skill] : [];
        },
        insert: async (_e: Entry, t: unknown) => void log.push(`insert index ${String(t === tx)}`),
        addVersion: async (_v: unknown, t: unknown) => void log.push(`version ${String(t === tx)}`),
      },
    } as unknown as EntryContext;
    const written = await writeUnit(ctx, caller(), true, async (t) => (log.push(`write ${String(t === tx)}`), 'done'));
    expect(written.result).toBe('done');
    expect(log).toEqual([
      'lease',
      'begin',
      'write true',
      'read skill true',
      'read skill_index true',
      'insert index true',
      'version true',
    ]);
  });
});
