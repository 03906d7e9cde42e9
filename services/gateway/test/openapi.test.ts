/**
 * The published API, pinned: the OpenAPI document every route declaration writes is compared
 * with the committed one, so a refactoring that changes a schema, a default or a bound shows up
 * here as a diff. After an intended API change: KB_UPDATE_OPENAPI=1 npx jest services/gateway/test/openapi.test.ts
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import pino from 'pino';
import { loadGatewayConfig } from '../src/config';
import type { Backends } from '../src/clients/backends';
import { createGatewayApp } from '../src/server';

const FIXTURE = join(__dirname, 'fixtures', 'openapi.json');

test('when the routes are declared, then the OpenAPI document is the committed one, byte for byte', () => {
  const config = loadGatewayConfig({
    TENANT_MODE: 'single',
    TENANT_ID: 'acme',
    KNOWLEDGE_GRPC_ADDR: '127.0.0.1:1',
    CATALOG_GRPC_ADDR: '127.0.0.1:1',
    SIMILARITY_GRPC_ADDR: '127.0.0.1:1',
    SERVICE_AUTH_SECRET: 'a unit-test secret of thirty-two bytes',
  });
  const { openapi } = createGatewayApp(config, {} as Backends, pino({ level: 'silent' }));
  const document = `${JSON.stringify(openapi(), null, 2)}\n`;
  if (process.env.KB_UPDATE_OPENAPI === '1') writeFileSync(FIXTURE, document);
  expect(document).toBe(readFileSync(FIXTURE, 'utf8'));
});
