import * as path from 'node:path';
import * as grpc from '@grpc/grpc-js';
import * as protoLoader from '@grpc/proto-loader';
import type { ProtoGrpcType as KnowledgeProto } from '../generated/knowledge';
import type { ProtoGrpcType as CatalogProto } from '../generated/catalog';
import type { ProtoGrpcType as SimilarityProto } from '../generated/similarity';

/** protos/ at the repository root: the single source of the service contracts. */
export const PROTO_DIR = process.env.KB_PROTO_DIR ?? path.resolve(__dirname, '../../../../protos');

// The options grpc-node recommends; the generated types assume exactly these.
export const LOADER_OPTIONS: protoLoader.Options = {
  keepCase: true,
  longs: String,
  enums: String,
  defaults: true,
  oneofs: true,
  includeDirs: [PROTO_DIR],
};

function load<T>(file: string): T {
  const definition = protoLoader.loadSync(path.join(PROTO_DIR, file), LOADER_OPTIONS);
  return grpc.loadPackageDefinition(definition) as unknown as T;
}

const cache: { knowledge?: KnowledgeProto; catalog?: CatalogProto; similarity?: SimilarityProto } = {};

export function knowledgeProto(): KnowledgeProto {
  return (cache.knowledge ??= load<KnowledgeProto>('knowledge/v1/knowledge.proto'));
}
export function catalogProto(): CatalogProto {
  return (cache.catalog ??= load<CatalogProto>('catalog/v1/catalog.proto'));
}
export function similarityProto(): SimilarityProto {
  return (cache.similarity ??= load<SimilarityProto>('similarity/v1/similarity.proto'));
}
