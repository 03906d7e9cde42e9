import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import {
  CallToolRequestSchema,
  ErrorCode,
  GetPromptRequestSchema,
  ListPromptsRequestSchema,
  ListResourcesRequestSchema,
  ListToolsRequestSchema,
  McpError,
  ReadResourceRequestSchema,
  type CallToolResult,
} from '@modelcontextprotocol/sdk/types.js';
import { SpanStatusCode, type Span } from '@opentelemetry/api';
import { inSpan } from '@kb/platform';
import { assertValid } from '@kb/rules';
import { restErrorBody } from '../errors';
import { selfContainedSchema } from '../openapi';
import { TOOLS, type Operation, type Returned, type Tool } from './tools';

export const SKILL_INDEX_URI = 'knowledge://skill-index';
/** At most this many entries and products are named on a tool call's span. */
const SPAN_IDS_MAX = 50;

const INSTRUCTIONS =
  'Knowledge and catalogue of one tenant, as the user whose token you hold may see them. Answer support ' +
  'questions from search_knowledge (quote its passages; with min_relevance 0.5 an empty result means the ' +
  'knowledge base does not answer), and product questions from search_products and find_similar_products. ' +
  'The skill index resource lists the skills (procedures) you may use; each is also offered as a prompt.';

interface SkillItem {
  id: string;
  title: string;
  trigger_description: string;
}

/**
 * The MCP server for one HTTP request of one caller: the tools, the skill-index resource and the
 * skill prompts, each answered through the REST operations (`operation`), so every rule of REST
 * (scopes, roles, visibility, limits) holds unchanged. Made per request: it keeps no state.
 */
export function mcpServer(operation: Operation, version: string, failed: (err: unknown) => void): Server {
  const server = new Server(
    { name: 'knowledge-service', title: 'Knowledge service', version },
    { capabilities: { tools: {}, resources: {}, prompts: {} }, instructions: INSTRUCTIONS },
  );

  server.setRequestHandler(ListToolsRequestSchema, () => ({ tools: toolList() }));

  server.setRequestHandler(CallToolRequestSchema, async (request, extra) => {
    const tool = TOOLS.find((t) => t.name === request.params.name);
    if (!tool) throw new McpError(ErrorCode.InvalidParams, `Unknown tool: ${request.params.name}`);
    return callTool(tool, request.params.arguments ?? {}, operation, String(extra.requestId), failed);
  });

  server.setRequestHandler(ListResourcesRequestSchema, () => ({
    resources: [
      {
        uri: SKILL_INDEX_URI,
        name: 'skill-index',
        title: 'Skill index',
        description: 'The skills you may use, one line each with its id and when to use it (the skill_index entry).',
        mimeType: 'application/json',
      },
    ],
  }));

  server.setRequestHandler(ReadResourceRequestSchema, async (request) => {
    if (request.params.uri !== SKILL_INDEX_URI)
      throw new McpError(ErrorCode.InvalidParams, `Unknown resource: ${request.params.uri}`);
    const index = await skillIndex(operation);
    return { contents: [{ uri: SKILL_INDEX_URI, mimeType: 'application/json', text: JSON.stringify(index ?? null) }] };
  });

  server.setRequestHandler(ListPromptsRequestSchema, async () => ({
    prompts: promptNames(await skills(operation)).map(({ name, skill }) => ({
      name,
      title: skill.title,
      description: skill.trigger_description,
      arguments: [{ name: 'request', description: "The user's request to apply the skill to", required: false }],
    })),
  }));

  server.setRequestHandler(GetPromptRequestSchema, async (request) => {
    const found = promptNames(await skills(operation)).find((p) => p.name === request.params.name);
    if (!found) throw new McpError(ErrorCode.InvalidParams, `Unknown prompt: ${request.params.name}`);
    const { body } = await operation('getKnowledgeEntry', { params: { entry_id: found.skill.id } });
    const entry = body as { title: string; content: string };
    const asked = request.params.arguments?.request;
    const text = `Use the skill "${entry.title}":\n\n${entry.content}${asked ? `\n\nRequest: ${asked}` : ''}`;
    return {
      description: found.skill.trigger_description,
      messages: [{ role: 'user', content: { type: 'text', text } }],
    };
  });

  return server;
}

