/**
 * `npm run docs:api`: writes the route table of docs/api.md from the gateway's route
 * declarations. With `--check` it writes nothing and exits 1 when the table is out of date.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { gatewayOpenApi } from './gateway-document';
import { routeTable, withRouteTable } from './route-table';

export const API_DOC = join(__dirname, '..', '..', '..', 'docs', 'api.md');

function main(argv: string[]): number {
  const check = argv.includes('--check');
  const current = readFileSync(API_DOC, 'utf8');
  const next = withRouteTable(current, routeTable(gatewayOpenApi()));
  const name = relative(process.cwd(), API_DOC);
  if (next === current) {
    process.stdout.write(`${name}: the route table is up to date\n`);
    return 0;
  }
  if (check) {
    process.stderr.write(`${name}: the route table is out of date; run npm run docs:api\n`);
    return 1;
  }
  writeFileSync(API_DOC, next);
  process.stdout.write(`${name}: route table written\n`);
  return 0;
}

if (require.main === module) process.exitCode = main(process.argv.slice(2));
