import { createLogger } from '@kb/platform';
import { createGatewayApp, loadGatewayConfig, type Backends } from '@kb/gateway';
import type { OpenApiDocument } from './route-table';

/**
 * The OpenAPI document the gateway serves, built from its route declarations alone: the routes
 * are declared, nothing is called, so no service or backend needs to run.
 */
export function gatewayOpenApi(): OpenApiDocument {
  // Nothing is called: the secret only has to be well-formed.
  const config = loadGatewayConfig({
    TENANT_MODE: 'single',
    TENANT_ID: 'docs',
    SERVICE_AUTH_SECRET: 'the route table calls no service',
  });
  const { openapi } = createGatewayApp(config, {} as Backends, createLogger('docs', 'silent'));
  return openapi() as OpenApiDocument;
}
