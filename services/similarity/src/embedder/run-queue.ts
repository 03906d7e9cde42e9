/**
 * The embed() calls waiting for model runs, and which run comes next. Runs of one call may be in
 * flight on several sessions at once and finish in any order; each call is answered once all its
 * runs are back, its vectors in the order of its texts.
 */

/** One embed() call: its texts, the vectors so far, how to answer. */
export interface Call {
  texts: string[];
  vectors: Float32Array[];
  /** Texts handed to a run so far, and texts whose vectors are back. */
  started: number;
  done: number;
  failed: boolean;
  resolve(vectors: Float32Array[]): void;
  reject(err: unknown): void;
}

/** A run taken from the queue: `texts` are the call's texts from `start` on. */
export interface Run {
  readonly call: Call;
  readonly start: number;
  readonly texts: string[];
}

export class RunQueue {
  /** Calls with texts not started or runs in flight, oldest first. */
  private readonly calls: Call[] = [];

  constructor(private readonly textsPerRun: number) {}

  /** Queues a call; resolves with one vector per text, in order, or rejects with its first failed run's error. */
  add(texts: string[]): Promise<Float32Array[]> {
    return new Promise((resolve, reject) => {
      this.calls.push({ texts, vectors: new Array(texts.length), started: 0, done: 0, failed: false, resolve, reject });
    });
  }

  /**
   * The next run: of the call with the fewest texts left to start (the oldest of those). A search
   * query waits for at most one run per session, an inline write's call goes before a reindex's
   * larger one, and a call once started keeps going, so of two indexing calls the first gets its
   * vectors after its own runs, not after both calls' (its Elasticsearch write then overlaps the
   * second call's runs, and the model is not left waiting for it).
   */
  next(): Run | undefined {
    let call: Call | undefined;
    const left = (c: Call) => c.texts.length - c.started;
    for (const c of this.calls) if (left(c) > 0 && (!call || left(c) < left(call))) call = c;
    if (!call) return undefined;
    const start = call.started;
    const texts = call.texts.slice(start, start + this.textsPerRun);
    call.started += texts.length;
    return { call, start, texts };
  }

  /** A run's vectors (one per text of the run); answers its call if that was the last one out. */
  done(run: Run, vectors: Float32Array[]): void {
    const { call } = run;
    if (call.failed) return;
    if (vectors.length !== run.texts.length) {
      this.failed(run, new Error(`a run of ${run.texts.length} texts returned ${vectors.length} vectors`));
      return;
    }
    vectors.forEach((v, k) => (call.vectors[run.start + k] = v));
    call.done += vectors.length;
    if (call.done >= call.texts.length) {
      this.remove(call);
      call.resolve(call.vectors);
    }
  }

  /** A run failed: its call is rejected (once), and its other runs' vectors are dropped. */
  failed(run: Run, err: unknown): void {
    const { call } = run;
    if (call.failed) return;
    call.failed = true;
    this.remove(call);
    call.reject(err);
  }

  /** Rejects every queued call (no session is left to run them). */
  failAll(err: unknown): void {
    for (const call of this.calls.splice(0)) {
      call.failed = true;
      call.reject(err);
    }
  }

  private remove(call: Call): void {
    const i = this.calls.indexOf(call);
    if (i >= 0) this.calls.splice(i, 1);
  }
}
