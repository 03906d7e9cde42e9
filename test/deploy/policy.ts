/**
 * The deployment policy every workload we ship must meet (the Online Boutique's hardened pod):
 * probes, requests and limits, and a locked-down security context. Returns one line per
 * problem, naming the object and container, so a failing test says what to fix.
 */
export interface Workload {
  apiVersion?: string;
  kind: string;
  metadata: { name: string };
  spec?: any;
}

type Container = Record<string, any>;

/** The pod spec of a Deployment, Job or Pod (undefined for other kinds). */
function podSpecOf(object: Workload): Record<string, any> | undefined {
  if (object.kind === 'Pod') return object.spec;
  if (['Deployment', 'StatefulSet', 'DaemonSet', 'Job', 'ReplicaSet'].includes(object.kind))
    return object.spec?.template?.spec;
  if (object.kind === 'CronJob') return object.spec?.jobTemplate?.spec?.template?.spec;
  return undefined;
}

/**
 * Problems of one object. Long-running workloads (everything but Jobs and Pods) also need
 * liveness, readiness and startup probes.
 */
export function policyProblems(object: Workload): string[] {
  const pod = podSpecOf(object);
  if (!pod) return [];
  const where = `${object.kind}/${object.metadata.name}`;
  const problems: string[] = [];
  const podSecurity = pod.securityContext ?? {};
  if (pod.automountServiceAccountToken !== false) problems.push(`${where}: automountServiceAccountToken is not false`);
  if (pod.hostPID || pod.hostIPC) problems.push(`${where}: shares the host's PID or IPC namespace`);
  const needsProbes = !['Job', 'CronJob', 'Pod'].includes(object.kind);
  const containers: Container[] = [...(pod.initContainers ?? []), ...(pod.containers ?? [])];
  if (!pod.containers?.length) problems.push(`${where}: no containers`);
  for (const c of containers) {
    const at = `${where} container ${c.name}`;
    const sc = c.securityContext ?? {};
    if (needsProbes && (pod.containers ?? []).includes(c)) {
      for (const probe of ['livenessProbe', 'readinessProbe', 'startupProbe'])
        if (!c[probe]) problems.push(`${at}: no ${probe}`);
      // grpc.health.v1 "" follows the databases: a liveness probe on it restarts pods through an outage.
      for (const probe of ['livenessProbe', 'startupProbe']) {
        if (c[probe]?.grpc && c[probe].grpc.service !== 'liveness')
          problems.push(`${at}: ${probe} asks gRPC health "${c[probe].grpc.service ?? ''}", not "liveness"`);
      }
    }
    for (const kind of ['requests', 'limits']) {
      for (const resource of ['cpu', 'memory']) {
        if (c.resources?.[kind]?.[resource] === undefined) problems.push(`${at}: no resources.${kind}.${resource}`);
      }
    }
    if ((sc.runAsNonRoot ?? podSecurity.runAsNonRoot) !== true) problems.push(`${at}: runAsNonRoot is not true`);
    if ((sc.runAsUser ?? podSecurity.runAsUser) === 0) problems.push(`${at}: runs as uid 0`);
    if (sc.readOnlyRootFilesystem !== true) problems.push(`${at}: readOnlyRootFilesystem is not true`);
    if (sc.allowPrivilegeEscalation !== false) problems.push(`${at}: allowPrivilegeEscalation is not false`);
    if (sc.privileged === true) problems.push(`${at}: privileged`);
    if (!(sc.capabilities?.drop ?? []).includes('ALL')) problems.push(`${at}: capabilities.drop does not include ALL`);
    if ((sc.capabilities?.add ?? []).length)
      problems.push(`${at}: adds capabilities ${sc.capabilities.add.join(', ')}`);
    if ((sc.seccompProfile ?? podSecurity.seccompProfile)?.type !== 'RuntimeDefault')
      problems.push(`${at}: seccompProfile is not RuntimeDefault`);
  }
  return problems;
}

/** Problems of every object in a list. */
export function policyViolations(objects: Workload[]): string[] {
  return objects.flatMap(policyProblems);
}
