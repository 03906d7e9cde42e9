/**
 * The gateway service does not use MongoDB, so its image must not load mongoose: its entry, started
 * as the image starts it (the telemetry preload first), loads neither mongoose nor the driver.
 */
import { execFileSync } from 'node:child_process';

/** The node_modules packages loaded by a new process that preloads `preload` and requires `entry`. */
function packagesLoadedBy(entry: string, preload: string): Set<string> {
  const script = `require(${JSON.stringify(entry)}); process.stdout.write(JSON.stringify(Object.keys(require.cache))); process.exit(0);`;
  const files = JSON.parse(
    execFileSync(process.execPath, ['--require', preload, '-e', script], { encoding: 'utf8', cwd: __dirname }),
  ) as string[];
  return new Set(
    files.map((f) => /[\\/]node_modules[\\/]((?:@[^\\/]+[\\/])?[^\\/]+)/.exec(f)?.[1]).filter(Boolean) as string[],
  );
}

test('when the gateway service is loaded as its image starts it, then neither mongoose nor the MongoDB driver is', () => {
  const loaded = packagesLoadedBy('@kb/gateway', require.resolve('@kb/common/dist/telemetry.js'));
  expect(loaded.has('@grpc/grpc-js')).toBe(true);
  expect(loaded.has('mongoose')).toBe(false);
  expect(loaded.has('mongodb')).toBe(false);
});
