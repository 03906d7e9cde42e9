/**
 * The benchmark's stack reads BENCH_DATABASE and BENCH_INDEX_PREFIX when its module loads: this
 * module is imported first, so the evaluation gets a database and index prefix of its own.
 */
export const EVAL_DATABASE = (process.env.BENCH_DATABASE ??= 'kb_eval');
export const EVAL_INDEX_PREFIX = (process.env.BENCH_INDEX_PREFIX ??= 'kb_eval');
