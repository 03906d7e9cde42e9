import type { RunningProcess } from '../src/process-group';
import { supervise, type Supervised } from '../src/supervisor';

/** A process stand-in: ends when told, restarts as told (fails `failures` times first). */
function fakeProcess(name: string, failures = 0) {
  let pid = 100;
  let ended: string | undefined;
  let failuresLeft = failures;
  const restarts: number[] = [];
  const proc = (): RunningProcess => ({
    name,
    pgid: pid,
    marker: name,
    logFile: '/dev/null',
    exitReason: () => ended,
    stop: async () => undefined,
  });
  let current = proc();
  const item: Supervised = {
    name: `the ${name} service`,
    current: () => current,
    restart: async () => {
      restarts.push(Date.now());
      if (failuresLeft-- > 0) throw new Error('port still busy\nmore detail');
      ended = undefined;
      pid += 1;
      current = proc();
      return current;
    },
  };
  return { item, restarts, end: (why: string) => (ended = why) };
}

async function until(done: () => boolean, ms: number): Promise<void> {
  const deadline = Date.now() + ms;
  while (!done() && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
}

describe('supervise', () => {
  test('when a process ends, then it is restarted after 1 s and the output says so', async () => {
    const lines: string[] = [];
    const p = fakeProcess('knowledge');
    const supervisor = supervise([p.item], (m) => lines.push(m));
    try {
      const ended = Date.now();
      p.end('was ended by SIGKILL');
      await until(() => lines.some((l) => l.includes('restarted')), 5000);
      expect(p.restarts).toHaveLength(1);
      expect((p.restarts[0] as number) - ended).toBeGreaterThanOrEqual(900);
      expect(lines[0]).toBe('the knowledge service was ended by SIGKILL; restarting in 1 s (attempt 1)');
      expect(lines[1]).toMatch(/^the knowledge service restarted \(pid 101\) in \d+\.\d s$/);
    } finally {
      await supervisor.stop();
    }
  });

  test('when a restart fails, then the next waits twice as long and the output says why', async () => {
    const lines: string[] = [];
    const p = fakeProcess('catalog', 1);
    const supervisor = supervise([p.item], (m) => lines.push(m));
    try {
      p.end('exited with code 1');
      await until(() => lines.some((l) => l.includes('restarted')), 8000);
      expect(p.restarts).toHaveLength(2);
      expect((p.restarts[1] as number) - (p.restarts[0] as number)).toBeGreaterThanOrEqual(1900);
      expect(lines[1]).toBe('the catalog service did not come back (port still busy); restarting in 2 s (attempt 2)');
    } finally {
      await supervisor.stop();
    }
  }, 15_000);

  test('when stopped during a backoff, then it stops at once and restarts nothing', async () => {
    const lines: string[] = [];
    const p = fakeProcess('gateway');
    const supervisor = supervise([p.item], (m) => lines.push(m));
    p.end('was ended by SIGTERM');
    await until(() => lines.length > 0, 2000);
    const stopping = Date.now();
    await supervisor.stop();
    expect(Date.now() - stopping).toBeLessThan(500);
    await new Promise((r) => setTimeout(r, 1200));
    expect(p.restarts).toHaveLength(0);
  });
});
