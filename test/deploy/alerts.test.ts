/**
 * The chart's alerts and dashboard (observability.alerts, observability.dashboard): rendered only
 * when asked for, valid against the Prometheus Operator's schema, and every alert expression
 * evaluated on recorded series (alerts/knowledge-service.rules.test.yaml, promtool's format) by
 * test/deploy/promql.ts, since no promtool can be installed here. The evaluator is first held to
 * values worked out by hand from Prometheus' own definitions.
 */
import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import { parse as parseYaml, parseAllDocuments } from 'yaml';
import { ensureHelm, toolOutput } from '@kb/deploy';
import {
  expandValues,
  firingAlerts,
  instantQuery,
  parse,
  parseSeriesName,
  type AlertingRule,
  type Labels,
  type Series,
} from './promql';

const root = path.resolve(__dirname, '../..');
const chart = path.join(root, 'charts/knowledge-service');
const REQUIRED = [
  '--set',
  'tenant.id=acme',
  '--set',
  'tenant.host=kb.acme.example',
  '--set',
  'mongodb.existingSecret=acme-mongodb',
  '--set',
  'elasticsearch.existingSecret=acme-elasticsearch',
];
const SELECTOR = 'namespace="tenants",job=~"acme-(gateway|knowledge|catalog|similarity)"';
const MINUTE = 60_000;

interface K8sObject {
  apiVersion: string;
  kind: string;
  metadata: { name: string; labels?: Record<string, string> };
  spec?: any;
  data?: Record<string, string>;
}
interface RuleTest {
  name: string;
  interval: string;
  input_series: { series: string; values: string }[];
  alert_rule_test: { eval_time: string; alertname: string; exp_alerts: { exp_labels: Labels }[] }[];
}

const objectsOf = (text: string) =>
  parseAllDocuments(text)
    .map((d) => d.toJS() as K8sObject | null)
    .filter((o): o is K8sObject => Boolean(o?.kind));
const minutes = (d: string) => {
  const m = /^(\d+)m$/.exec(d);
  if (!m) throw new Error(`this runner reads whole minutes only: ${d}`);
  return Number(m[1]) * MINUTE;
};
const seriesOf = (test: Pick<RuleTest, 'input_series' | 'interval'>): Series[] =>
  test.input_series.map((s) => ({
    labels: parseSeriesName(s.series),
    samples: expandValues(s.values, minutes(test.interval)),
  }));
const sortLabels = (sets: Labels[]) =>
  sets
    .map((l) => Object.fromEntries(Object.entries(l).sort(([a], [b]) => a.localeCompare(b))))
    .sort((a, b) => JSON.stringify(a).localeCompare(JSON.stringify(b)));

let defaults: K8sObject[] = [];
let enabled: K8sObject[] = [];
let rules: AlertingRule[] = [];
const ruleTests = parseYaml(readFileSync(path.join(__dirname, 'alerts/knowledge-service.rules.test.yaml'), 'utf8')) as {
  evaluation_interval: string;
  tests: RuleTest[];
};

beforeAll(async () => {
  const { helm } = await ensureHelm();
  const template = async (args: string[]) =>
    objectsOf(
      await toolOutput(helm, [
        'template',
        'acme',
        chart,
        '--namespace',
        'tenants',
        '--api-versions',
        'monitoring.coreos.com/v1',
        ...REQUIRED,
        ...args,
      ]),
    );
  [defaults, enabled] = await Promise.all([
    template([]),
    template([
      '--set',
      'observability.alerts.enabled=true',
      '--set',
      'observability.alerts.labels.release=prometheus',
      '--set',
      'observability.dashboard.enabled=true',
    ]),
  ]);
  const rule = enabled.find((o) => o.kind === 'PrometheusRule');
  rules = (rule?.spec.groups ?? []).flatMap((g: { rules: AlertingRule[] }) => g.rules);
}, 120_000);

