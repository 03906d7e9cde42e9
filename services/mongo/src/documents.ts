/*
 * Stored documents ↔ the plain objects the services' domains work on: MongoDB's key `_id` is
 * the object's `id`; every other field keeps its name. Key order is kept (`_id` and `id` first).
 */

/** A stored document as a plain object: `_id` becomes `id`. */
export function withId<D extends { _id: string }>(doc: D): Omit<D, '_id'> & { id: string } {
  const { _id, ...rest } = doc;
  return { id: _id, ...rest };
}

/** A plain object as a document to store: `id` becomes `_id`. */
export function withMongoId<T extends { id: string }>(value: T): Omit<T, 'id'> & { _id: string } {
  const { id, ...rest } = value;
  return { _id: id, ...rest };
}
