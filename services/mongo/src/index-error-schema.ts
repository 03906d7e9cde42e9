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
