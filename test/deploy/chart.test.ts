/**
 * Static checks of the Helm chart (charts/knowledge-service) and of the k8s/ tree rendered from
 * it; no cluster needed. Helm and kubectl are the project's pinned ones (ensureHelm). Every
 * render happens once, in parallel, in beforeAll: the tests then only read the results.
 */
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { parseAllDocuments, stringify } from 'yaml';
import { ensureHelm, generatedFilesOnDisk, renderK8sFiles, runTool, toolOutput, type ToolRun } from '@kb/deploy';
import { loadGatewayConfig } from '@kb/gateway';
import { loadKnowledgeConfig } from '@kb/knowledge';
import { loadCatalogConfig } from '@kb/catalog';
import { loadSimilarityConfig } from '@kb/similarity';
import { policyProblems, policyViolations, type Workload } from './policy';

const root = path.resolve(__dirname, '../..');
const chart = path.join(root, 'charts/knowledge-service');
const examples = {
  acme: path.join(chart, 'examples/tenant-acme.yaml'),
  globex: path.join(chart, 'examples/tenant-globex.yaml'),
};
const API_VERSIONS = ['--api-versions', 'gateway.networking.k8s.io/v1', '--api-versions', 'monitoring.coreos.com/v1'];
const COMPONENTS = ['gateway', 'knowledge', 'catalog', 'similarity'] as const;

interface K8sObject extends Workload {
  apiVersion: string;
  metadata: { name: string; labels?: Record<string, string>; annotations?: Record<string, string> };
  data?: Record<string, string>;
}
function objectsOf(yamlText: string): K8sObject[] {
  return parseAllDocuments(yamlText)
    .map((d) => d.toJS() as K8sObject | null)
    .filter((o): o is K8sObject => Boolean(o?.kind));
}

/** kubernetes-models is ESM only: validation runs in a node child process (k8s-validate.mjs). */
async function schemaErrors(objects: K8sObject[]): Promise<string[]> {
  const stdout = await toolOutput(process.execPath, [path.join(__dirname, 'k8s-validate.mjs')], {
    cwd: root,
    input: JSON.stringify(objects),
  });
  return (JSON.parse(stdout) as { object: string; error?: string }[])
    .filter((r) => r.error)
    .map((r) => `${r.object}: ${r.error}`);
}

const byKind = (objects: K8sObject[], kind: string) => objects.filter((o) => o.kind === kind);
const find = (objects: K8sObject[], kind: string, name: string) => {
  const found = objects.find((o) => o.kind === kind && o.metadata.name === name);
  if (!found)
    throw new Error(`no ${kind}/${name} among ${objects.map((o) => `${o.kind}/${o.metadata.name}`).join(', ')}`);
  return found;
};

/** Does a label selector ({matchLabels, matchExpressions} or a bare map) pick these labels? */
function selects(selector: any, labels: Record<string, string> = {}): boolean {
  const matchLabels: Record<string, string> =
    selector?.matchLabels ?? (selector?.matchExpressions ? {} : (selector ?? {}));
  if (!Object.entries(matchLabels).every(([k, v]) => labels[k] === v)) return false;
  return (selector?.matchExpressions ?? []).every((e: { key: string; operator: string; values?: string[] }) =>
    e.operator === 'In'
      ? (e.values ?? []).includes(labels[e.key] as string)
      : e.operator === 'NotIn'
        ? !(e.values ?? []).includes(labels[e.key] as string)
        : e.operator === 'Exists'
          ? e.key in labels
          : !(e.key in labels),
  );
}

function selectorsOf(objects: K8sObject[]): { owner: string; selector: any }[] {
  return objects.flatMap((o) => {
    const owner = `${o.kind}/${o.metadata.name}`;
    const s = o.spec ?? {};
    if (o.kind === 'Service') return [{ owner, selector: s.selector }];
    if (o.kind === 'NetworkPolicy') return [{ owner, selector: s.podSelector }];
    if (['Deployment', 'PodDisruptionBudget', 'ServiceMonitor'].includes(o.kind))
      return [{ owner, selector: s.selector }];
    return [];
  });
}

const podLabelsOf = (objects: K8sObject[]) =>
  objects
    .filter((o) => o.kind === 'Deployment' || o.kind === 'Job')
    .map((o) => ({ owner: `${o.kind}/${o.metadata.name}`, labels: o.spec.template.metadata.labels }));

/** What a container's environment is at run time: the envFrom ConfigMap, then env (Secrets as stand-ins). */
function environmentOf(objects: K8sObject[], deployment: K8sObject): Record<string, string> {
  const container = deployment.spec.template.spec.containers[0];
  const env: Record<string, string> = {};
  for (const from of container.envFrom ?? [])
    Object.assign(env, find(objects, 'ConfigMap', from.configMapRef.name).data);
  const secretStandIns: Record<string, string> = {
    MONGODB_URI: 'mongodb://db:27017/kb',
    ELASTICSEARCH_URL: 'http://es:9200',
    EMBEDDING_API_KEY: 'key',
    SERVICE_AUTH_SECRET: 'a stand-in service secret, 32+ bytes',
    SERVICE_SYSTEM_SECRET: 'a stand-in system secret, 32+ bytes',
    SERVICE_AUTH_SECRET_ACCEPTED: 'a stand-in previous secret, 32+ bytes',
  };
  for (const e of container.env ?? [])
    env[e.name] = e.valueFrom?.secretKeyRef ? (secretStandIns[e.name] ?? 'secret') : e.value;
  return env;
}

/** The objects `helm template` renders for release initech with valuesFile(name, patch). */
async function renderedWith(name: string, patch: Record<string, unknown>): Promise<K8sObject[]> {
  return objectsOf(await toolOutput(helm, ['template', 'initech', chart, '-f', valuesFile(name, patch)]));
}

let helm = '';
let kubectl = '';
const rendered = {} as Record<
  'acme' | 'globex' | 'acmeAll' | 'globexAll' | 'hostNetwork' | 'required' | 'acmeRotating',
  K8sObject[]
>;
const kustomized = {} as Record<'base' | 'otel-collector' | 'example', K8sObject[]>;
let lint: ToolRun[] = [];
let acmeInstall: ToolRun;
let k8sFiles: Map<string, string>;
let tmp = '';

/** A valid values file with `patch` merged in (deeply), written to the temp folder. */
function valuesFile(
  name: string,
  patch: Record<string, unknown>,
  base: Record<string, unknown> = validValues(),
): string {
  const merge = (a: any, b: any): any => {
    if (!a || typeof a !== 'object' || Array.isArray(a) || !b || typeof b !== 'object' || Array.isArray(b)) return b;
    const out = { ...a };
    for (const [k, v] of Object.entries(b)) out[k] = v === undefined ? undefined : merge(a[k], v);
    for (const k of Object.keys(out)) if (out[k] === undefined) delete out[k];
    return out;
  };
  const file = path.join(tmp, `${name}.yaml`);
  writeFileSync(file, stringify(merge(base, patch)));
  return file;
}
const validValues = () => ({
  tenant: { id: 'initech', host: 'kb.initech.example' },
  mongodb: { existingSecret: 'initech-mongodb' },
  elasticsearch: { existingSecret: 'initech-elasticsearch' },
});

