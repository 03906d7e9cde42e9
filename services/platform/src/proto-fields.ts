/** The fields of `fields` whose value is not null or undefined, typed without null. */
export type Present<T> = { [K in keyof T]: Exclude<T[K], null> };

/**
 * Only the fields that carry a value: a proto3 `optional` field left unset is how null and
 * absent cross gRPC, so messages are built from the present values alone.
 */
export function present<T extends Record<string, unknown>>(fields: T): Present<T> {
  return Object.fromEntries(Object.entries(fields).filter(([, v]) => v !== null && v !== undefined)) as Present<T>;
}
