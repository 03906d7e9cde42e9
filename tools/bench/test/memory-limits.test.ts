import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SERVICES } from '@kb/devstack';
import { chartPodSettings, inCgroup, leftoverGroups, memoryQuantity, perService } from '../src/memory-limits';

const MiB = 2 ** 20;

describe("the benchmark's memory limits (BENCH_MEMORY_LIMITS=chart)", () => {
  it('when a quantity is written as Kubernetes writes it, then it is read in bytes', () => {
    expect(memoryQuantity('256Mi')).toBe(256 * MiB);
    expect(memoryQuantity('1Gi')).toBe(2 ** 30);
    expect(memoryQuantity('500M')).toBe(500e6);
    expect(memoryQuantity('1.5Gi')).toBe(1.5 * 2 ** 30);
    expect(memoryQuantity(1048576)).toBe(MiB);
    expect(() => memoryQuantity('256MB')).toThrow(/not a memory quantity/);
  });

  it("when the chart's values are read, then each service gets its component's limit, else the default, and the env merged", () => {
    const values = readFileSync(join(__dirname, '../../../charts/knowledge-service/values.yaml'), 'utf8');
    const pods = chartPodSettings(values, SERVICES);
    expect(pods.gateway.limitBytes).toBe(256 * MiB);
    expect(pods.knowledge.limitBytes).toBe(256 * MiB);
    expect(pods.catalog.limitBytes).toBe(256 * MiB);
    expect(pods.similarity.limitBytes).toBe(1024 * MiB);
    expect(pods.gateway.env['NODE_OPTIONS']).toMatch(/--max-semi-space-size=\d+/);
    const overridden = chartPodSettings(
      'default: {resources: {limits: {memory: 300Mi}}, env: {A: x, B: 1}}\n' +
        'components: {gateway: {resources: {limits: {memory: 2Gi}}, env: {B: 2, C: y}}, catalog: {port: 1}}',
      SERVICES,
    );
    expect(overridden.gateway).toEqual({ limitBytes: 2 ** 31, env: { A: 'x', B: '2', C: 'y' } });
    expect(overridden.catalog).toEqual({ limitBytes: 300 * MiB, env: { A: 'x', B: '1' } });
    expect(() => chartPodSettings('components: {}', ['gateway'])).toThrow(/no memory limit/);
  });

  it('when a process is launched in a cgroup, then its own pid is written to the group before it becomes the command', () => {
    const dir = mkdtempSync(join(tmpdir(), 'kb-cgroup-'));
    try {
      const procs = join(dir, 'cgroup.procs');
      writeFileSync(procs, '');
      const { command, args } = inCgroup(procs, process.execPath, ['-e', 'process.stdout.write(String(process.pid))']);
      const run = spawnSync(command, args, { encoding: 'utf8' });
      expect(run.status).toBe(0);
      expect(readFileSync(procs, 'utf8').trim()).toBe(run.stdout); // exec: the same process
      expect(run.stdout).toMatch(/^\d+$/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('when a service ran as several processes, then its row has the highest peak and every OOM kill', () => {
    const rows = perService([
      { service: 'gateway', limitBytes: 256 * MiB, peakBytes: 100 * MiB, oomKills: 0 },
      { service: 'gateway', limitBytes: 256 * MiB, peakBytes: 192 * MiB, oomKills: 1 },
      { service: 'similarity', limitBytes: 1024 * MiB, peakBytes: 372 * MiB, oomKills: 0 },
    ]);
    expect(rows).toEqual([
      { service: 'gateway', limitMiB: 256, peakMiB: 192, processes: 2, oomKills: 1 },
      { service: 'similarity', limitMiB: 1024, peakMiB: 372, processes: 1, oomKills: 0 },
    ]);
  });

  it("when an earlier run was killed before its stop, then only its groups are tidied, not a live run's or others'", () => {
    const names = [
      'kb-bench-100-gateway-3',
      'kb-bench-200-catalog-1',
      `kb-bench-${process.pid}-gateway-0`,
      'kbt-256',
      'docker',
    ];
    expect(leftoverGroups(names, (pid) => pid === 200)).toEqual(['kb-bench-100-gateway-3']);
  });
});
