import type { Log } from './log';
import type { RunTracker } from './state';

/** Options shared by the backends run as local processes. */
export interface LocalProcessOptions {
  /** true: data kept under the cache between runs (`npm start`); false: a fresh folder removed on stop. */
  persistent: boolean;
  /** Overrides where the data lives (kept on stop). */
  dataDir?: string;
  log: Log;
  tracker?: RunTracker;
  startTimeoutMs?: number;
}

export interface LocalBackend {
  url: string;
  stop(): Promise<void>;
}
