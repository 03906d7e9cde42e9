/**
 * docs/api.md's route table is generated from the gateway's route declarations; these tests
 * fail when a route changes and the table was not written again (npm run docs:api).
 * No backend: the routes are declared, never called.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { gatewayOpenApi } from '../src/gateway-document';
import { routeTable, withRouteTable, TABLE_END, TABLE_START, type OpenApiDocument } from '../src/route-table';

const API_DOC = join(__dirname, '..', '..', '..', 'docs', 'api.md');

test('when the gateway routes are declared, then docs/api.md holds their table as npm run docs:api writes it', () => {
  const current = readFileSync(API_DOC, 'utf8');
  expect(withRouteTable(current, routeTable(gatewayOpenApi()))).toBe(current);
});

test('when the gateway routes are declared, then every one of them has its row', () => {
  const document = gatewayOpenApi();
  const table = routeTable(document);
  for (const [path, operations] of Object.entries(document.paths)) {
    for (const method of Object.keys(operations)) expect(table).toContain(`| \`${method.toUpperCase()} ${path}\` |`);
  }
});

test('when a description holds a pipe, a line break or an angle bracket, then its row stays one row of text', () => {
  const document: OpenApiDocument = {
    paths: {
      '/api/knowledge/things': {
        post: {
          summary: 'Make a thing',
          description: 'one | two\nthree <version>',
          'x-extension': true,
          parameters: [{ name: 'site_id', in: 'query', required: true }],
          requestBody: { content: { 'application/json': { schema: { $ref: '#/components/schemas/ThingCreate' } } } },
          responses: {
            200: { description: 'Updated', content: { 'application/json': { schema: { $ref: '#/x/Thing' } } } },
            201: { description: 'Created', content: { 'application/json': { schema: { $ref: '#/x/Thing' } } } },
          },
        },
      },
    },
  };
  expect(routeTable(document).split('\n')[2]).toBe(
    '| `POST /api/knowledge/things` | Make a thing (extension) | `site_id` | `ThingCreate` | ' +
      '200 `Thing` (updated), 201 `Thing` (created) | one \\| two three &lt;version&gt; |',
  );
});

test('when the markers are missing, then nothing is written and the error names them', () => {
  expect(() => withRouteTable('# API\n', '| table |')).toThrow(TABLE_START);
  expect(withRouteTable(`a\n${TABLE_START}\nold\n${TABLE_END}\nb\n`, '| new |')).toBe(
    `a\n${TABLE_START}\n\n| new |\n\n${TABLE_END}\nb\n`,
  );
});
