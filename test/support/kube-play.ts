/**
 * Running rendered Kubernetes manifests on this machine with `podman kube play`: no cluster is
 * reachable here, and podman runs the chart's Deployments (and its bootstrap Job's pod) from the
 * same YAML a cluster would get. What podman 4.3 needs, learnt the hard way:
 * - Secrets are podman secrets whose data is a JSON map of key → base64 value (a `kind: Secret`
 *   in the YAML is stored in a form its own secretKeyRef cannot read): `createSecret` makes one.
 * - Containers on the host network must not declare ports (the chart leaves them out when
 *   `hostNetwork` is on); probes, preStop hooks and Services are not run.
 * - A Job is not a kind it plays: `jobAsPod` turns the Job's pod template into a Pod.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { parseAllDocuments, stringify } from 'yaml';
import { engineEnv } from '@kb/deploy';

export interface KubeObject {
  apiVersion: string;
  kind: string;
  metadata: { name: string; annotations?: Record<string, string>; labels?: Record<string, string> };
  spec?: any;
  data?: Record<string, string>;
}

export function podman(
  args: string[],
  input?: string,
  timeoutMs = 120_000,
): { code: number; stdout: string; stderr: string } {
  const r = spawnSync('podman', args, { input, encoding: 'utf8', timeout: timeoutMs, env: engineEnv() });
  return { code: r.status ?? -1, stdout: r.stdout ?? '', stderr: r.stderr ?? (r.error ? String(r.error) : '') };
}

function mustPodman(args: string[], input?: string, timeoutMs?: number): string {
  const r = podman(args, input, timeoutMs);
  if (r.code !== 0)
    throw new Error(`podman ${args.join(' ')} failed (${r.code}): ${r.stderr.trim() || r.stdout.trim()}`);
  return r.stdout;
}

export function parseManifests(text: string): KubeObject[] {
  return parseAllDocuments(text)
    .map((d) => d.toJS() as KubeObject | null)
    .filter((o): o is KubeObject => Boolean(o && o.kind));
}

/** A podman secret in the form `kube play`'s secretKeyRef reads; replaces one of the same name. */
export function createSecret(name: string, data: Record<string, string>): void {
  podman(['secret', 'rm', name]);
  const json = JSON.stringify(
    Object.fromEntries(Object.entries(data).map(([k, v]) => [k, Buffer.from(v).toString('base64')])),
  );
  // From a file: podman takes `-` only from a named pipe, and Node's stdio pipes are sockets.
  const file = path.join(mkdtempSync(path.join(tmpdir(), 'kb-secret-')), 'data.json');
  writeFileSync(file, json, { mode: 0o600 });
  try {
    mustPodman(['secret', 'create', name, file]);
  } finally {
    rmSync(path.dirname(file), { recursive: true, force: true });
  }
}

export function removeSecret(name: string): void {
  podman(['secret', 'rm', name]);
}

/** The pod a Job would run, as a Pod that runs once. */
export function jobAsPod(job: KubeObject): KubeObject {
  const template = job.spec.template;
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name: job.metadata.name, labels: template.metadata?.labels },
    spec: { ...template.spec, restartPolicy: 'Never' },
  };
}

export class KubePlay {
  private readonly file: string;
  constructor(readonly objects: KubeObject[]) {
    this.file = path.join(mkdtempSync(path.join(tmpdir(), 'kb-kube-')), 'play.yaml');
    writeFileSync(this.file, objects.map((o) => stringify(o)).join('---\n'));
  }

  /** `podman kube play`: starts every pod (does not wait for the services to be ready). */
  play(): void {
    mustPodman(['kube', 'play', this.file], undefined, 300_000);
  }

  /** `podman kube down`: stops and removes every pod of the file (errors ignored: for clean-up). */
  down(): void {
    podman(['kube', 'down', this.file], undefined, 120_000);
  }

  /** The container podman made for a container of a Deployment (`<name>-pod-0-<container>`) or a Pod. */
  static containerName(object: KubeObject, container: string): string {
    return object.kind === 'Deployment'
      ? `${object.metadata.name}-pod-0-${container}`
      : `${object.metadata.name}-${container}`;
  }
}

/** Waits for a container to exit; its exit code. */
export function waitForExit(container: string, timeoutMs = 120_000): number {
  return Number(mustPodman(['wait', container], undefined, timeoutMs).trim());
}

export function logsOf(container: string, tail = 40): string {
  const r = podman(['logs', '--tail', String(tail), container]);
  return `${r.stdout}${r.stderr}`;
}

/** `podman inspect` of a container, the fields a hardening check needs. */
export function inspect(container: string): {
  user: string;
  readOnly: boolean;
  capAdd: string[];
  capDrop: string[];
  network: string;
  state: string;
  privileged: boolean;
  noNewPrivileges: boolean;
} {
  const [info] = JSON.parse(mustPodman(['inspect', container])) as any[];
  return {
    user: info.Config.User,
    readOnly: info.HostConfig.ReadonlyRootfs,
    capAdd: info.HostConfig.CapAdd ?? [],
    capDrop: info.HostConfig.CapDrop ?? [],
    network: info.HostConfig.NetworkMode,
    state: info.State.Status,
    privileged: info.HostConfig.Privileged,
    noNewPrivileges: (info.HostConfig.SecurityOpt ?? []).some((o: string) => /no-new-privileges/.test(o)),
  };
}

/** What podman knows of a container's runs: its state, how often it restarted, its current process. */
export function runState(container: string): {
  status: string;
  restartCount: number;
  startedAt: string;
  pid: number;
  restartPolicy: string;
} {
  const [info] = JSON.parse(mustPodman(['inspect', container])) as any[];
  return {
    status: info.State.Status,
    restartCount: info.RestartCount,
    startedAt: info.State.StartedAt,
    pid: info.State.Pid,
    restartPolicy: info.HostConfig.RestartPolicy?.Name ?? '',
  };
}