beforeAll(async () => {
  ({ helm, kubectl } = await ensureHelm());
  tmp = mkdtempSync(path.join(tmpdir(), 'kb-chart-'));
  const template = async (release: string, args: string[]) =>
    objectsOf(await toolOutput(helm, ['template', release, chart, '--namespace', 'tenants', ...args]));
  const kustomize = async (dir: string) =>
    objectsOf(await toolOutput(kubectl, ['kustomize', path.join(root, 'k8s', dir)]));
  const everything = [
    '--set',
    'ingress.exposeProbes=true',
    '--set',
    'observability.metrics.serviceMonitor.enabled=true',
    '--set',
    'reindexJob.enabled=true',
  ];
  [
    rendered.acme,
    rendered.globex,
    rendered.acmeAll,
    rendered.globexAll,
    rendered.hostNetwork,
    rendered.required,
    rendered.acmeRotating,
    kustomized.base,
    kustomized['otel-collector'],
    kustomized.example,
    lint,
    acmeInstall,
    k8sFiles,
  ] = await Promise.all([
    template('acme', ['-f', examples.acme]),
    template('globex', ['-f', examples.globex, ...API_VERSIONS]),
    template('acme', ['-f', examples.acme, ...API_VERSIONS, ...everything]),
    template('globex', [
      '-f',
      examples.globex,
      ...API_VERSIONS,
      '--set',
      'networkPolicy.enabled=true',
      '--set',
      'httpRoute.exposeProbes=true',
      '--set',
      'reindexJob.enabled=true',
    ]),
    template('acme', ['-f', examples.acme, '--set', 'hostNetwork=true', '--set', 'listenAddress=127.0.0.1']),
    template('initech', [
      '--set',
      'tenant.id=initech',
      '--set',
      'tenant.host=kb.initech.example',
      '--set',
      'mongodb.existingSecret=initech-mongodb',
      '--set',
      'elasticsearch.existingSecret=initech-elasticsearch',
    ]),
    // The settings of many replicas: a secret rotation under way, a bounded connection age, an
    // ingress-level request limit.
    template('acme', [
      '-f',
      examples.acme,
      '--set',
      'serviceAuth.acceptedServiceKey=accepted-service-secret',
      '--set',
      'default.grpcMaxConnectionAgeMs=300000',
      '--set',
      'components.similarity.grpcMaxConnectionAgeMs=600000',
      '--set',
      'ingress.rateLimit.perMinute=1200',
      '--set',
      'ingress.rateLimit.burstMultiplier=3',
    ]),
    kustomize('base'),
    kustomize('components/otel-collector'),
    kustomize('overlays/example'),
    Promise.all(
      [examples.acme, examples.globex, path.join(chart, 'examples/podman-local.yaml')].map((f) =>
        runTool(helm, ['lint', '--strict', chart, '-f', f]),
      ),
    ),
    runTool(helm, ['install', 'acme', chart, '--dry-run=client', '--namespace', 'tenants', '-f', examples.acme]),
    renderK8sFiles(root),
  ]);
}, 120_000);

