/**
 * The background indexers' loop (src/indexer-loop.ts) on fake timers: when passes run after a
 * failure, what stop() waits for, and that passes never overlap.
 */
import { indexerLoop, type IndexerPass } from '../src/indexer-loop';
import { type Logger } from '@kb/platform';

const INTERVAL = 100;

function fakeLogger() {
  const warnings: string[] = [];
  return { warnings, logger: { warn: (_fields: unknown, msg: string) => warnings.push(msg) } as unknown as Logger };
}

/** A pass whose outcome the test decides; records when each pass started (fake clock). */
function scriptedPass(outcomes: (IndexerPass | Error)[]) {
  const startedAt: number[] = [];
  const pass = async () => {
    startedAt.push(Date.now());
    const next = outcomes.shift() ?? {};
    if (next instanceof Error) throw next;
    return next;
  };
  return { startedAt, pass };
}

/** A pass that runs until the test ends it. */
function heldPass() {
  const releases: (() => void)[] = [];
  let active = 0;
  let maxActive = 0;
  let calls = 0;
  const pass = () =>
    new Promise<IndexerPass>((resolve) => {
      calls++;
      active++;
      maxActive = Math.max(maxActive, active);
      releases.push(() => {
        active--;
        resolve({});
      });
    });
  return { pass, release: () => releases.shift()?.(), stats: () => ({ calls, maxActive }) };
}

/** A started loop whose first pass is running (held until the test releases it). */
async function loopInFirstPass() {
  const held = heldPass();
  const loop = indexerLoop({
    name: 'test indexer',
    intervalMs: INTERVAL,
    logger: fakeLogger().logger,
    pass: held.pass,
  });
  loop.start();
  await jest.advanceTimersByTimeAsync(INTERVAL);
  return { held, loop };
}

beforeEach(() => {
  jest.useFakeTimers({ now: 0 });
});
afterEach(() => {
  jest.useRealTimers();
});

describe('after a failed pass', () => {
  test(
    'when passes fail, then each next one waits interval×2^failures ' +
      'up to 16 intervals, and a success brings back the interval',
    async () => {
      const failed = { failed: true };
      const { startedAt, pass } = scriptedPass([
        failed,
        failed,
        failed,
        failed,
        failed,
        new Error('mongo away'),
        {},
        {},
      ]);
      const loop = indexerLoop({ name: 'test indexer', intervalMs: INTERVAL, logger: fakeLogger().logger, pass });
      loop.start();
      await jest.advanceTimersByTimeAsync(6_400);
      // Waits after each pass: 200, 400, 800, 1600, 1600 (capped), 1600 (a throw fails too), then 100.
      expect(startedAt).toEqual([100, 300, 700, 1_500, 3_100, 4_700, 6_300, 6_400]);
      await loop.stop();
    },
  );

  test('when a long interval keeps failing, then the wait is capped at 30 s', async () => {
    const { startedAt, pass } = scriptedPass(Array.from({ length: 6 }, () => ({ failed: true })));
    const loop = indexerLoop({ name: 'test indexer', intervalMs: 5_000, logger: fakeLogger().logger, pass });
    loop.start();
    await jest.advanceTimersByTimeAsync(125_000);
    expect(startedAt).toEqual([5_000, 15_000, 35_000, 65_000, 95_000, 125_000]);
    await loop.stop();
  });

  test('when a pass throws, then it is logged and runOnce answers undefined', async () => {
    const { warnings, logger } = fakeLogger();
    const loop = indexerLoop({
      name: 'test indexer',
      intervalMs: INTERVAL,
      logger,
      pass: scriptedPass([new Error('boom')]).pass,
    });
    await expect(loop.runOnce()).resolves.toBeUndefined();
    expect(warnings).toEqual(['test indexer pass failed']);
  });
});

describe('a full batch', () => {
  test('when a pass finds more work waiting, then the next pass runs at once', async () => {
    const { startedAt, pass } = scriptedPass([{ more: true }, { more: true }, {}, {}]);
    const loop = indexerLoop({ name: 'test indexer', intervalMs: INTERVAL, logger: fakeLogger().logger, pass });
    loop.start();
    await jest.advanceTimersByTimeAsync(300);
    // "At once" is the next turn of the event loop (a timer's 1 ms minimum), not a full interval.
    const [first, second, third, fourth] = startedAt as [number, number, number, number];
    expect([first, second - first <= 1, third - second <= 1, fourth - third]).toEqual([100, true, true, INTERVAL]);
    await loop.stop();
  });
});

