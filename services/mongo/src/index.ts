/**
 * @kb/mongo: MongoDB through mongoose: the connection, the tenancy plugin, error mapping, the
 * parent guard's store, the index queue's stores and claims.
 */
export * from './connection';
export * from './documents';
export * from './errors';
export * from './index-backlog';
export * from './index-error-schema';
export * from './tenancy';
export * from './parent-guard-store';
export * from './queue-claims';
export * from './lease';
export * from './query-shapes';
export * from './tenant-data';
export * from './reindex-runs';
