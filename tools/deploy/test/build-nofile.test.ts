import { spawnSync } from 'node:child_process';
import { buildNofile, processHardNofile } from '../src/container-engine';

describe('open files of a podman build step', () => {
  test('when the hard limit allows more than podman’s 1,024, then the build asks for it, at most 65,536', () => {
    expect(buildNofile(20_000)).toBe(20_000);
    expect(buildNofile(1_048_576)).toBe(65_536);
    expect(buildNofile(Infinity)).toBe(65_536);
  });

  test('when it does not, or cannot be read, then the build asks for nothing (more would be refused)', () => {
    expect(buildNofile(1_024)).toBeUndefined();
    expect(buildNofile(256)).toBeUndefined();
    expect(buildNofile(undefined)).toBeUndefined();
  });

  test('when read from this process, then it is never above its own hard limit', () => {
    const hard = spawnSync('sh', ['-c', 'ulimit -Hn'], { encoding: 'utf8' }).stdout.trim();
    const asked = buildNofile(processHardNofile());
    if (asked !== undefined && hard !== 'unlimited') expect(asked).toBeLessThanOrEqual(Number(hard));
  });
});
