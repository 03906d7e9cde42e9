/** A progress line of the benchmark. */
export const log = (msg: string) => process.stdout.write(`[bench] ${msg}\n`);