describe('the PromQL evaluator the alert tests rely on', () => {
  const counter = (values: string, labels: Labels = {}): Series => ({
    labels: { __name__: 'c', ...labels },
    samples: expandValues(values, MINUTE),
  });

  test('when a counter grows 60 a minute, then rate over 5m is 1 per second and increase 300', () => {
    const s = [counter('0+60x20')];
    expect(instantQuery('rate(c[5m])', s, 10 * MINUTE)[0]?.value).toBeCloseTo(1, 10);
    expect(instantQuery('increase(c[5m])', s, 10 * MINUTE)[0]?.value).toBeCloseTo(300, 10);
  });

  test('when a counter resets, then rate counts across the reset as Prometheus does', () => {
    // At 6m the window holds 120 180 | 0 60 120: 60 + 120 counted across the reset = 180 over the
    // 4 sampled minutes, extrapolated to the 5 of the range (the first sample is within 1.1 steps
    // of its start, and a counter is not extrapolated below zero): 225.
    const s = [counter('0+60x3 0+60x5')];
    expect(instantQuery('increase(c[5m])', s, 6 * MINUTE)[0]?.value).toBeCloseTo(225, 10);
  });

  test('when buckets are given, then histogram_quantile interpolates inside the bucket the rank falls in', () => {
    const b = (le: string, values: string) => counter(values, { __name__: 'h_bucket', le });
    const s = [b('1', '0+50x10'), b('2', '0+90x10'), b('+Inf', '0+100x10')];
    // rank 0.5*100 in the first bucket: 0 + 1 * 50/50; rank 0.9*100 = 90 at the top of the second: 2;
    // rank 99 in +Inf: the upper bound of the last finite bucket.
    const q = (x: number) => instantQuery(`histogram_quantile(${x}, sum by (le) (rate(h_bucket[5m])))`, s, 8 * MINUTE);
    expect(q(0.5)[0]?.value).toBeCloseTo(1, 10);
    expect(q(0.9)[0]?.value).toBeCloseTo(2, 10);
    expect(q(0.99)[0]?.value).toBe(2);
  });

  test('when selecting with !="" and =~, then an absent label counts as empty and regexes are anchored', () => {
    const s = [
      counter('1x5', { error_type: 'INTERNAL', job: 'acme-gateway' }),
      counter('1x5', { job: 'acme-gateway-x' }),
    ];
    expect(instantQuery('c{error_type!=""}', s, 2 * MINUTE)).toHaveLength(1);
    expect(instantQuery('c{job=~"acme-(gateway|catalog)"}', s, 2 * MINUTE)).toHaveLength(1);
    expect(instantQuery('sum by (job) (c)', s, 2 * MINUTE)).toHaveLength(2);
  });

  test('when the last sample is older than 5 minutes, then an instant selector no longer sees the series', () => {
    const s = [counter('1x2')];
    // The last sample is at 2m; the look-back is left-open, (t - 5m, t].
    expect(instantQuery('c', s, 6 * MINUTE)).toHaveLength(1);
    expect(instantQuery('c', s, 7 * MINUTE)).toHaveLength(0);
  });

  test('when an expression uses a form the evaluator does not implement, then it refuses rather than guess', () => {
    expect(() => parse('a or b')).toThrow(/not supported/);
    expect(() => parse('a > bool 1')).toThrow(/not supported/);
    expect(() => parse('absent(a)')).toThrow(/not supported/);
    expect(() => parse('a{b="c"')).toThrow();
  });
});

