/** Runs the calls for one key one after another, in the order they came (a failed one does not stop the next). */
export function oneAtATimePerKey() {
  const last = new Map<string, Promise<unknown>>();
  return <T>(key: string, fn: () => Promise<T>): Promise<T> => {
    const next = (last.get(key) ?? Promise.resolve()).then(fn, fn);
    last.set(
      key,
      next.catch(() => undefined),
    );
    return next;
  };
}
export type OneAtATime = ReturnType<typeof oneAtATimePerKey>;