describe('the Helm chart', () => {
  test('when linted strictly with each example values file (two tenants, one machine under podman), then Helm reports no problem', () => {
    for (const r of lint)
      expect({ code: r.code, out: r.stdout + r.stderr }).toEqual({
        code: 0,
        out: expect.stringContaining('0 chart(s) failed'),
      });
    expect(lint).toHaveLength(3);
  });

  test(
    'when both tenants are rendered with every optional piece on, ' +
      'then every object is valid against the Kubernetes schemas',
    async () => {
      const all = Object.values(rendered).flat();
      const kinds = new Set(all.map((o) => `${o.apiVersion} ${o.kind}`));
      // Every optional piece really was rendered.
      for (const kind of [
        'networking.k8s.io/v1 Ingress',
        'gateway.networking.k8s.io/v1 HTTPRoute',
        'monitoring.coreos.com/v1 ServiceMonitor',
        'networking.k8s.io/v1 NetworkPolicy',
        'autoscaling/v2 HorizontalPodAutoscaler',
        'batch/v1 Job',
        'policy/v1 PodDisruptionBudget',
      ]) {
        expect(kinds).toContain(kind);
      }
      expect(await schemaErrors(all)).toEqual([]);
    },
  );

  test('when an object of an unknown kind or with a wrong type is validated, then the schema check fails it', async () => {
    const errors = await schemaErrors([
      { apiVersion: 'example.com/v1', kind: 'Widget', metadata: { name: 'w' } },
      {
        apiVersion: 'apps/v1',
        kind: 'Deployment',
        metadata: { name: 'd' },
        spec: { selector: {}, template: { spec: { containers: [{ name: 'c', ports: [{ containerPort: 'http' }] }] } } },
      },
    ]);
    expect(errors).toEqual([
      expect.stringContaining('unknown kind'),
      expect.stringContaining('containerPort must be integer'),
    ]);
  });

  test('when rendered (both tenants, host networking, every option), then every workload passes the hardening policy', () => {
    const all = Object.values(rendered).flat();
    expect(byKind(all, 'Deployment').length).toBeGreaterThanOrEqual(20);
    expect(policyViolations(all)).toEqual([]);
  });

  test('when a Deployment lacks probes, limits or the hardened security context, then the policy names every problem', () => {
    const bad: Workload = {
      kind: 'Deployment',
      metadata: { name: 'bad' },
      spec: {
        template: {
          spec: {
            securityContext: { runAsUser: 0 },
            containers: [
              {
                name: 'app',
                readinessProbe: {},
                resources: { requests: { cpu: '1', memory: '1Gi' } },
                securityContext: { capabilities: { add: ['NET_ADMIN'] } },
              },
            ],
          },
        },
      },
    };
    expect(policyProblems(bad)).toEqual([
      'Deployment/bad: automountServiceAccountToken is not false',
      'Deployment/bad container app: no livenessProbe',
      'Deployment/bad container app: no startupProbe',
      'Deployment/bad container app: no resources.limits.cpu',
      'Deployment/bad container app: no resources.limits.memory',
      'Deployment/bad container app: runAsNonRoot is not true',
      'Deployment/bad container app: runs as uid 0',
      'Deployment/bad container app: readOnlyRootFilesystem is not true',
      'Deployment/bad container app: allowPrivilegeEscalation is not false',
      'Deployment/bad container app: capabilities.drop does not include ALL',
      'Deployment/bad container app: adds capabilities NET_ADMIN',
      'Deployment/bad container app: seccompProfile is not RuntimeDefault',
    ]);
    // One rendered Deployment with a single setting removed is refused too.
    const gateway = structuredClone(find(rendered.acme, 'Deployment', 'acme-gateway'));
    delete gateway.spec.template.spec.containers[0].startupProbe;
    expect(policyProblems(gateway)).toEqual(['Deployment/acme-gateway container gateway: no startupProbe']);
    // A back service whose liveness follows its databases (health name "") is refused.
    const catalog = structuredClone(find(rendered.acme, 'Deployment', 'acme-catalog'));
    delete catalog.spec.template.spec.containers[0].livenessProbe.grpc.service;
    expect(policyProblems(catalog)).toEqual([
      'Deployment/acme-catalog container catalog: livenessProbe asks gRPC health "", not "liveness"',
    ]);
  });

  test(
    'when two tenants are rendered side by side in one namespace, then ' +
      'names, hosts, index prefixes, Secrets and selectors do not collide',
    () => {
      const [a, b] = [rendered.acmeAll, rendered.globexAll];
      const names = (objects: K8sObject[]) => new Set(objects.map((o) => `${o.kind}/${o.metadata.name}`));
      expect([...names(a)].filter((n) => names(b).has(n))).toEqual([]);

      const hosts = (objects: K8sObject[]) => [
        ...byKind(objects, 'Ingress').flatMap((i) => i.spec.rules.map((r: { host: string }) => r.host)),
        ...byKind(objects, 'HTTPRoute').flatMap((r) => r.spec.hostnames as string[]),
      ];
      expect(hosts(a)).toEqual(['kb.acme.example', 'help.acme.example']);
      expect(hosts(b)).toEqual(['kb.globex.example']);

      const prefix = (objects: K8sObject[]) => byKind(objects, 'ConfigMap')[0]?.data?.ELASTICSEARCH_INDEX_PREFIX;
      expect([prefix(a), prefix(b)]).toEqual(['kb-acme', 'globex-kb']);

      const secrets = (objects: K8sObject[]) =>
        new Set(
          JSON.stringify(objects)
            .match(/"secretKeyRef":\{"name":"[^"]+"/g)
            ?.map((s) => s.split('"').at(-2)) ?? [],
        );
      expect([...secrets(a)].filter((s) => secrets(b).has(s))).toEqual([]);

      // No selector of one tenant picks a pod of the other, and each picks pods of its own.
      for (const [mine, theirs] of [
        [a, b],
        [b, a],
      ] as const) {
        for (const { owner, selector } of selectorsOf(mine)) {
          expect({
            owner,
            picksOther: podLabelsOf(theirs)
              .filter((p) => selects(selector, p.labels))
              .map((p) => p.owner),
          }).toEqual({ owner, picksOther: [] });
          expect({ owner, picksOwn: podLabelsOf(mine).some((p) => selects(selector, p.labels)) }).toEqual({
            owner,
            picksOwn: true,
          });
        }
      }
    },
  );

  test(
    'when rendered for a tenant, then every object is <release>-<component> ' +
      'with the tenant label, and the images are <registry>/kb-<component>:<tag>',
    () => {
      for (const o of rendered.acmeAll) {
        expect(o.metadata.name).toMatch(/^acme-[a-z-]+$/);
        expect(o.metadata.labels).toMatchObject({
          'app.kubernetes.io/name': 'knowledge-service',
          'app.kubernetes.io/instance': 'acme',
          'app.kubernetes.io/part-of': 'knowledge-service',
          'app.kubernetes.io/version': '0.1.0',
          'app.kubernetes.io/managed-by': 'Helm',
          'kb.tenant/id': 'acme',
        });
      }
      for (const c of COMPONENTS) {
        const d = find(rendered.acme, 'Deployment', `acme-${c}`);
        expect(d.metadata.labels?.['app.kubernetes.io/component']).toBe(c);
        expect(d.spec.template.spec.containers[0].image).toBe(`localhost/kb-${c}:0.1.0`);
      }
    },
  );

  test(
    'when rendered, then the gateway has HTTP probes, the back services ' +
      'native gRPC probes, and similarity the longest start-up allowance',
    () => {
      const probes = (c: string) => {
        const container = find(rendered.acme, 'Deployment', `acme-${c}`).spec.template.spec.containers[0];
        return {
          startup: container.startupProbe,
          readiness: container.readinessProbe,
          liveness: container.livenessProbe,
        };
      };
      expect(probes('gateway')).toMatchObject({
        startup: { httpGet: { path: '/healthz', port: 8080 } },
        readiness: { httpGet: { path: '/readyz', port: 8080 } },
        liveness: { httpGet: { path: '/healthz', port: 8080 } },
      });
      for (const [c, port] of [
        ['knowledge', 50051],
        ['catalog', 50052],
        ['similarity', 50053],
      ] as const) {
        expect(probes(c)).toMatchObject({
          startup: { grpc: { port } },
          readiness: { grpc: { port } },
          liveness: { grpc: { port } },
        });
        expect(probes(c).readiness.grpc.service ?? '').toBe('');
      }
      const allowance = (c: string) => probes(c).startup.periodSeconds * probes(c).startup.failureThreshold;
      expect(allowance('similarity')).toBe(180);
      expect(Math.max(...['gateway', 'knowledge', 'catalog'].map(allowance))).toBeLessThan(180);
      for (const d of byKind(rendered.acme, 'Deployment')) {
        expect(d.spec.template.spec).toMatchObject({
          terminationGracePeriodSeconds: 20,
          containers: [{ lifecycle: { preStop: { sleep: { seconds: 5 } } } }],
        });
      }
    },
  );

  test("when rendered, then each service's own configuration loader accepts the environment the chart gives it", () => {
    const loaders = {
      gateway: loadGatewayConfig,
      knowledge: loadKnowledgeConfig,
      catalog: loadCatalogConfig,
      similarity: loadSimilarityConfig,
    };
    for (const tenant of ['acme', 'globex', 'acmeRotating'] as const) {
      for (const c of COMPONENTS) {
        const release = tenant === 'acmeRotating' ? 'acme' : tenant;
        const env = environmentOf(rendered[tenant], find(rendered[tenant], 'Deployment', `${release}-${c}`));
        // The image sets EMBEDDING_MODEL_DIR for the baked model (docker/Dockerfile).
        expect(() => loaders[c]({ EMBEDDING_MODEL_DIR: '/app/model', ...env })).not.toThrow();
      }
    }
    const env = (t: 'acme' | 'globex', c: string) =>
      environmentOf(rendered[t], find(rendered[t], 'Deployment', `${t}-${c}`));
    expect(env('acme', 'gateway')).toMatchObject({
      PORT: '8080',
      HOST: '0.0.0.0',
      TENANT_MODE: 'single',
      TENANT_ID: 'acme',
      TRUST_PROXY: 'true',
      RATE_LIMIT_PER_MINUTE: '6000',
      KNOWLEDGE_GRPC_ADDR: 'dns:///acme-knowledge-headless.tenants.svc.cluster.local:50051',
      CATALOG_GRPC_ADDR: 'dns:///acme-catalog-headless.tenants.svc.cluster.local:50052',
      SIMILARITY_GRPC_ADDR: 'dns:///acme-similarity-headless.tenants.svc.cluster.local:50053',
      OTEL_SERVICE_NAME: 'kb-gateway',
      OTEL_EXPORTER_OTLP_ENDPOINT: 'http://otel-collector.observability:4318',
      OTEL_EXPORTER_OTLP_PROTOCOL: 'http/protobuf',
      OTEL_TRACES_SAMPLER: 'parentbased_traceidratio',
      OTEL_TRACES_SAMPLER_ARG: '0.25',
      OTEL_RESOURCE_ATTRIBUTES: 'kb.tenant=acme,service.namespace=acme,deployment.environment=production',
      OTEL_METRICS_EXPORTER: 'prometheus',
      OTEL_EXPORTER_PROMETHEUS_HOST: '0.0.0.0',
      OTEL_EXPORTER_PROMETHEUS_PORT: '9464',
      LOG_LEVEL: 'info',
    });
    expect(env('acme', 'knowledge')).toMatchObject({
      GRPC_HOST: '0.0.0.0',
      KNOWLEDGE_GRPC_PORT: '50051',
      OTEL_EXPORTER_PROMETHEUS_PORT: '9465',
    });
    expect(env('acme', 'similarity')).toMatchObject({
      EMBEDDING_PROVIDER: 'local',
      ELASTICSEARCH_INDEX_PREFIX: 'kb-acme',
      SIMILARITY_GRPC_PORT: '50053',
    });
    expect(env('globex', 'similarity')).toMatchObject({
      EMBEDDING_PROVIDER: 'openai',
      EMBEDDING_API_URL: 'https://embeddings.globex.example/v1',
      EMBEDDING_MODEL_NAME: 'text-embedding-3-small',
      EMBEDDING_DIMS: '1536',
      EMBEDDING_API_KEY: 'key',
      ELASTICSEARCH_INDEX_PREFIX: 'globex-kb',
    });
    expect(env('globex', 'gateway')).not.toHaveProperty('OTEL_EXPORTER_OTLP_ENDPOINT');
    // Connection strings only ever come from Secrets.
    const containers = byKind(rendered.globex, 'Deployment').flatMap((d) => d.spec.template.spec.containers);
    for (const e of containers.flatMap((c) => c.env))
      if (['MONGODB_URI', 'ELASTICSEARCH_URL', 'EMBEDDING_API_KEY'].includes(e.name))
        expect(e.valueFrom.secretKeyRef).toBeDefined();
  });

  test(
    'when hostNetwork is on (podman kube play), then pods use the ' +
      'host network, declare no ports and reach each other on 127.0.0.1',
    () => {
      const config = byKind(rendered.hostNetwork, 'ConfigMap')[0]?.data;
      expect(config).toMatchObject({
        KNOWLEDGE_GRPC_ADDR: '127.0.0.1:50051',
        CATALOG_GRPC_ADDR: '127.0.0.1:50052',
        SIMILARITY_GRPC_ADDR: '127.0.0.1:50053',
        HOST: '127.0.0.1',
      });
      for (const d of byKind(rendered.hostNetwork, 'Deployment')) {
        expect(d.spec.template.spec).toMatchObject({ hostNetwork: true, dnsPolicy: 'ClusterFirstWithHostNet' });
        expect(d.spec.template.spec.containers[0].ports).toBeUndefined();
        expect(d.spec.strategy.type).toBe('Recreate');
      }
    },
  );

  test(
    'when bootstrap is on, then a post-install/upgrade hook Job runs ' +
      '`node /app/admin.js tenant create <id> --if-missing` with every host',
    () => {
      const job = find(rendered.acme, 'Job', 'acme-bootstrap');
      expect(job.metadata.annotations).toMatchObject({
        'helm.sh/hook': 'post-install,post-upgrade',
        'helm.sh/hook-delete-policy': 'before-hook-creation,hook-succeeded',
      });
      expect(job.spec.backoffLimit).toBe(3);
      expect(job.spec.template.spec.containers[0]).toMatchObject({
        image: 'localhost/kb-knowledge:0.1.0',
        command: ['node', '/app/admin.js'],
        args: [
          'tenant',
          'create',
          'acme',
          '--if-missing',
          '--name',
          'ACME Corporation',
          '--host',
          'kb.acme.example',
          '--host',
          'help.acme.example',
        ],
        env: expect.arrayContaining([
          { name: 'MONGODB_URI', valueFrom: { secretKeyRef: { name: 'acme-mongodb', key: 'uri' } } },
        ]),
      });
    },
  );

  test(
    'when reindexJob is on, then a post-upgrade hook Job after the bootstrap runs ' +
      '`node /app/admin.js reindex --resume` with the system credential; off by default',
    () => {
      expect(rendered.acme.some((o) => o.kind === 'Job' && o.metadata.name === 'acme-reindex')).toBe(false);
      const job = find(rendered.acmeAll, 'Job', 'acme-reindex');
      expect(job.metadata.annotations).toMatchObject({
        'helm.sh/hook': 'post-install,post-upgrade',
        'helm.sh/hook-weight': '1',
      });
      expect(job.spec.backoffLimit).toBe(6);
      expect(job.spec.template.metadata.labels['app.kubernetes.io/component']).toBe('reindex');
      const container = job.spec.template.spec.containers[0];
      expect(container).toMatchObject({ command: ['node', '/app/admin.js'], args: ['reindex', '--resume'] });
      expect(container.env.map((e: { name: string }) => e.name)).toEqual(
        expect.arrayContaining(['MONGODB_URI', 'SIMILARITY_GRPC_ADDR', 'SERVICE_SYSTEM_SECRET']),
      );
    },
  );

  test(
    'when installed (dry run), then NOTES.txt shows a copy-pasteable ' +
      '`kubectl run` whose pod is valid, hardened and mints an Admin token',
    async () => {
      expect(acmeInstall.code).toBe(0);
      const notes = acmeInstall.stdout.slice(acmeInstall.stdout.indexOf('NOTES:'));
      expect(notes).toContain('https://kb.acme.example/api/knowledge');
      const overrides = /--overrides='([^']+)'/.exec(notes)?.[1];
      expect(overrides).toBeDefined();
      const pod = {
        ...JSON.parse(overrides as string),
        kind: 'Pod',
        metadata: { name: 'acme-admin-token' },
      } as K8sObject;
      expect(await schemaErrors([pod])).toEqual([]);
      expect(policyProblems(pod)).toEqual([]);
      expect(pod.spec.containers[0]).toMatchObject({
        command: ['node', '/app/admin.js'],
        args: ['token', 'create', '--tenant', 'acme', '--role', 'Admin', '--name', 'first admin'],
        env: expect.arrayContaining([
          { name: 'MONGODB_URI', valueFrom: { secretKeyRef: { name: 'acme-mongodb', key: 'uri' } } },
        ]),
      });
      expect(notes).toMatch(/kubectl run acme-admin-token --namespace tenants --restart=Never --rm --attach --quiet/);
      expect(notes).toContain('app.kubernetes.io/component=admin');
    },
  );
});

