import { Presets, SingleBar } from 'cli-progress';
import type { AdminContext } from './context';

/** Progress of a long command on stderr. */
export interface Progress {
  start(total: number, done?: number): void;
  update(done: number): void;
  stop(): void;
}

/** Plain lines at most this often when stderr is not a terminal (a log, a Kubernetes Job). */
const LINE_EVERY_MS = 2_000;

/**
 * A bar on a terminal; elsewhere (a pipe, a log, a Job) a plain line now and then and one at the
 * end, so a log shows the command is alive without filling with redraws.
 */
export function progress(ctx: AdminContext, command: string, unit: string): Progress {
  if ((ctx.stderr as NodeJS.WriteStream).isTTY) {
    const bar = new SingleBar(
      {
        stream: ctx.stderr,
        format: `${command} |{bar}| {value}/{total} ${unit} | {percentage}% | ETA {eta}s`,
        hideCursor: false,
      },
      Presets.shades_classic,
    );
    let started = false;
    return {
      start: (total, done = 0) => {
        started = true;
        bar.start(total, done);
      },
      update: (done) => bar.update(done),
      stop: () => started && bar.stop(),
    };
  }
  let total = 0;
  let latest = 0;
  let shown = { done: -1, at: 0 };
  const line = (done: number) => {
    ctx.stderr.write(`${command}: ${done}/${total} ${unit}\n`);
    shown = { done, at: Date.now() };
  };
  return {
    start: (t, done = 0) => {
      total = t;
      latest = done;
      line(done);
    },
    update: (done) => {
      latest = done;
      if (Date.now() - shown.at >= LINE_EVERY_MS) line(done);
    },
    stop: () => {
      if (shown.done !== -1 && latest !== shown.done) line(latest);
    },
  };
}