let listed: ReturnType<typeof describeTools> | undefined;
/** tools/list: the same for every caller and request, so written once. */
const toolList = () => (listed ??= describeTools());

function describeTools() {
  return TOOLS.map((t) => ({
    name: t.name,
    title: t.title,
    description: t.description,
    inputSchema: selfContainedSchema(t.input) as { type: 'object' },
    outputSchema: selfContainedSchema(t.output) as { type: 'object' },
    annotations: { readOnlyHint: t.readOnly, destructiveHint: false, idempotentHint: t.readOnly, openWorldHint: false },
  }));
}

/**
 * A tool call as its span (`execute_tool <name>`, OpenTelemetry GenAI conventions), naming what
 * the assistant was given: each entry as `<id>@<version>`, each product by id. A refusal is a
 * result with isError and the body REST would answer, never a protocol error.
 */
function callTool(
  tool: Tool,
  args: unknown,
  operation: Operation,
  callId: string,
  failed: (err: unknown) => void,
): Promise<CallToolResult> {
  const attributes = {
    'gen_ai.operation.name': 'execute_tool',
    'gen_ai.tool.name': tool.name,
    'gen_ai.tool.type': 'function',
    'gen_ai.tool.call.id': callId,
    'mcp.method.name': 'tools/call',
  };
  return inSpan(`execute_tool ${tool.name}`, { attributes }, async (span) => {
    try {
      const valid = assertValid(tool.input, args, ['arguments']);
      const answer = await tool.run(valid, operation);
      describeReturned(span, answer.returned);
      return { content: [{ type: 'text', text: answer.text }], structuredContent: answer.structured };
    } catch (err) {
      const { status, body } = restErrorBody(err);
      span.setAttribute('error.type', String(status));
      span.setStatus({
        code: SpanStatusCode.ERROR,
        message: typeof body.detail === 'string' ? body.detail : 'invalid',
      });
      if (status >= 500) failed(err);
      return { isError: true, content: [{ type: 'text', text: JSON.stringify({ status, ...body }) }] };
    }
  });
}

function describeReturned(span: Span, returned: Returned): void {
  span.setAttribute('kb.mcp.entries.count', returned.entries.length);
  span.setAttribute('kb.mcp.products.count', returned.products.length);
  if (returned.entries.length)
    span.setAttribute(
      'kb.mcp.entries',
      returned.entries.slice(0, SPAN_IDS_MAX).map((e) => `${e.id}@${e.version}`),
    );
  if (returned.products.length) span.setAttribute('kb.mcp.products', returned.products.slice(0, SPAN_IDS_MAX));
}

/** The caller's skill index as REST lists it (the skill_index entry as they may see it), if there is one. */
async function skillIndex(operation: Operation): Promise<Record<string, unknown> | undefined> {
  const { body } = await operation('listKnowledgeEntries', { query: { type: 'skill_index', limit: 1 } });
  return (body as Record<string, unknown>[])[0];
}

async function skills(operation: Operation): Promise<SkillItem[]> {
  const index = await skillIndex(operation);
  return ((index?.metadata as { skills?: SkillItem[] } | undefined)?.skills ?? []).filter((s) => s?.id && s.title);
}

/** Prompt names from the skills' titles (lower case, dashes), made unique with the id's start where two collide. */
function promptNames(items: SkillItem[]): { name: string; skill: SkillItem }[] {
  const base = (s: SkillItem) =>
    s.title
      .toLowerCase()
      .normalize('NFKD')
      .replace(/[^a-z0-9]+/g, '-')
      .replace(/^-|-$/g, '')
      .slice(0, 64) || 'skill';
  const counts = new Map<string, number>();
  for (const s of items) counts.set(base(s), (counts.get(base(s)) ?? 0) + 1);
  return items.map((skill) => {
    const name = base(skill);
    return { name: counts.get(name)! > 1 ? `${name}-${skill.id.slice(0, 8)}` : name, skill };
  });
}