describe('nudge()', () => {
  test('when work arrives between passes, then the next pass runs at once instead of at the end of the interval', async () => {
    const { startedAt, pass } = scriptedPass([{}, {}, {}]);
    const loop = indexerLoop({ name: 'test indexer', intervalMs: INTERVAL, logger: fakeLogger().logger, pass });
    loop.start();
    await jest.advanceTimersByTimeAsync(130);
    loop.nudge();
    await jest.advanceTimersByTimeAsync(1);
    // Then the interval again from there.
    await jest.advanceTimersByTimeAsync(INTERVAL);
    expect(startedAt).toEqual([100, 130, 131 + INTERVAL - 1]);
    await loop.stop();
  });

  test('when work arrives while a pass runs, then the next pass follows it at once, and passes never overlap', async () => {
    const { held, loop } = await loopInFirstPass();
    loop.nudge();
    loop.nudge();
    held.release();
    await jest.advanceTimersByTimeAsync(1);
    expect(held.stats()).toEqual({ calls: 2, maxActive: 1 });
    held.release();
    // Nothing more asked for: the interval again.
    await jest.advanceTimersByTimeAsync(INTERVAL - 2);
    expect(held.stats().calls).toBe(2);
    await jest.advanceTimersByTimeAsync(2);
    expect(held.stats().calls).toBe(3);
    held.release();
    await loop.stop();
  });

  test('when passes are failing, or the loop is not started or stopped, then a nudge changes nothing', async () => {
    const { startedAt, pass } = scriptedPass([{ failed: true }, {}]);
    const loop = indexerLoop({ name: 'test indexer', intervalMs: INTERVAL, logger: fakeLogger().logger, pass });
    loop.nudge();
    loop.start();
    await jest.advanceTimersByTimeAsync(100);
    loop.nudge(); // backing off: still 200 ms after the failed pass
    await jest.advanceTimersByTimeAsync(250);
    expect(startedAt).toEqual([100, 300]);
    await loop.stop();
    loop.nudge();
    await jest.advanceTimersByTimeAsync(1_000);
    expect(startedAt).toEqual([100, 300]);
  });
});

describe('stop()', () => {
  test('when a pass is running, then stop() waits for it, and no pass runs afterwards', async () => {
    const { held, loop } = await loopInFirstPass();
    expect(held.stats().calls).toBe(1);
    let stopped = false;
    const stopping = loop.stop().then(() => (stopped = true));
    await jest.advanceTimersByTimeAsync(1_000);
    expect(stopped).toBe(false);
    held.release();
    await stopping;
    expect(stopped).toBe(true);
    await jest.advanceTimersByTimeAsync(10 * INTERVAL);
    expect(held.stats().calls).toBe(1);
  });

  test('when the running pass outlasts the bound, then stop() gives up after it and says so', async () => {
    const held = heldPass();
    const { warnings, logger } = fakeLogger();
    const loop = indexerLoop({
      name: 'test indexer',
      intervalMs: INTERVAL,
      logger,
      pass: held.pass,
      stopWaitMs: 5_000,
    });
    loop.start();
    await jest.advanceTimersByTimeAsync(INTERVAL);
    let stopped = false;
    const stopping = loop.stop().then(() => (stopped = true));
    await jest.advanceTimersByTimeAsync(4_999);
    expect(stopped).toBe(false);
    await jest.advanceTimersByTimeAsync(1);
    await stopping;
    expect(stopped).toBe(true);
    expect(warnings).toEqual(['test indexer stopped while a pass was still running']);
    held.release();
  });

  test('when no pass is running, then stop() returns at once and nothing runs afterwards', async () => {
    const { startedAt, pass } = scriptedPass([]);
    const loop = indexerLoop({ name: 'test indexer', intervalMs: INTERVAL, logger: fakeLogger().logger, pass });
    loop.start();
    await loop.stop();
    await jest.advanceTimersByTimeAsync(10 * INTERVAL);
    expect(startedAt).toEqual([]);
  });
});

describe('one pass at a time', () => {
  test('when runOnce is called while a pass runs, then it joins that pass instead of starting another', async () => {
    const { held, loop } = await loopInFirstPass();
    const joined = [loop.runOnce(), loop.runOnce()];
    // The timer's own next tick comes later; meanwhile nothing else starts.
    await jest.advanceTimersByTimeAsync(5 * INTERVAL);
    expect(held.stats()).toEqual({ calls: 1, maxActive: 1 });
    held.release();
    await expect(Promise.all(joined)).resolves.toEqual([{}, {}]);
    const next = loop.runOnce();
    expect(held.stats().calls).toBe(2);
    held.release();
    await next;
    await loop.stop();
  });

  test('when a pass outlasts several intervals, then the loop never starts a second one beside it', async () => {
    const held = heldPass();
    const loop = indexerLoop({
      name: 'test indexer',
      intervalMs: INTERVAL,
      logger: fakeLogger().logger,
      pass: held.pass,
    });
    loop.start();
    for (let i = 0; i < 5; i++) {
      await jest.advanceTimersByTimeAsync(10 * INTERVAL);
      void loop.runOnce();
      held.release();
    }
    await jest.advanceTimersByTimeAsync(10 * INTERVAL);
    expect(held.stats().maxActive).toBe(1);
    expect(held.stats().calls).toBeGreaterThanOrEqual(5);
    held.release();
    await loop.stop();
  });
});
