import { DependencyWatch } from '../src/dependency-watch';
import { AppError } from '../src/errors';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** A dependency whose next answers the test decides: up, down (refused), or frozen (never answers). */
function dependency() {
  let mode: 'up' | 'down' | 'frozen' = 'up';
  let probes = 0;
  return {
    set: (m: typeof mode) => (mode = m),
    probes: () => probes,
    probe: async () => {
      probes += 1;
      if (mode === 'down') throw new Error('connect ECONNREFUSED');
      if (mode === 'frozen') return new Promise<boolean>(() => undefined);
      return true;
    },
  };
}

describe('DependencyWatch', () => {
  test('when the first probe answers, then it is up and assertUp passes', async () => {
    const dep = dependency();
    const watch = new DependencyWatch({ name: 'the thing', probe: dep.probe, intervalMs: 20, timeoutMs: 50 });
    expect(watch.isUp()).toBe(false);
    await watch.start();
    try {
      expect(watch.isUp()).toBe(true);
      expect(() => watch.assertUp()).not.toThrow();
    } finally {
      watch.stop();
    }
  });

  test('when the dependency refuses, then one probe marks it down and assertUp throws a 503-kind error naming it', async () => {
    const dep = dependency();
    const changes: boolean[] = [];
    const watch = new DependencyWatch({
      name: 'the similarity service',
      probe: dep.probe,
      intervalMs: 20,
      timeoutMs: 50,
      onChange: (up) => changes.push(up),
    });
    await watch.start();
    try {
      dep.set('down');
      const started = Date.now();
      while (watch.isUp() && Date.now() - started < 1000) await sleep(5);
      expect(watch.isUp()).toBe(false);
      expect(Date.now() - started).toBeLessThan(500); // interval 20 ms: generous for a loaded machine
      let thrown: unknown;
      try {
        watch.assertUp();
      } catch (err) {
        thrown = err;
      }
      expect(thrown).toBeInstanceOf(AppError);
      expect((thrown as AppError).kind).toBe('unavailable');
      expect((thrown as AppError).message).toBe('The similarity service is unavailable');
      dep.set('up');
      while (!watch.isUp() && Date.now() - started < 1000) await sleep(5);
      expect(watch.isUp()).toBe(true);
      expect(changes).toEqual([true, false, true]);
    } finally {
      watch.stop();
    }
  });

  test('when the dependency freezes, then it is down after two timed-out probes, not after one', async () => {
    const dep = dependency();
    let probesWhenDown = 0;
    const watch = new DependencyWatch({
      name: 'MongoDB',
      probe: dep.probe,
      intervalMs: 10,
      timeoutMs: 100,
      onChange: (up) => {
        if (!up) probesWhenDown = dep.probes();
      },
    });
    await watch.start();
    try {
      dep.set('frozen');
      const frozenAfter = dep.probes();
      const started = Date.now();
      while (watch.isUp() && Date.now() - started < 3000) await sleep(5);
      expect(watch.isUp()).toBe(false);
      // The probe that was running when it froze may have answered; then two that timed out.
      expect(probesWhenDown - frozenAfter).toBeGreaterThanOrEqual(2);
      expect(probesWhenDown - frozenAfter).toBeLessThanOrEqual(3);
      expect(Date.now() - started).toBeGreaterThanOrEqual(190);
    } finally {
      watch.stop();
    }
  });

  test(
    "when probes time out while the dependency's calls are answered (a saturated host), then it stays up; " +
      'when the calls stop being answered, then the timeouts mark it down',
    async () => {
      const dep = dependency();
      const watch = new DependencyWatch({
        name: 'the catalog service',
        probe: dep.probe,
        intervalMs: 10,
        timeoutMs: 100,
      });
      await watch.start();
      try {
        dep.set('frozen'); // the probes wait, as behind a queue of calls
        const answering = setInterval(() => watch.answered(), 5);
        await sleep(500); // some five timed-out probes
        clearInterval(answering);
        expect(watch.isUp()).toBe(true);
        const started = Date.now();
        while (watch.isUp() && Date.now() - started < 3000) await sleep(5);
        expect(watch.isUp()).toBe(false);
      } finally {
        watch.stop();
      }
    },
  );

  test('when the dependency is busy (each answer comes after the bound, but comes), then it stays up; frozen, it goes down', async () => {
    let frozen = false;
    const watch = new DependencyWatch({
      name: 'the busy service',
      intervalMs: 10,
      timeoutMs: 40,
      // Answers 60 ms late: later than the bound, sooner than the next probe's bound runs out.
      probe: () => (frozen ? new Promise<boolean>(() => undefined) : sleep(60).then(() => true)),
    });
    watch.set(true);
    void watch.start();
    try {
      await sleep(600);
      expect(watch.isUp()).toBe(true);
      frozen = true;
      await sleep(300);
      expect(watch.isUp()).toBe(false);
    } finally {
      watch.stop();
    }
  });

  test(
    'when every answer comes at three times the bound (a saturated server), then the bound widens and it is up; ' +
      'frozen after that, it is down within two widened bounds',
    async () => {
      let frozen = false;
      const watch = new DependencyWatch({
        name: 'MongoDB',
        intervalMs: 10,
        timeoutMs: 40,
        maxTimeoutMs: 200,
        probe: () => (frozen ? new Promise<boolean>(() => undefined) : sleep(120).then(() => true)),
      });
      await watch.start();
      try {
        await sleep(800); // the first answers came late; the bound now fits them
        const seen: boolean[] = [];
        for (let i = 0; i < 100; i++, await sleep(5)) seen.push(watch.isUp());
        expect(seen.every(Boolean)).toBe(true);
        frozen = true;
        const started = Date.now();
        while (watch.isUp() && Date.now() - started < 3000) await sleep(5);
        expect(watch.isUp()).toBe(false);
        expect(Date.now() - started).toBeLessThan(10 + 2 * 200 + 200); // interval + two bounds + one running probe
      } finally {
        watch.stop();
      }
    },
  );

  test('when one answer comes late and the dependency then freezes, then the bound stays: it is down as soon, and stays down', async () => {
    let probes = 0;
    const watch = new DependencyWatch({
      name: 'MongoDB',
      intervalMs: 10,
      timeoutMs: 40,
      maxTimeoutMs: 400,
      // The first probe answers at 150 ms (a hiccup); every later one never answers.
      probe: () => (++probes === 1 ? sleep(150).then(() => true) : new Promise<boolean>(() => undefined)),
    });
    watch.set(true);
    const started = Date.now();
    void watch.start();
    try {
      while (watch.isUp() && Date.now() - started < 3000) await sleep(5);
      expect(Date.now() - started).toBeLessThan(350); // widened to 225 ms it would take over 450
      await sleep(400);
      expect(watch.isUp()).toBe(false);
    } finally {
      watch.stop();
    }
  });

  test('when answers come later than the widest bound, then it stays down', async () => {
    const watch = new DependencyWatch({
      name: 'MongoDB',
      intervalMs: 10,
      timeoutMs: 40,
      maxTimeoutMs: 80,
      probe: () => sleep(200).then(() => true),
    });
    watch.set(true);
    void watch.start();
    try {
      await sleep(400);
      const seen: boolean[] = [];
      for (let i = 0; i < 100; i++, await sleep(5)) seen.push(watch.isUp());
      expect(seen.some(Boolean)).toBe(false);
    } finally {
      watch.stop();
    }
  });

  test('when this process stalls past the bound while the answer is already there, then it stays up', async () => {
    let probes = 0;
    const watch = new DependencyWatch({
      name: 'MongoDB',
      intervalMs: 10,
      timeoutMs: 50,
      // Each probe blocks the event loop for 200 ms (a long synchronous task elsewhere), and its
      // answer is ready as soon as I/O runs again: the dependency never was slow.
      probe: () =>
        new Promise<boolean>((resolve) => {
          probes += 1;
          const until = Date.now() + 200;
          while (Date.now() < until);
          setImmediate(() => resolve(true));
        }),
    });
    await watch.start();
    try {
      await sleep(1000);
      expect(probes).toBeGreaterThanOrEqual(3);
      expect(watch.isUp()).toBe(true);
    } finally {
      watch.stop();
    }
  });

  test('when a caller suspects the dependency, then it is probed at once rather than at the next tick', async () => {
    const dep = dependency();
    const watch = new DependencyWatch({ name: 'x', probe: dep.probe, intervalMs: 60_000, timeoutMs: 50 });
    await watch.start();
    try {
      expect(dep.probes()).toBe(1);
      dep.set('down');
      watch.suspect();
      for (let waited = 0; (dep.probes() < 2 || watch.isUp()) && waited < 1000; waited += 5) await sleep(5);
      expect(dep.probes()).toBe(2);
      expect(watch.isUp()).toBe(false);
    } finally {
      watch.stop();
    }
  });

  test('when a subscriber listens, then it hears each change until it unsubscribes', async () => {
    const dep = dependency();
    const watch = new DependencyWatch({ name: 'the thing', probe: dep.probe, intervalMs: 10, timeoutMs: 50 });
    await watch.start();
    try {
      const heard: boolean[] = [];
      const unsubscribe = watch.subscribe((up) => heard.push(up));
      dep.set('down');
      while (watch.isUp()) await sleep(5);
      expect(heard).toEqual([false]);
      expect(watch.unavailable()).toEqual(AppError.unavailable('The thing is unavailable'));
      unsubscribe();
      dep.set('up');
      while (!watch.isUp()) await sleep(5);
      expect(heard).toEqual([false]);
    } finally {
      watch.stop();
    }
  });

  test('when stopped, then it probes no more', async () => {
    const dep = dependency();
    const watch = new DependencyWatch({ name: 'x', probe: dep.probe, intervalMs: 10, timeoutMs: 50 });
    await watch.start();
    watch.stop();
    const probes = dep.probes();
    await sleep(60);
    expect(dep.probes()).toBe(probes);
  });
});
