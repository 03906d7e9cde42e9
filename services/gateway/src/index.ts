export { createGatewayApp, startGateway, type GatewayServer } from './server';
export { loadGatewayConfig, GatewayConfigSchema, type GatewayConfig } from './config';
export { connectBackends, type Backends } from './clients/backends';
export { ANCHOR_CONFIRMED_MS } from './read-path/anchor-cache';
export { ENTRY_CONFIRMED_MS } from './read-path/entry-confirmations';
