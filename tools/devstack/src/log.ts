/** Where the dev stack reports progress; callers decide how (console, pino, a test reporter). */
export type Log = (msg: string) => void;
