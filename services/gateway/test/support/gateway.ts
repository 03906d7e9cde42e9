/**
 * The gateway's HTTP layer on its own: the Koa app with in-memory stand-ins for its gRPC
 * collaborators (knowledge, catalog, similarity), served on a loopback port and driven with
 * node's http client, so status lines, headers and bodies are the real bytes.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import pino, { type Logger } from 'pino';
import { AppError } from '@kb/platform';
import type { Backends } from '../../src/clients/backends';
import { loadGatewayConfig } from '../../src/config';
import { createGatewayApp } from '../../src/server';
import { httpRequest, type HttpResponse } from '../../../../test/support/http';

export const TOKEN = 'kbt_abcdefabcdef_secret';
export const TENANT = { id: 'acme', name: 'Acme', hosts: [], settings: {}, created_at: '2026-01-01T00:00:00.000Z' };
export const IDENTITY = {
  token_id: 't1',
  user_id: 'u1',
  role: 'Admin',
  scopes: ['knowledge:read', 'knowledge:write', 'knowledge:admin'],
  workspace_ids: [],
};
export const UUID = '0b6f3a3e-8e0c-4a39-9c55-2d1f0f6f1c11';

/** A stand-in answers like the typed gRPC client: with the response message, or by throwing an AppError. */
export type Handlers = Record<string, (request: any) => unknown>;
export interface Call {
  service: string;
  method: string;
  request: Record<string, unknown>;
}

export type Reply = HttpResponse;

export interface RequestOptions {
  method?: string;
  /** null sends no Authorization header. */
  token?: string | null;
  headers?: Record<string, string>;
  /** An object is sent as JSON; a string as it is. */
  body?: unknown;
  /** Send the body chunked, without Content-Length. */
  chunked?: boolean;
}

export interface TestGateway {
  readonly knowledge: Handlers;
  readonly catalog: Handlers;
  readonly similarity: Handlers;
  /** Every call the routes made to a back service, oldest first. */
  readonly calls: Call[];
  /** What the gateway logged at error level. */
  readonly errors: Record<string, unknown>[];
  request(path: string, options?: RequestOptions): Promise<Reply>;
  close(): Promise<void>;
}

function fake(service: string, handlers: Handlers, calls: Call[]) {
  return {
    name: service,
    call: async (method: string, req: Record<string, unknown>) => {
      calls.push({ service, method, request: req });
      const handler = handlers[method];
      if (!handler) throw new AppError('internal', `the ${service} stand-in has no ${method}`);
      return handler(req);
    },
    check: async () => 'SERVING',
  };
}

/** The gateway with the given environment; the knowledge stand-in knows the tenant and the token. */
export async function startGateway(env: Record<string, string> = {}): Promise<TestGateway> {
  const calls: Call[] = [];
  const errors: Record<string, unknown>[] = [];
  const knowledge: Handlers = {
    ResolveTenant: (req: { tenant_id?: string; host?: string }) => ({
      ...TENANT,
      id: req.tenant_id ?? `host-${req.host}`,
    }),
    AuthenticateApiToken: () => IDENTITY,
  };
  const catalog: Handlers = {};
  const similarity: Handlers = {};
  const backends = {
    knowledge: fake('knowledge', knowledge, calls),
    catalog: fake('catalog', catalog, calls),
    similarity: fake('similarity', similarity, calls),
    close() {},
  };
  const config = loadGatewayConfig({
    TENANT_MODE: 'single',
    TENANT_ID: 'acme',
    KNOWLEDGE_GRPC_ADDR: '127.0.0.1:1',
    CATALOG_GRPC_ADDR: '127.0.0.1:1',
    SIMILARITY_GRPC_ADDR: '127.0.0.1:1',
    SERVICE_AUTH_SECRET: 'a unit-test secret of thirty-two bytes',
    ...env,
  });
  const logger: Logger = pino(
    { level: 'error' },
    { write: (line: string) => void errors.push(JSON.parse(line) as Record<string, unknown>) },
  );
  const { app } = createGatewayApp(config, backends as unknown as Backends, logger);
  const server: Server = createServer(app.callback());
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    knowledge,
    catalog,
    similarity,
    calls,
    errors,
    request: (path, options = {}) => send(port, path, options),
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** The shared test client, with this file's defaults: POST when there is a body, the stand-in token unless null. */
function send(port: number, path: string, options: RequestOptions): Promise<Reply> {
  const { token = TOKEN, method = options.body === undefined ? 'GET' : 'POST', ...rest } = options;
  return httpRequest(port, `127.0.0.1:${port}`, path, { ...rest, method, ...(token !== null ? { token } : {}) });
}

/** The message an entry arrives as from the knowledge service: proto3 optional fields unset. */
export function entryMessage(overrides: Record<string, unknown> = {}) {
  return {
    id: UUID,
    tenant_id: 'acme',
    title: 'Returns',
    content: 'Thirty days.',
    category_id: UUID,
    visibility: 'internal',
    type: 'knowledge',
    version: 3,
    language: 'de',
    translation_group_id: UUID,
    source: 'manual',
    created_at: '2026-01-01T00:00:00.000Z',
    updated_at: '2026-01-02T00:00:00.000Z',
    tags: ['policy'],
    metadata_json: '{"a":1}',
    search_keywords: [],
    ...overrides,
  };
}

/** A gateway for the enclosing describe block (or file): started before its tests, closed after. */
export function useGateway(env: Record<string, string> = {}): () => TestGateway {
  let gw: TestGateway | undefined;
  beforeAll(async () => {
    gw = await startGateway(env);
  });
  afterAll(() => gw?.close());
  return () => gw as TestGateway;
}
