/**
 * The embedder's queue of runs (no model): which run goes next, and how the vectors of runs that
 * finish in any order (several sessions at once) come back to their call in the order of its texts.
 */
import { RunQueue, type Run } from '../src/embedder/run-queue';

/** A stand-in vector that says which text it belongs to. */
const vectorOf = (text: string) => Float32Array.from([text.length, text.charCodeAt(text.length - 1)]);
const finish = (queue: RunQueue, run: Run) => queue.done(run, run.texts.map(vectorOf));

/** Takes every run the queue has, as sessions would (each run started before any finishes). */
function takeAll(queue: RunQueue): Run[] {
  const runs: Run[] = [];
  for (let run = queue.next(); run; run = queue.next()) runs.push(run);
  return runs;
}

describe('RunQueue', () => {
  test('when the runs of a call finish in reverse order, then its vectors still come back in the order of its texts', async () => {
    const queue = new RunQueue(1);
    const texts = ['a', 'bb', 'ccc', 'dddd', 'eeeee'];
    const answer = queue.add(texts);
    const runs = takeAll(queue);
    expect(runs.map((r) => r.texts)).toEqual(texts.map((t) => [t]));
    for (const run of [...runs].reverse()) finish(queue, run);
    expect(await answer).toEqual(texts.map(vectorOf));
  });

  test('when a run carries several texts, then each of its vectors lands at its text', async () => {
    const queue = new RunQueue(2);
    const texts = ['a', 'bb', 'ccc', 'dddd', 'eeeee'];
    const answer = queue.add(texts);
    const runs = takeAll(queue);
    expect(runs.map((r) => r.texts)).toEqual([['a', 'bb'], ['ccc', 'dddd'], ['eeeee']]);
    finish(queue, runs[2]!);
    finish(queue, runs[0]!);
    finish(queue, runs[1]!);
    expect(await answer).toEqual(texts.map(vectorOf));
  });

  test('when a call waits for its last run, then it is not answered before that run is back', async () => {
    const queue = new RunQueue(1);
    let answered = false;
    const answer = queue.add(['a', 'b']).then((v) => ((answered = true), v));
    const [first, second] = takeAll(queue);
    finish(queue, second!);
    await Promise.resolve();
    expect(answered).toBe(false);
    finish(queue, first!);
    expect(await answer).toHaveLength(2);
  });

  test('when calls wait, then the next run is of the call with the fewest texts left to start, the oldest of equals', () => {
    const queue = new RunQueue(1);
    void queue.add(['b1', 'b2', 'b3']);
    void queue.add(['q']);
    void queue.add(['c1', 'c2', 'c3']);
    expect(queue.next()!.texts).toEqual(['q']);
    // The bulk calls have three each: the older goes first, and once started it has the fewest left.
    expect(queue.next()!.texts).toEqual(['b1']);
    expect(queue.next()!.texts).toEqual(['b2']);
    // A query arriving now has one text left, as the started call does: the older call first.
    void queue.add(['q2']);
    expect(queue.next()!.texts).toEqual(['b3']);
    expect(queue.next()!.texts).toEqual(['q2']);
    expect(takeAll(queue).map((r) => r.texts[0])).toEqual(['c1', 'c2', 'c3']);
  });

  test('when one run of a call fails, then the call rejects once, and its other runs do not answer it', async () => {
    const queue = new RunQueue(1);
    const answer = queue.add(['a', 'b', 'c']);
    const other = queue.add(['d']);
    const [d, a, b, c] = takeAll(queue);
    finish(queue, a!);
    queue.failed(b!, new Error('the model failed'));
    queue.failed(c!, new Error('a second failure'));
    await expect(answer).rejects.toThrow('the model failed');
    finish(queue, d!);
    expect(await other).toEqual([vectorOf('d')]);
    expect(queue.next()).toBeUndefined();
  });

  test('when a run returns the wrong number of vectors, then its call rejects', async () => {
    const queue = new RunQueue(2);
    const answer = queue.add(['a', 'b']);
    queue.done(queue.next()!, [vectorOf('a')]);
    await expect(answer).rejects.toThrow('a run of 2 texts returned 1 vectors');
  });

  test('when the sessions are gone, then failAll rejects every waiting call and nothing is left to run', async () => {
    const queue = new RunQueue(1);
    const started = queue.add(['a', 'b']);
    const waiting = queue.add(['c', 'd', 'e']);
    queue.next();
    queue.failAll(new Error('no sessions'));
    await expect(started).rejects.toThrow('no sessions');
    await expect(waiting).rejects.toThrow('no sessions');
    expect(queue.next()).toBeUndefined();
  });
});
