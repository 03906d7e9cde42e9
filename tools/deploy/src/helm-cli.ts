/**
 * `node tools/deploy/dist/helm-cli.js <helm args>`: the project's pinned Helm (fetched on
 * first use), for scripts and people without a Helm of their own. `--kubectl` as the first
 * argument runs the bundled kubectl instead.
 */
import { spawnSync } from 'node:child_process';
import { ensureHelm } from './helm';

async function main(): Promise<number> {
  const args = process.argv.slice(2);
  const tools = await ensureHelm((msg) => process.stderr.write(`[helm] ${msg}\n`));
  const [binary, rest] = args[0] === '--kubectl' ? [tools.kubectl, args.slice(1)] : [tools.helm, args];
  const r = spawnSync(binary, rest, { stdio: 'inherit' });
  if (r.error) throw r.error;
  return r.status ?? 1;
}

main().then(
  (code) => process.exit(code),
  (err: unknown) => {
    process.stderr.write(`helm-cli: ${(err as Error).message}\n`);
    process.exit(1);
  },
);