describe('the service-to-service secrets', () => {
  const refs = (objects: K8sObject[], kind: string, name: string) =>
    Object.fromEntries(
      (find(objects, kind, name).spec.template.spec.containers[0].env as { name: string; valueFrom?: any }[])
        .filter((e) => e.name.startsWith('SERVICE_'))
        .map((e) => [e.name, e.valueFrom?.secretKeyRef]),
    );

  test(
    'when no Secret is named, then the chart creates <release>-service-auth with two random values, every ' +
      'component reads SERVICE_AUTH_SECRET from it and only similarity and the admin pod the system secret',
    async () => {
      const secret = find(rendered.acme, 'Secret', 'acme-service-auth');
      const values = Object.values(secret.data ?? {}).map((v) => Buffer.from(v, 'base64').toString());
      expect(Object.keys(secret.data ?? {}).sort()).toEqual(['service-secret', 'system-secret']);
      expect(values.every((v) => Buffer.byteLength(v) >= 32)).toBe(true);
      expect(new Set(values).size).toBe(2);
      const service = { name: 'acme-service-auth', key: 'service-secret' };
      const system = { name: 'acme-service-auth', key: 'system-secret' };
      for (const c of ['gateway', 'knowledge', 'catalog'])
        expect(refs(rendered.acme, 'Deployment', `acme-${c}`)).toEqual({ SERVICE_AUTH_SECRET: service });
      expect(refs(rendered.acme, 'Deployment', 'acme-similarity')).toEqual({
        SERVICE_AUTH_SECRET: service,
        SERVICE_SYSTEM_SECRET: system,
      });
      const notes = acmeInstall.stdout.slice(acmeInstall.stdout.indexOf('NOTES:'));
      const admin = JSON.parse(/--overrides='([^']+)'/.exec(notes)?.[1] as string).spec.containers[0];
      expect(admin.env).toContainEqual({ name: 'SERVICE_SYSTEM_SECRET', valueFrom: { secretKeyRef: system } });
      // A second render draws new values (an install keeps the cluster's through lookup).
      const again = objectsOf(
        await toolOutput(helm, ['template', 'acme', chart, '--namespace', 'tenants', '-f', examples.acme]),
      );
      expect(find(again, 'Secret', 'acme-service-auth').data).not.toEqual(secret.data);
    },
  );

  test('when serviceAuth.existingSecret names one, then no Secret is rendered and every reference uses it', async () => {
    const objects = await renderedWith('service-auth', {
      serviceAuth: { existingSecret: 'initech-auth', systemKey: 'sys' },
    });
    expect(byKind(objects, 'Secret')).toEqual([]);
    expect(refs(objects, 'Deployment', 'initech-similarity')).toEqual({
      SERVICE_AUTH_SECRET: { name: 'initech-auth', key: 'service-secret' },
      SERVICE_SYSTEM_SECRET: { name: 'initech-auth', key: 'sys' },
    });
  });
});

