/**
 * `@kb/common/mongo`: the data-access helpers of the services that own MongoDB collections
 * (knowledge, catalog). Apart from the main entry so that importing `@kb/common` never loads
 * mongoose: the gateway and the similarity service do not use MongoDB (test/operations/storage-boundary.test.ts).
 */
export * from './connection';
export * from './documents';
export * from './errors';
export * from './index-backlog';
export * from './tenancy';
export * from './parent-guard-store';
export * from './index-error-schema';
