/**
 * Starts the similarity service in-process (own index prefix, real Elasticsearch and model from
 * the jest globalSetup environment) and talks to it through a real gRPC client with a deadline.
 */
import { randomUUID } from 'node:crypto';
import * as grpc from '@grpc/grpc-js';
import pino from 'pino';
import {
  type AppError,
  CLIENT_OPTIONS,
  type commonV1,
  callerSigner,
  similarityProto,
  typedClient,
  type similarityV1,
} from '@kb/platform';
import { loadSimilarityConfig, startSimilarityServer, type SimilarityServer } from '../../../src';
import { testName } from '../../../../../test/support/test-names';

export type SimilarityClient = ReturnType<typeof typedClient<similarityV1.SimilarityServiceClient>>;

export interface Harness {
  server: SimilarityServer;
  client: SimilarityClient;
  prefix: string;
  stop(): Promise<void>;
}

export function connect(port: number): SimilarityClient {
  const Ctor = similarityProto().kb.similarity.v1.SimilarityService;
  return typedClient(
    'similarity',
    new Ctor(`127.0.0.1:${port}`, grpc.credentials.createInsecure(), CLIENT_OPTIONS),
    60_000,
    // The test run's secrets (test/support/global-setup.ts): a caller without a tenant signs as the system.
    callerSigner({ secret: process.env.SERVICE_AUTH_SECRET, systemSecret: process.env.SERVICE_SYSTEM_SECRET }, 'test'),
  );
}

export async function startSimilarity(env: Record<string, string> = {}): Promise<Harness> {
  const prefix = testName('t');
  const logger = pino({ level: process.env.TEST_LOG_LEVEL ?? 'silent' });
  const server = await startSimilarityServer(
    loadSimilarityConfig({ ...process.env, SIMILARITY_GRPC_PORT: '0', ELASTICSEARCH_INDEX_PREFIX: prefix, ...env }),
    logger,
  );
  const client = connect(server.port);
  return {
    server,
    client,
    prefix,
    async stop() {
      client.close();
      await server.stop();
    },
  };
}

/** The first node of the run's ELASTICSEARCH_URL (several with KB_ES_NODES=3), which the tests' own clients talk to. */
export const ELASTICSEARCH_URL = (): string => (process.env.ELASTICSEARCH_URL as string).split(',')[0]!.trim();

/** A tenant caller with the given scopes (read and write by default). */
export function caller(tenantId: string, overrides: Partial<commonV1.Caller> = {}): commonV1.Caller {
  return {
    tenant_id: tenantId,
    user_id: randomUUID(),
    role: 'Admin',
    scopes: ['knowledge:read', 'knowledge:write'],
    request_id: randomUUID(),
    ...overrides,
  };
}

/** The cross-tenant system caller of reindex and catch-up. */
export const SYSTEM = { tenant_id: '', scopes: [] as string[] };

/** The rejection of a promise (an AppError from the typed client). */
export async function failure(promise: Promise<unknown>): Promise<AppError> {
  try {
    await promise;
  } catch (err) {
    return err as AppError;
  }
  throw new Error('expected the call to fail');
}

/** A product document as the catalog service sends it (id and tenant always set). */
export type ProductDoc = similarityV1.ProductDocument & { id: string; tenant_id: string };

export function product(
  overrides: Partial<similarityV1.ProductDocument> & { id: string; tenant_id: string },
): ProductDoc {
  return {
    site_id: 'site-1',
    version: 1,
    title: 'A product',
    language: 'en',
    search_keywords: [],
    is_parent: false,
    is_variant: false,
    text_description: overrides.title ?? 'A product',
    text_properties: '',
    text_attributes: '',
    reuse_vectors: false,
    ...overrides,
  };
}

/** An entry document as the knowledge service sends it (id, tenant and content always set). */
export type EntryDoc = similarityV1.EntryDocument & { id: string; tenant_id: string; content: string };

export function entryDocument(
  overrides: Partial<similarityV1.EntryDocument> & { id: string; tenant_id: string },
): EntryDoc {
  return {
    version: 1,
    title: 'An entry',
    content: 'Some content',
    type: 'knowledge',
    visibility: 'internal',
    category_id: 'c',
    language: 'en',
    search_keywords: [],
    tags: [],
    updated_at: new Date().toISOString(),
    ...overrides,
  };
}

export const dot = (a: ArrayLike<number>, b: ArrayLike<number>) => {
  let s = 0;
  for (let i = 0; i < a.length; i++) s += a[i]! * b[i]!;
  return s;
};