describe('secure defaults: a render with only the required values', () => {
  const peersOf = (policy: K8sObject, port: number) =>
    (policy.spec.ingress ?? [])
      .filter((r: { ports: { port: number }[] }) => r.ports.some((p) => p.port === port))
      .flatMap((r: { from: unknown[] }) => r.from);
  const labelsOf = (c: string) => ({
    'app.kubernetes.io/name': 'knowledge-service',
    'app.kubernetes.io/instance': 'initech',
    'app.kubernetes.io/component': c,
  });

  test('when rendered, then NetworkPolicies deny everything but the traffic each component needs', () => {
    const objects = rendered.required;
    const policies = byKind(objects, 'NetworkPolicy');
    expect(policies.map((p) => p.metadata.name).sort()).toEqual([
      'initech-admin',
      'initech-catalog',
      'initech-default-deny',
      'initech-gateway',
      'initech-knowledge',
      'initech-similarity',
    ]);
    // The default deny picks every pod of the install, in both directions.
    const deny = find(objects, 'NetworkPolicy', 'initech-default-deny');
    expect(deny.spec).toEqual({
      podSelector: {
        matchLabels: { 'app.kubernetes.io/name': 'knowledge-service', 'app.kubernetes.io/instance': 'initech' },
      },
      policyTypes: ['Ingress', 'Egress'],
    });
    for (const p of podLabelsOf(objects))
      expect({ pod: p.owner, denied: selects(deny.spec.podSelector, p.labels) }).toEqual({
        pod: p.owner,
        denied: true,
      });

    // Only the gateway reaches the back services' gRPC ports (similarity: also knowledge, catalog, the admin CLI
    // and the reindex Job).
    for (const [c, port, callers] of [
      ['knowledge', 50051, ['gateway']],
      ['catalog', 50052, ['gateway']],
      ['similarity', 50053, ['gateway', 'knowledge', 'catalog', 'admin', 'reindex']],
    ] as const) {
      const peers = peersOf(find(objects, 'NetworkPolicy', `initech-${c}`), port);
      expect(peers).toEqual(callers.map((caller) => ({ podSelector: { matchLabels: labelsOf(caller) } })));
    }
    // The gateway: only from the ingress controller's namespace.
    expect(peersOf(find(objects, 'NetworkPolicy', 'initech-gateway'), 8080)).toEqual([
      { namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': 'ingress-nginx' } } },
    ]);
    // /metrics (its own port): only the Prometheus pods of the monitoring namespace.
    for (const [c, port] of [
      ['gateway', 9464],
      ['knowledge', 9465],
      ['catalog', 9466],
      ['similarity', 9467],
    ] as const) {
      expect(peersOf(find(objects, 'NetworkPolicy', `initech-${c}`), port)).toEqual([
        {
          namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': 'monitoring' } },
          podSelector: { matchLabels: { 'app.kubernetes.io/name': 'prometheus' } },
        },
      ]);
    }
  });

  test(
    'when rendered, then egress is DNS plus what each component needs ' +
      "(MongoDB: knowledge, catalog; Elasticsearch: similarity, and the gateway's read path)",
    () => {
      const egressPorts = (c: string) =>
        new Set(
          find(rendered.required, 'NetworkPolicy', `initech-${c}`).spec.egress.flatMap(
            (r: { ports: { port: number }[] }) => r.ports.map((p) => p.port),
          ),
        );
      const ports = Object.fromEntries(COMPONENTS.map((c) => [c, egressPorts(c)]));
      for (const c of COMPONENTS) expect([c, ports[c]?.has(53)]).toEqual([c, true]);
      expect(COMPONENTS.filter((c) => ports[c]?.has(27017))).toEqual(['knowledge', 'catalog']);
      // The gateway searches Elasticsearch itself (elasticsearch.readPath, on by default).
      expect(COMPONENTS.filter((c) => ports[c]?.has(9200)).sort()).toEqual(['gateway', 'similarity']);
      // The local embedder needs no egress; the gateway's 443 is for OAuth JWKS.
      expect(COMPONENTS.filter((c) => ports[c]?.has(443))).toEqual(['gateway']);
      expect(([...(ports.gateway ?? [])] as number[]).sort((a, b) => a - b)).toEqual([
        53, 443, 4317, 4318, 9200, 50051, 50052, 50053,
      ]);
    },
  );

  test("when rendered, then every service runs with the chart's V8 young generation, and a component's env overrides it", async () => {
    for (const c of COMPONENTS)
      expect(environmentOf(rendered.required, find(rendered.required, 'Deployment', `initech-${c}`))).toMatchObject({
        NODE_OPTIONS: '--max-semi-space-size=8',
      });
    const objects = await renderedWith('node-options', {
      components: { similarity: { env: { NODE_OPTIONS: '--max-semi-space-size=32' } } },
    });
    const env = (c: string) => environmentOf(objects, find(objects, 'Deployment', `initech-${c}`));
    expect(env('similarity')['NODE_OPTIONS']).toBe('--max-semi-space-size=32');
    expect(env('gateway')['NODE_OPTIONS']).toBe('--max-semi-space-size=8');
  });

  test(
    'when rendered, then every index has one shard and replicas auto-expanding 0-1, and both can be set ' +
      '(replicas as a count or a range)',
    async () => {
      const similarity = (objects: K8sObject[]) =>
        environmentOf(objects, find(objects, 'Deployment', 'initech-similarity'));
      expect(similarity(rendered.required)).toMatchObject({
        ELASTICSEARCH_SHARDS: '1',
        ELASTICSEARCH_REPLICAS: '0-1',
        ELASTICSEARCH_VECTOR_INDEX: 'hnsw',
      });
      const counted = await renderedWith('replica-count', { elasticsearch: { shards: 2, replicas: 2 } });
      expect(similarity(counted)).toMatchObject({ ELASTICSEARCH_SHARDS: '2', ELASTICSEARCH_REPLICAS: '2' });
      const everywhere = await renderedWith('replicas-all', { elasticsearch: { replicas: '0-all' } });
      expect(similarity(everywhere)).toMatchObject({ ELASTICSEARCH_REPLICAS: '0-all' });
    },
  );

  test('when the read path is off, then the gateway has no Elasticsearch URL and no egress to it', async () => {
    const objects = objectsOf(
      await toolOutput(helm, [
        'template',
        'initech',
        chart,
        '--namespace',
        'tenants',
        '-f',
        valuesFile('no-read-path', { elasticsearch: { readPath: { enabled: false } } }),
      ]),
    );
    const gateway = find(objects, 'Deployment', 'initech-gateway');
    const env = gateway.spec.template.spec.containers[0].env.map((e: { name: string }) => e.name);
    expect(env).not.toContain('ELASTICSEARCH_URL');
    const egress = find(objects, 'NetworkPolicy', 'initech-gateway').spec.egress.flatMap(
      (r: { ports: { port: number }[] }) => r.ports.map((p) => p.port),
    );
    expect(egress).not.toContain(9200);
    const defaults = find(rendered.required, 'Deployment', 'initech-gateway');
    expect(defaults.spec.template.spec.containers[0].env.map((e: { name: string }) => e.name)).toContain(
      'ELASTICSEARCH_URL',
    );
  });

  test('when rendered, then the Ingress has TLS for every host, the certificate in <release>-gateway-tls', () => {
    const ingress = find(rendered.required, 'Ingress', 'initech-gateway');
    expect(ingress.spec.tls).toEqual([{ hosts: ['kb.initech.example'], secretName: 'initech-gateway-tls' }]);
  });

  test('when rendered, then /metrics is a port of its own, declared on every container and Service', () => {
    for (const c of COMPONENTS) {
      const deployment = find(rendered.required, 'Deployment', `initech-${c}`);
      const ports = deployment.spec.template.spec.containers[0].ports.map(
        (p: { name: string; containerPort: number }) => [p.name, p.containerPort],
      );
      const service = find(rendered.required, 'Service', `initech-${c}`).spec.ports.map(
        (p: { name: string; port: number }) => [p.name, p.port],
      );
      expect(ports).toEqual(service);
      const metrics = ports.find(([name]: [string]) => name === 'metrics');
      const api = ports.find(([name]: [string]) => name !== 'metrics');
      expect(metrics[1]).not.toBe(api[1]);
      expect(environmentOf(rendered.required, deployment).OTEL_EXPORTER_PROMETHEUS_PORT).toBe(String(metrics[1]));
    }
  });
});

describe('plain HTTP only when asked for in writing', () => {
  const refused: { when: string; patch: Record<string, unknown>; error: RegExp }[] = [
    {
      when: 'the Ingress has TLS turned off',
      patch: { ingress: { tls: { enabled: false } } },
      error:
        /ingress\.tls\.enabled is false: the API \(bearer tokens included\) would be served over plain HTTP.*ingress\.tls\.insecureAllowHttp: true/,
    },
    {
      when: "an HTTPRoute's parentRef names no listener",
      patch: { ingress: { enabled: false }, httpRoute: { enabled: true, parentRefs: [{ name: 'shared' }] } },
      error: /httpRoute\.parentRefs\[0\] \(shared\) names no sectionName.*httpRoute\.insecureAllowHttp: true/,
    },
  ];
  test.each(refused)(
    'when $when, then the render fails saying why and how to opt out',
    async ({ when, patch, error }) => {
      const r = await runTool(helm, ['template', 'initech', chart, '-f', valuesFile(when.replace(/\W+/g, '-'), patch)]);
      expect({ code: r.code, stderr: r.stderr }).toEqual({ code: 1, stderr: expect.stringMatching(error) });
    },
  );

  test.each([
    ['ingress.tls.insecureAllowHttp', { ingress: { tls: { enabled: false, insecureAllowHttp: true } } }, 'Ingress'],
    [
      'httpRoute.insecureAllowHttp',
      {
        ingress: { enabled: false },
        httpRoute: { enabled: true, parentRefs: [{ name: 'shared' }], insecureAllowHttp: true },
      },
      'HTTPRoute',
    ],
  ] as const)('when %s is set, then the route renders without TLS', async (key, patch, kind) => {
    const objects = objectsOf(
      await toolOutput(helm, ['template', 'initech', chart, ...API_VERSIONS, '-f', valuesFile(key, patch)]),
    );
    const route = find(objects, kind, 'initech-gateway');
    expect(route.spec.tls).toBeUndefined();
  });
});

describe('values the schema refuses', () => {
  const cases: { when: string; patch: Record<string, unknown>; error: string }[] = [
    {
      when: 'a key is misspelt (tenant.hots)',
      patch: { tenant: { hots: 'kb.initech.example' } },
      error: "at '/tenant': additional properties 'hots' not allowed",
    },
    {
      when: 'a value has the wrong type (components.gateway.replicas: "two")',
      patch: { components: { gateway: { replicas: 'two' } } },
      error: "at '/components/gateway/replicas': got string, want integer",
    },
    {
      when: 'tenant.id is missing',
      patch: { tenant: { id: undefined } },
      error: "at '/tenant': missing property 'id'",
    },
    {
      when: 'a connection string is given as a value (mongodb.uri)',
      patch: { mongodb: { uri: 'mongodb://kb:secret@db:27017/kb' } },
      error: "at '/mongodb': additional properties 'uri' not allowed",
    },
    {
      when: 'a connection string is given where a Secret name goes',
      patch: { mongodb: { existingSecret: 'mongodb://kb:secret@db:27017/kb' } },
      error: "at '/mongodb/existingSecret': 'mongodb://kb:secret@db:27017/kb' does not match pattern",
    },
    {
      when: 'a secret variable is set as a plain env override',
      patch: { components: { similarity: { env: { ELASTICSEARCH_URL: 'http://es:9200' } } } },
      error: "invalid propertyName 'ELASTICSEARCH_URL'",
    },
    {
      when: 'the previous service secret is set as a plain env override',
      patch: { default: { env: { SERVICE_AUTH_SECRET_ACCEPTED: 'an old secret of at least 32 bytes' } } },
      error: "invalid propertyName 'SERVICE_AUTH_SECRET_ACCEPTED'",
    },
    {
      when: 'the gateway (no gRPC server) is given a connection age',
      patch: { components: { gateway: { grpcMaxConnectionAgeMs: 60000 } } },
      error: "at '/components/gateway': additional properties 'grpcMaxConnectionAgeMs' not allowed",
    },
    {
      when: 'the ingress request limit is negative',
      patch: { ingress: { rateLimit: { perMinute: -1 } } },
      error: "at '/ingress/rateLimit/perMinute': minimum: got -1, want 0",
    },
    {
      when: 'both an Ingress and an HTTPRoute are asked for',
      patch: { httpRoute: { enabled: true, parentRefs: [{ name: 'gw' }] } },
      error: "at '/httpRoute/enabled': value must be false",
    },
    {
      when: 'the replicas are neither a count nor a range (elasticsearch.replicas: "one")',
      patch: { elasticsearch: { replicas: 'one' } },
      error: "at '/elasticsearch/replicas'",
    },
    {
      when: 'a vector index type the service does not offer (elasticsearch.vectorIndex: bbq_hnsw)',
      patch: { elasticsearch: { vectorIndex: 'bbq_hnsw' } },
      error: "at '/elasticsearch/vectorIndex'",
    },
    {
      when: 'an index would have no shard (elasticsearch.shards: 0)',
      patch: { elasticsearch: { shards: 0 } },
      error: "at '/elasticsearch/shards': minimum: got 0, want 1",
    },
    {
      when: 'the tenant id is not a DNS label',
      patch: { tenant: { id: 'Initech_Corp' } },
      error: "at '/tenant/id': 'Initech_Corp' does not match pattern",
    },
  ];
  test.each(cases)(
    'when $when, then `helm install --dry-run=client` refuses it naming the problem',
    async ({ when, patch, error }) => {
      const file = valuesFile(when.replace(/\W+/g, '-'), patch);
      const r = await runTool(helm, ['install', 'initech', chart, '--dry-run=client', '-f', file]);
      expect({ code: r.code, stderr: r.stderr }).toEqual({
        code: 1,
        stderr: expect.stringMatching(
          new RegExp(
            `values don't meet the specifications of the schema[\\s\\S]*${error.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}`,
          ),
        ),
      });
    },
  );

  test('when the valid base of those cases is installed (dry run), then Helm accepts it', async () => {
    const r = await runTool(helm, ['install', 'initech', chart, '--dry-run=client', '-f', valuesFile('valid', {})]);
    expect({ code: r.code, stderr: r.stderr }).toEqual({ code: 0, stderr: '' });
  });

  test('when values.schema.json is walked, then every object level refuses unknown keys (maps take only typed values)', () => {
    const schema = JSON.parse(readFileSync(path.join(chart, 'values.schema.json'), 'utf8'));
    const open: string[] = [];
    let levels = 0;
    // The schemas a value is checked against (if/then/allOf only add conditions to these).
    const walk = (node: any, at: string): void => {
      if (!node || typeof node !== 'object') return;
      if (node.type === 'object' || node.properties) {
        levels++;
        const isMap = typeof node.additionalProperties === 'object' && !node.properties;
        if (node.additionalProperties !== false && !isMap) open.push(at || '/');
      }
      for (const [k, v] of Object.entries(node.properties ?? {})) walk(v, `${at}/properties/${k}`);
      for (const [k, v] of Object.entries(node.definitions ?? {})) walk(v, `${at}/definitions/${k}`);
      walk(node.items, `${at}/items`);
      walk(node.additionalProperties, `${at}/additionalProperties`);
    };
    walk(schema, '');
    expect(open).toEqual([]);
    expect(levels).toBeGreaterThan(40);
  });
});

describe('many replicas behind one address', () => {
  const BACK = ['knowledge', 'catalog', 'similarity'] as const;
  const GRPC_PORTS = { knowledge: 50051, catalog: 50052, similarity: 50053 } as const;
  const configOf = (objects: K8sObject[], release: string) =>
    find(objects, 'ConfigMap', `${release}-config`).data ?? {};
  const envOf = (objects: K8sObject[], name: string) =>
    find(objects, 'Deployment', name).spec.template.spec.containers[0].env as { name: string; value?: string }[];

  test(
    'when rendered (default values, the acme example, k8s/), then each back service has a headless Service ' +
      'over the same pods on its gRPC port only, beside its ClusterIP Service, and the gateway none',
    () => {
      for (const [objects, release] of [
        [rendered.required, 'initech'],
        [rendered.acme, 'acme'],
        [kustomized.base, 'kb'],
      ] as const) {
        for (const c of BACK) {
          const headless = find(objects, 'Service', `${release}-${c}-headless`);
          const port = GRPC_PORTS[c];
          expect(headless.spec).toMatchObject({
            clusterIP: 'None',
            publishNotReadyAddresses: false,
            ports: [{ name: 'grpc', port, targetPort: port, appProtocol: 'grpc' }],
          });
          // No metrics port: the ServiceMonitor (which selects both) scrapes each pod once, through the ClusterIP Service.
          expect(headless.spec.ports).toHaveLength(1);
          const clusterIp = find(objects, 'Service', `${release}-${c}`);
          expect(clusterIp.spec.clusterIP).toBeUndefined();
          expect(headless.spec.selector).toEqual(clusterIp.spec.selector);
          const pods = find(objects, 'Deployment', `${release}-${c}`).spec.template.metadata.labels;
          expect(selects(headless.spec.selector, pods)).toBe(true);
        }
        expect(byKind(objects, 'Service').map((s) => s.metadata.name)).not.toContain(`${release}-gateway-headless`);
      }
    },
  );

  test(
    'when rendered, then every caller of a back service is given a dns:/// target naming its headless Service: ' +
      'fully qualified in the release namespace, by short name in k8s/ (no namespace), 127.0.0.1 on the host network',
    async () => {
      const targets = (config: Record<string, string>) => [
        config.KNOWLEDGE_GRPC_ADDR,
        config.CATALOG_GRPC_ADDR,
        config.SIMILARITY_GRPC_ADDR,
      ];
      expect(targets(configOf(rendered.required, 'initech'))).toEqual([
        'dns:///initech-knowledge-headless.tenants.svc.cluster.local:50051',
        'dns:///initech-catalog-headless.tenants.svc.cluster.local:50052',
        'dns:///initech-similarity-headless.tenants.svc.cluster.local:50053',
      ]);
      expect(targets(configOf(kustomized.base, 'kb'))).toEqual([
        'dns:///kb-knowledge-headless:50051',
        'dns:///kb-catalog-headless:50052',
        'dns:///kb-similarity-headless:50053',
      ]);
      // Each target names a Service of the same render, on the port that Service serves.
      for (const [objects, release] of [
        [rendered.acme, 'acme'],
        [kustomized.base, 'kb'],
      ] as const) {
        for (const target of targets(configOf(objects, release))) {
          const [, name, port] = /^dns:\/\/\/([a-z0-9-]+)(?:\.[a-z0-9.-]+)?:(\d+)$/.exec(target ?? '') ?? [];
          expect(find(objects, 'Service', name as string).spec.ports[0].port).toBe(Number(port));
        }
      }
      expect(targets(configOf(rendered.hostNetwork, 'acme'))).toEqual([
        '127.0.0.1:50051',
        '127.0.0.1:50052',
        '127.0.0.1:50053',
      ]);
      const elsewhere = await renderedWith('cluster-domain', { clusterDomain: 'corp.internal' });
      expect(configOf(elsewhere, 'initech').SIMILARITY_GRPC_ADDR).toBe(
        'dns:///initech-similarity-headless.default.svc.corp.internal:50053',
      );
      // The admin pod of NOTES.txt calls similarity the same way.
      const notes = acmeInstall.stdout.slice(acmeInstall.stdout.indexOf('NOTES:'));
      const admin = JSON.parse(/--overrides='([^']+)'/.exec(notes)?.[1] as string).spec.containers[0];
      expect(admin.env).toContainEqual({
        name: 'SIMILARITY_GRPC_ADDR',
        value: 'dns:///acme-similarity-headless.tenants.svc.cluster.local:50053',
      });
    },
  );

  test(
    'when a caller connects to the pods behind a headless Service, then the NetworkPolicies ' +
      "(pod selectors, not Service addresses) admit it at the pod's gRPC port and let it out to there",
    () => {
      const objects = rendered.required;
      const podsOf = (c: string) => find(objects, 'Deployment', `initech-${c}`).spec.template.metadata.labels;
      for (const [c, callers] of [
        ['knowledge', ['gateway']],
        ['catalog', ['gateway']],
        ['similarity', ['gateway', 'knowledge', 'catalog']],
      ] as const) {
        const port = GRPC_PORTS[c];
        const onPort = (r: { ports?: { port: number }[] }) => (r.ports ?? []).some((p) => p.port === port);
        const policy = find(objects, 'NetworkPolicy', `initech-${c}`);
        expect(selects(policy.spec.podSelector, podsOf(c))).toBe(true);
        for (const caller of callers) {
          const admitted = (policy.spec.ingress as { ports?: { port: number }[]; from?: any[] }[]).some(
            (r) => onPort(r) && (r.from ?? []).some((f) => f.podSelector && selects(f.podSelector, podsOf(caller))),
          );
          const letOut = (
            find(objects, 'NetworkPolicy', `initech-${caller}`).spec.egress as {
              ports?: { port: number }[];
              to?: any[];
            }[]
          ).some((r) => onPort(r) && (r.to ?? []).some((t) => t.podSelector && selects(t.podSelector, podsOf(c))));
          expect({ c, caller, admitted, letOut }).toEqual({ c, caller, admitted: true, letOut: true });
        }
      }
    },
  );

  test(
    'when serviceAuth.acceptedServiceKey is set, then every component reads SERVICE_AUTH_SECRET_ACCEPTED ' +
      'from the service-auth Secret (optional, never generated) and rolls; unset, no component has it',
    async () => {
      const previous = {
        name: 'SERVICE_AUTH_SECRET_ACCEPTED',
        valueFrom: { secretKeyRef: { name: 'acme-service-auth', key: 'accepted-service-secret', optional: true } },
      };
      for (const c of COMPONENTS) {
        expect(envOf(rendered.acmeRotating, `acme-${c}`)).toContainEqual(previous);
        const names = (objects: K8sObject[], release = 'acme') => envOf(objects, `${release}-${c}`).map((e) => e.name);
        expect(names(rendered.acme)).not.toContain('SERVICE_AUTH_SECRET_ACCEPTED');
        expect(names(kustomized.base, 'kb')).not.toContain('SERVICE_AUTH_SECRET_ACCEPTED');
        const checksum = (objects: K8sObject[]) =>
          find(objects, 'Deployment', `acme-${c}`).spec.template.metadata.annotations['checksum/secret-refs'];
        expect(checksum(rendered.acmeRotating)).not.toBe(checksum(rendered.acme));
      }
      expect(JSON.stringify(find(rendered.acmeRotating, 'Job', 'acme-bootstrap'))).not.toContain('PREVIOUS');
      // Without a cluster to look in, the chart's Secret has only its two generated keys.
      expect(Object.keys(find(rendered.acmeRotating, 'Secret', 'acme-service-auth').data ?? {}).sort()).toEqual([
        'service-secret',
        'system-secret',
      ]);
      const clash = await runTool(helm, [
        'template',
        'initech',
        chart,
        '-f',
        valuesFile('accepted-is-current', { serviceAuth: { acceptedServiceKey: 'service-secret' } }),
      ]);
      expect({ code: clash.code, stderr: clash.stderr }).toEqual({
        code: 1,
        stderr: expect.stringContaining(
          'serviceAuth.acceptedServiceKey "service-secret" is also serviceKey or systemKey',
        ),
      });
    },
  );

  test(
    'when grpcMaxConnectionAgeMs is set in default or a component, then the back services get ' +
      'GRPC_MAX_CONNECTION_AGE_MS (the gateway serves no gRPC, never); unset, nobody does',
    () => {
      const age = (objects: K8sObject[], c: string) =>
        envOf(objects, `acme-${c}`).find((e) => e.name === 'GRPC_MAX_CONNECTION_AGE_MS')?.value;
      expect(COMPONENTS.map((c) => age(rendered.acmeRotating, c))).toEqual([undefined, '300000', '300000', '600000']);
      expect(COMPONENTS.map((c) => age(rendered.acme, c))).toEqual([undefined, undefined, undefined, undefined]);
    },
  );

  test(
    'when ingress.rateLimit.perMinute is set, then the Ingress carries the ingress-nginx limit annotations ' +
      'beside the others (one set in ingress.annotations wins); unset, none',
    async () => {
      const annotations = (objects: K8sObject[], release = 'acme') =>
        find(objects, 'Ingress', `${release}-gateway`).metadata.annotations;
      expect(annotations(rendered.acmeRotating)).toEqual({
        'nginx.ingress.kubernetes.io/proxy-body-size': '2m',
        'nginx.ingress.kubernetes.io/limit-rpm': '1200',
        'nginx.ingress.kubernetes.io/limit-burst-multiplier': '3',
      });
      expect(annotations(rendered.acme)).toEqual({ 'nginx.ingress.kubernetes.io/proxy-body-size': '2m' });
      expect(annotations(rendered.required, 'initech')).toBeUndefined();
      const overridden = await renderedWith('rate-limit-override', {
        ingress: { rateLimit: { perMinute: 600 }, annotations: { 'nginx.ingress.kubernetes.io/limit-rpm': '100' } },
      });
      expect(annotations(overridden, 'initech')).toEqual({ 'nginx.ingress.kubernetes.io/limit-rpm': '100' });
    },
  );
});