describe('the alerts (PrometheusRule)', () => {
  test('when only the required values are rendered, then there is no PrometheusRule and no dashboard', () => {
    expect(defaults.filter((o) => o.kind === 'PrometheusRule')).toEqual([]);
    expect(defaults.filter((o) => o.kind === 'ConfigMap' && o.metadata.name === 'acme-dashboard')).toEqual([]);
  });

  test('when enabled, then the PrometheusRule is valid against the Prometheus Operator schema and carries the given labels', async () => {
    const rule = enabled.filter((o) => o.kind === 'PrometheusRule');
    expect(rule).toHaveLength(1);
    expect(rule[0]?.metadata.labels).toMatchObject({ release: 'prometheus', 'app.kubernetes.io/instance': 'acme' });
    const stdout = await toolOutput(process.execPath, [path.join(__dirname, 'k8s-validate.mjs')], {
      cwd: root,
      input: JSON.stringify(rule),
    });
    expect(JSON.parse(stdout)).toEqual([{ object: 'monitoring.coreos.com/v1/PrometheusRule acme-alerts' }]);
    expect(rules.map((r) => r.alert).sort()).toEqual([
      'KnowledgeServiceBackendErrorRate',
      'KnowledgeServiceDependencyDown',
      'KnowledgeServiceErrorRate',
      'KnowledgeServiceIndexBacklogGrowing',
      'KnowledgeServiceIndexBacklogStale',
      'KnowledgeServiceIndexErrors',
      'KnowledgeServiceMetricsDown',
      'KnowledgeServiceRateLimitStorm',
      'KnowledgeServiceSlowRequests',
    ]);
  });

  test("when rendered, then every alert expression parses and reads only this install's series", () => {
    for (const r of rules) {
      expect(() => parse(r.expr)).not.toThrow();
      const selectors = r.expr.match(/\{[^}]*\}/g) ?? [];
      expect({ alert: r.alert, selectors: selectors.length > 0 }).toEqual({ alert: r.alert, selectors: true });
      for (const s of selectors)
        expect({ alert: r.alert, selector: s.startsWith(`{${SELECTOR}`) }).toEqual({ alert: r.alert, selector: true });
    }
  });

  test('when every alert is checked against the recorded series, then each has a case where it fires and one where it stays quiet', () => {
    const covered = new Map<string, { fires: boolean; quiet: boolean }>();
    for (const t of ruleTests.tests)
      for (const c of t.alert_rule_test) {
        const entry = covered.get(c.alertname) ?? { fires: false, quiet: false };
        if (c.exp_alerts.length) entry.fires = true;
        else entry.quiet = true;
        covered.set(c.alertname, entry);
      }
    for (const r of rules)
      expect({ alert: r.alert, ...covered.get(r.alert) }).toEqual({ alert: r.alert, fires: true, quiet: true });
  });

  describe.each(ruleTests.tests.map((t) => [t.name, t] as const))('%s', (_name, t) => {
    test.each(t.alert_rule_test.map((c) => [c.alertname, c.eval_time, c] as const))(
      'when %s is evaluated at %s, then exactly the expected alerts fire',
      (alertname, evalTime, c) => {
        const rule = rules.find((r) => r.alert === alertname);
        if (!rule) throw new Error(`no alert ${alertname} in the rendered PrometheusRule`);
        const firing = firingAlerts(rule, seriesOf(t), minutes(evalTime), minutes(ruleTests.evaluation_interval));
        expect(sortLabels(firing)).toEqual(sortLabels(c.exp_alerts.map((a) => a.exp_labels)));
      },
    );
  });
});

describe('the Grafana dashboard', () => {
  const dashboard = () => {
    const config = enabled.find((o) => o.kind === 'ConfigMap' && o.metadata.name === 'acme-dashboard');
    if (!config?.data) throw new Error('no ConfigMap acme-dashboard');
    expect(config.metadata.labels).toMatchObject({ grafana_dashboard: '1' });
    return JSON.parse(config.data['knowledge-service-acme.json'] as string);
  };

  test('when enabled, then it is one dashboard for this release: RED panels for the gateway and the services, and the indexer', () => {
    const d = dashboard();
    expect({ title: d.title, uid: d.uid }).toEqual({ title: 'Knowledge service: acme', uid: 'kb-acme' });
    const titles = d.panels
      .filter((p: { type: string }) => p.type === 'timeseries')
      .map((p: { title: string }) => p.title);
    expect(titles).toEqual(
      expect.arrayContaining([
        'Requests per second, by route',
        'Share of requests answered 5xx',
        'Duration p50 and p99, by route',
        'Calls per second, by method',
        'Server faults per second, by method and code',
        'Duration p99, by method',
        'Documents waiting for the search index',
        'Oldest write still waiting',
        'Documents the index refused (index errors)',
      ]),
    );
  });

  test('when each panel query runs on the recorded series, then it parses, reads only this install and returns data', () => {
    // Every series of the alert cases (the first of each label set), and the embedder's counter.
    const all = new Map<string, Series>();
    for (const t of ruleTests.tests)
      for (const s of seriesOf(t)) if (!all.has(JSON.stringify(s.labels))) all.set(JSON.stringify(s.labels), s);
    const embedded: Series = {
      labels: {
        __name__: 'kb_embedding_texts_total',
        namespace: 'tenants',
        job: 'acme-similarity',
        gen_ai_request_model: 'all-MiniLM-L6-v2-q',
      },
      samples: expandValues('0+300x30', MINUTE),
    };
    const series = [...all.values(), embedded];
    const targets = dashboard()
      .panels.flatMap((p: { targets?: { expr: string }[] }) => p.targets ?? [])
      .map((t: { expr: string }) => t.expr);
    expect(targets.length).toBeGreaterThanOrEqual(12);
    for (const expr of targets) {
      expect({ expr, scoped: expr.includes(`{${SELECTOR}`) }).toEqual({ expr, scoped: true });
      expect({ expr, results: instantQuery(expr, series, 12 * MINUTE).length > 0 }).toEqual({ expr, results: true });
    }
  });
});
