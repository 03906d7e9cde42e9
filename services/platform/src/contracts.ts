// The service contracts' types, generated from protos/ by `npm run codegen`.
export * as commonV1 from './generated/kb/common/v1';
export * as knowledgeV1 from './generated/kb/knowledge/v1';
export * as catalogV1 from './generated/kb/catalog/v1';
export * as similarityV1 from './generated/kb/similarity/v1';
export * as healthV1 from './generated/health/grpc/health/v1';