describe('k8s/, rendered from the chart', () => {
  test(
    'when k8s/ is rendered again from the chart and k8s/values.yaml, ' +
      'then it equals the committed files (nobody edits them by hand)',
    () => {
      const k8s = path.join(root, 'k8s');
      expect(generatedFilesOnDisk(k8s)).toEqual([...k8sFiles.keys()].sort());
      for (const [file, content] of k8sFiles) {
        expect({ file, upToDate: readFileSync(path.join(k8s, file), 'utf8') === content }).toEqual({
          file,
          upToDate: true,
        });
      }
    },
  );

  test('when kustomize builds each folder, then every object is valid, and the workloads pass the hardening policy', async () => {
    const all = Object.values(kustomized).flat();
    expect(kustomized.base.length).toBeGreaterThan(10);
    expect(await schemaErrors(all)).toEqual([]);
    expect(policyViolations(all)).toEqual([]);
    // NetworkPolicies are on by default, in the base as in the chart.
    expect(
      byKind(kustomized.base, 'NetworkPolicy')
        .map((n) => n.metadata.name)
        .sort(),
    ).toEqual(['kb-admin', 'kb-catalog', 'kb-default-deny', 'kb-gateway', 'kb-knowledge', 'kb-similarity']);
  });

  test('when the example overlay is built, then the services send OTLP to the collector, which forwards to the configured backend', () => {
    const example = kustomized.example;
    expect(byKind(example, 'NetworkPolicy')).toHaveLength(6);
    const collector = find(example, 'Deployment', 'otel-collector');
    expect(collector.spec.template.spec.containers[0].image).toMatch(
      /^otel\/opentelemetry-collector-contrib:\d+\.\d+\.\d+$/,
    );
    const backend = byKind(example, 'ConfigMap').find((c) => c.metadata.name.startsWith('otel-collector-backend'));
    expect(backend?.data?.OTLP_BACKEND_ENDPOINT).toBe('http://tempo.observability.svc:4318');
    for (const c of COMPONENTS) {
      const env = find(example, 'Deployment', `kb-${c}`).spec.template.spec.containers[0].env;
      expect(env).toContainEqual({ name: 'OTEL_EXPORTER_OTLP_ENDPOINT', value: 'http://otel-collector:4318' });
    }
    for (const o of example) expect(o.metadata).toMatchObject({ namespace: 'kb-example' });
  });
});
