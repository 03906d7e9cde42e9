/**
 * The route table of docs/api.md, written from the OpenAPI document the gateway's route
 * declarations produce: one row per operation, in declaration order.
 */

export const TABLE_START =
  '<!-- route-table:start: generated from the gateway route declarations by `npm run docs:api`; do not edit -->';
export const TABLE_END = '<!-- route-table:end -->';

interface Schema {
  $ref?: string;
  type?: string;
  items?: Schema;
}

interface Parameter {
  name: string;
  in: string;
  required?: boolean;
}

interface Operation {
  summary: string;
  description?: string;
  'x-extension'?: boolean;
  parameters?: Parameter[];
  requestBody?: { content: Record<string, { schema: Schema }> };
  responses: Record<string, { description: string; content?: Record<string, { schema: Schema }> }>;
}

export interface OpenApiDocument {
  paths: Record<string, Record<string, Operation>>;
}

const HEADER = ['| Route | What | Query | Body | Answer | Notes |', '| ----- | ---- | ----- | ---- | ------ | ----- |'];

/** The markdown table: the route, its summary, query parameters, body and success answers by schema name. */
export function routeTable(document: OpenApiDocument): string {
  const rows: string[] = [];
  for (const [path, operations] of Object.entries(document.paths)) {
    for (const [method, op] of Object.entries(operations)) rows.push(row(method, path, op));
  }
  return [...HEADER, ...rows].join('\n');
}

function row(method: string, path: string, op: Operation): string {
  const route = `\`${method.toUpperCase()} ${path}\``;
  const what = op['x-extension'] ? `${op.summary} (extension)` : op.summary;
  const query = (op.parameters ?? [])
    .filter((p) => p.in === 'query')
    .map((p) => `\`${p.name}${p.required ? '' : '?'}\``)
    .join(', ');
  const body = op.requestBody ? code(schemaName(jsonSchema(op.requestBody.content))) : '';
  const cells = [route, what, query, body, answers(op), op.description ?? ''];
  return `| ${cells.map(cell).join(' | ')} |`;
}

/** Success answers: the status and the schema; the description too when a route has several. */
function answers(op: Operation): string {
  const success = Object.entries(op.responses).filter(([status]) => Number(status) < 300);
  return success
    .map(([status, r]) => {
      const schema = r.content ? ` ${code(schemaName(jsonSchema(r.content)))}` : '';
      const when = success.length > 1 ? ` (${r.description.toLowerCase()})` : '';
      return `${status}${schema}${when}`;
    })
    .join(', ');
}

function jsonSchema(content: Record<string, { schema: Schema }>): Schema | undefined {
  return content['application/json']?.schema;
}

/** `#/components/schemas/Category` → `Category`; an array of them → `Category[]`. */
function schemaName(schema: Schema | undefined): string {
  if (!schema) return '';
  if (schema.$ref) return schema.$ref.split('/').pop() ?? schema.$ref;
  if (schema.type === 'array') return `${schemaName(schema.items)}[]`;
  return schema.type ?? 'object';
}

const code = (text: string) => (text ? `\`${text}\`` : '');

/** One table cell: on one line, its pipes escaped, and `<version>` shown as text rather than taken for HTML. */
const cell = (text: string) =>
  text
    .replace(/\s*\n\s*/g, ' ')
    .replace(/\|/g, '\\|')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;');

/** The document with the table between its markers replaced; throws when the markers are not there once each. */
export function withRouteTable(markdown: string, table: string): string {
  const start = markdown.indexOf(TABLE_START);
  const end = markdown.indexOf(TABLE_END);
  const once = (marker: string) => markdown.indexOf(marker) === markdown.lastIndexOf(marker);
  if (start < 0 || end < start || !once(TABLE_START) || !once(TABLE_END)) {
    throw new Error(
      `the route table's markers are missing or out of order; expected once each:\n${TABLE_START}\n${TABLE_END}`,
    );
  }
  return `${markdown.slice(0, start + TABLE_START.length)}\n\n${table}\n\n${markdown.slice(end)}`;
}
