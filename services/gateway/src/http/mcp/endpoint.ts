import type Koa from 'koa';
import type Router from '@koa/router';
import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import { isInitializeRequest, type InitializeRequest, type JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { AppError, SCOPES, type Caller, type Logger } from '@kb/platform';
import { API_PREFIX, type Authentication, type RouteTable } from '../route';
import { readJsonBody } from '../body';
import { restErrorBody } from '../errors';
import { clientName, holderOf, type SessionCodec } from './session';
import { mcpServer } from './server';

export const MCP_PATH = `${API_PREFIX}/mcp`;
/** RFC 9728 section 3.1: the metadata of a resource with a path sits below the well-known name, followed by that path. */
export const RESOURCE_METADATA_PATH = `/.well-known/oauth-protected-resource${MCP_PATH}`;
/** Request headers the MCP transport reads; nothing else of the request reaches it. */
const TRANSPORT_HEADERS = ['accept', 'content-type', 'mcp-protocol-version', 'mcp-session-id', 'last-event-id'];

export interface McpDeps {
  routes: RouteTable;
  auth: Pick<Authentication, 'tenant' | 'check' | 'admit'>;
  sessions: SessionCodec;
  bodyLimitBytes: number;
  version: string;
  logger: Logger;
}

/**
 * The MCP endpoint (Streamable HTTP, JSON responses) and its protected-resource metadata, in the
 * gateway's Koa app. A request is resolved to its tenant, authenticated and counted against the
 * caller's rate limit exactly as a REST request is, and only then is its body read; each tool
 * then runs a REST operation through the route table as that caller. Sessions are stateless
 * (session.ts): the server keeps nothing between requests, so there is no stream to open (GET)
 * and no session to end (DELETE): both are 405, which the protocol allows.
 */
export function mcpRoutes(router: Router, deps: McpDeps): void {
  router.all(MCP_PATH, async (ctx) => {
    (ctx.state as { bearerChallenge?: string }).bearerChallenge = challenge(ctx);
    const tenant = await deps.auth.tenant(ctx);
    const caller = await deps.auth.check(ctx, tenant);
    deps.auth.admit(tenant, caller);
    if (ctx.method !== 'POST') {
      ctx.set('Allow', 'POST');
      ctx.status = 405;
      ctx.body = rpcError(-32000, 'Method not allowed: this server keeps no streams or sessions open; send POST');
      return;
    }
    const messages = await readMessages(ctx, deps.bodyLimitBytes);
    if (!messages) return;
    // Every JSON-RPC message of a batch counts as a request (the first was counted above).
    for (let i = 1; i < messages.length; i++) deps.auth.admit(tenant, caller);
    const session = await sessionOf(ctx, messages, tenant.id, caller, deps.sessions);
    if (!session) return;
    const asClient: Caller = { ...caller, audit_source: 'mcp', client_id: session.client };
    const who = { ctx, tenant, caller: asClient };
    const server = mcpServer(
      (operationId, input) => deps.routes.invoke(operationId, input, who),
      deps.version,
      (err) => deps.logger.error({ err, request_id: ctx.state.requestId }, 'MCP tool failed'),
    );
    const transport = new WebStandardStreamableHTTPServerTransport({
      sessionIdGenerator: undefined,
      enableJsonResponse: true,
    });
    try {
      await server.connect(transport);
      const response = await transport.handleRequest(transportRequest(ctx), { parsedBody: ctx.request.body });
      ctx.status = response.status;
      response.headers.forEach((value, name) => {
        if (name !== 'content-length') ctx.set(name, value);
      });
      if (session.id) ctx.set('Mcp-Session-Id', session.id);
      const text = await response.text();
      if (text) ctx.body = text;
    } finally {
      await server.close();
    }
  });

  router.get(RESOURCE_METADATA_PATH, async (ctx) => {
    ctx.body = await resourceMetadata(ctx, deps.auth);
    ctx.set('Cache-Control', 'public, max-age=300');
  });
}

/** `WWW-Authenticate` of a 401 here: where the protected-resource metadata is (RFC 9728 section 5.1). */
function challenge(ctx: Koa.Context): string {
  const error = ctx.get('Authorization') ? ', error="invalid_token"' : '';
  return `Bearer realm="knowledge", resource_metadata="${originOf(ctx)}${RESOURCE_METADATA_PATH}"${error}`;
}

/**
 * RFC 9728 metadata for this tenant's MCP endpoint: the resource, the scopes, and the
 * authorization server when the tenant trusts one (its OAuth issuer). An address that names no
 * tenant gets the document of a tenant without OAuth, so it tells nobody which tenants exist.
 */
async function resourceMetadata(ctx: Koa.Context, auth: Pick<Authentication, 'tenant'>): Promise<unknown> {
  let issuer: string | undefined;
  try {
    issuer = (await auth.tenant(ctx)).settings?.oauth?.issuer || undefined;
  } catch (err) {
    if (!(err instanceof AppError && err.kind === 'unauthenticated')) throw err;
  }
  return {
    resource: `${originOf(ctx)}${MCP_PATH}`,
    ...(issuer ? { authorization_servers: [issuer] } : {}),
    scopes_supported: [...SCOPES],
    bearer_methods_supported: ['header'],
    resource_name: 'Knowledge service',
    resource_documentation: `${originOf(ctx)}${API_PREFIX}/docs`,
  };
}

/**
 * The JSON-RPC messages of the body, read as REST reads bodies (size limit, content type,
 * duplicate and unsafe keys); a body that cannot be read is answered here with a JSON-RPC error
 * and REST's status, and nothing of it reaches a tool.
 */
async function readMessages(ctx: Koa.Context, limitBytes: number): Promise<JSONRPCMessage[] | undefined> {
  try {
    await readJsonBody(ctx, limitBytes);
  } catch (err) {
    const { status, body } = restErrorBody(err);
    if (status >= 500) throw err;
    ctx.status = status;
    ctx.body = rpcError(status === 400 ? -32700 : -32600, messageOf(body.detail));
    return undefined;
  }
  const body = ctx.request.body;
  if (body === undefined || (Array.isArray(body) && body.length === 0)) {
    ctx.status = 400;
    ctx.body = rpcError(-32600, 'Invalid Request: the body must be a JSON-RPC message');
    return undefined;
  }
  return (Array.isArray(body) ? body : [body]) as JSONRPCMessage[];
}

/**
 * The session a request belongs to: a new one on `initialize` (its client name kept from
 * `clientInfo`), else the one its `Mcp-Session-Id` states, if that is valid for this caller
 * (else 404, so the client starts a new session). A request without a session id is served as
 * a client without a name.
 */
async function sessionOf(
  ctx: Koa.Context,
  messages: JSONRPCMessage[],
  tenant: string,
  caller: Caller,
  sessions: SessionCodec,
): Promise<{ id?: string; client: string } | undefined> {
  const init = messages.find((m) => isInitializeRequest(m)) as InitializeRequest | undefined;
  if (init) {
    const client = clientName(init.params.clientInfo?.name);
    return { id: await sessions.issue({ tenant, holder: holderOf(caller), client }), client };
  }
  const id = ctx.get('Mcp-Session-Id');
  if (!id) return { client: '' };
  const session = await sessions.read(id, tenant, caller);
  if (session) return { id, client: session.client };
  ctx.status = 404;
  ctx.body = rpcError(-32001, 'Session not found: initialize a new session');
  return undefined;
}

function transportRequest(ctx: Koa.Context): Request {
  const headers = new Headers();
  for (const name of TRANSPORT_HEADERS) {
    const value = ctx.get(name);
    if (value) headers.set(name, value);
  }
  return new Request(`http://gateway${MCP_PATH}`, { method: ctx.method, headers });
}

/** The address the client used (behind a trusted proxy, the forwarded one). */
const originOf = (ctx: Koa.Context) => `${ctx.protocol}://${ctx.host}`;

const rpcError = (code: number, message: string) => ({ jsonrpc: '2.0', id: null, error: { code, message } });

const messageOf = (detail: unknown): string => (typeof detail === 'string' ? detail : JSON.stringify(detail));
