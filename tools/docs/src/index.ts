export { gatewayOpenApi } from './gateway-document';
export { routeTable, withRouteTable, TABLE_START, TABLE_END, type OpenApiDocument } from './route-table';
