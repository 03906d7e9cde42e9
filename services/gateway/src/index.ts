export { createGatewayApp, startGateway, type GatewayServer } from './server';
export { loadGatewayConfig, GatewayConfigSchema, type GatewayConfig } from './config';
export { connectBackends, type Backends } from './clients/backends';
