import { Schema } from 'mongoose';
import type { IndexErrorRecord } from '@kb/indexing';

/** The stored shape of an index error, the same on entries and products (what `index errors` lists). */
export const indexErrorSchema = new Schema<IndexErrorRecord>(
  { message: String, at: Date, attempts: Number, version: Number },
  { _id: false },
);

/**
 * The `index_error` path of an indexed document's schema (knowledge entries, products). No
 * default: absent until a refusal, so `$inc` can start its attempts at 1.
 */
export const indexErrorPath = () => ({ type: indexErrorSchema, default: undefined });

/** What marks a refused document: its refusal's time (set with every refusal, cleared with the error). */
export const REFUSED = 'index_error.at';

/** The filter of refused documents: what the partial index on them holds, so a count reads only them. */
export const refusedFilter = () => ({ [REFUSED]: { $exists: true } });

/**
 * The index of refused documents (knowledge entries, products): partial, so it holds only them,
 * and a count or a list of refusals reads them alone, never the collection; newest first.
 */
export const indexErrorIndex = (): [Record<string, -1>, { partialFilterExpression: Record<string, unknown> }] => [
  { [REFUSED]: -1 },
  { partialFilterExpression: refusedFilter() },
];
