import * as grpc from '@grpc/grpc-js';
import * as protoLoader from '@grpc/proto-loader';
import { protoPath as healthProtoPath } from 'grpc-health-check';
import {
  CLIENT_OPTIONS,
  LOADER_OPTIONS,
  callerSigner,
  type CallerSigner,
  typedClient,
  type TypedClient,
  catalogProto,
  knowledgeProto,
  similarityProto,
  type catalogV1,
  type healthV1,
  type knowledgeV1,
  type similarityV1,
} from '@kb/common';
import type { GatewayConfig } from '../config';

type HealthClient = healthV1.HealthClient;

function healthClient(address: string): HealthClient {
  const def = protoLoader.loadSync(healthProtoPath, { ...LOADER_OPTIONS, includeDirs: [] });
  const pkg = grpc.loadPackageDefinition(def) as unknown as {
    grpc: {
      health: { v1: { Health: new (a: string, c: grpc.ChannelCredentials, o: grpc.ClientOptions) => HealthClient } };
    };
  };
  return new pkg.grpc.health.v1.Health(address, grpc.credentials.createInsecure(), CLIENT_OPTIONS);
}

export interface BackendService<C extends grpc.Client> extends TypedClient<C> {
  readonly health: HealthClient;
  /** grpc.health.v1 status of a health name ("" = the service, "dependency:x" = a dependency). */
  check(service: string, timeoutMs?: number): Promise<'SERVING' | 'NOT_SERVING' | 'UNKNOWN' | 'UNREACHABLE'>;
}

function backend<C extends grpc.Client>(
  name: string,
  client: C,
  address: string,
  deadlineMs: number,
  sign: CallerSigner,
): BackendService<C> {
  const health = healthClient(address);
  return {
    ...typedClient(name, client, deadlineMs, sign),
    health,
    check: (service, timeoutMs = 1500) =>
      new Promise((resolve) => {
        health.Check({ service }, { deadline: new Date(Date.now() + timeoutMs) }, (err, res) => {
          if (err) resolve(err.code === grpc.status.NOT_FOUND ? 'UNKNOWN' : 'UNREACHABLE');
          else resolve((res?.status as 'SERVING' | 'NOT_SERVING' | 'UNKNOWN') ?? 'UNKNOWN');
        });
      }),
  };
}

export interface Backends {
  knowledge: BackendService<knowledgeV1.KnowledgeServiceClient>;
  catalog: BackendService<catalogV1.CatalogServiceClient>;
  similarity: BackendService<similarityV1.SimilarityServiceClient>;
  close(): void;
}

/** gRPC clients of the three back services (each with a health client on the same address). */
export function connectBackends(config: GatewayConfig): Backends {
  const creds = grpc.credentials.createInsecure();
  const k = new (knowledgeProto().kb.knowledge.v1.KnowledgeService)(config.KNOWLEDGE_GRPC_ADDR, creds, CLIENT_OPTIONS);
  const c = new (catalogProto().kb.catalog.v1.CatalogService)(config.CATALOG_GRPC_ADDR, creds, CLIENT_OPTIONS);
  const s = new (similarityProto().kb.similarity.v1.SimilarityService)(
    config.SIMILARITY_GRPC_ADDR,
    creds,
    CLIENT_OPTIONS,
  );
  // Every call carries a caller assertion signed with the install's secret (the caller the token proved).
  const sign = callerSigner({ secret: config.SERVICE_AUTH_SECRET }, 'gateway');
  const backends = {
    knowledge: backend('knowledge', k, config.KNOWLEDGE_GRPC_ADDR, config.GRPC_DEADLINE_MS, sign),
    catalog: backend('catalog', c, config.CATALOG_GRPC_ADDR, config.GRPC_DEADLINE_MS, sign),
    similarity: backend('similarity', s, config.SIMILARITY_GRPC_ADDR, config.GRPC_DEADLINE_MS, sign),
  };
  return {
    ...backends,
    close() {
      for (const b of Object.values(backends)) {
        b.client.close();
        b.health.close();
      }
    },
  };
}
