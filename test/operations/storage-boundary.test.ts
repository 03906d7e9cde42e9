/**
 * Storage stays in data-access: the services without MongoDB (gateway, similarity) load the
 * shared libraries other than @kb/mongo and the telemetry preload, so none of them may load
 * mongoose or the MongoDB driver; those are behind @kb/mongo. Each check starts a fresh Node
 * process on the built packages, as an image starts its service.
 */
import { execFileSync } from 'node:child_process';

const telemetry = require.resolve('@kb/platform/telemetry');

/** The node_modules packages loaded by a new process that requires `entry` (after `preload`, if given). */
function packagesLoadedBy(entry: string, preload?: string): Set<string> {
  const script = `require(${JSON.stringify(entry)}); process.stdout.write(JSON.stringify(Object.keys(require.cache))); process.exit(0);`;
  const args = [...(preload ? ['--require', preload] : []), '-e', script];
  const files = JSON.parse(execFileSync(process.execPath, args, { encoding: 'utf8', cwd: __dirname })) as string[];
  return new Set(
    files.map((f) => /[\\/]node_modules[\\/]((?:@[^\\/]+[\\/])?[^\\/]+)/.exec(f)?.[1]).filter(Boolean) as string[],
  );
}

describe('the storage boundary of the shared libraries', () => {
  test.each(['@kb/platform', '@kb/text', '@kb/rules', '@kb/search', '@kb/indexing'])(
    'when %s is loaded, then neither mongoose nor the MongoDB driver is',
    (library) => {
      const loaded = packagesLoadedBy(library);
      expect(loaded.has('mongoose')).toBe(false);
      expect(loaded.has('mongodb')).toBe(false);
    },
  );

  test('when the telemetry preload starts, then it loads neither mongoose nor the MongoDB driver', () => {
    const loaded = packagesLoadedBy(telemetry);
    expect(loaded.has('@opentelemetry/sdk-node')).toBe(true);
    expect(loaded.has('mongoose')).toBe(false);
    expect(loaded.has('mongodb')).toBe(false);
  });

  test('when the MongoDB entry is loaded, then mongoose is (the check above sees it)', () => {
    expect(packagesLoadedBy('@kb/mongo').has('mongoose')).toBe(true);
  });
});

describe.each(['gateway', 'similarity'])('the %s service', (service) => {
  test(`when the ${service} service is loaded as its image starts it, then neither mongoose nor the MongoDB driver is`, () => {
    const loaded = packagesLoadedBy(`@kb/${service}`, telemetry);
    expect(loaded.has('@grpc/grpc-js')).toBe(true);
    expect(loaded.has('mongoose')).toBe(false);
    expect(loaded.has('mongodb')).toBe(false);
  });
});
