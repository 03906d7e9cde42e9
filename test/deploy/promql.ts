/**
 * A small PromQL evaluator for the chart's alert and dashboard expressions, and a runner for
 * promtool's rule-test files (`promtool test rules`), because neither Prometheus nor promtool
 * can be installed on the project's machines and no maintained PromQL engine is published on
 * npm. It covers only the forms the chart uses, and refuses anything else with an error:
 *
 * - selectors `name{l="v", l!="v", l=~"re", l!~"re"}`, with a range `[5m]` as a function argument;
 * - `rate`, `increase`, `delta` (Prometheus' extrapolation), `histogram_quantile`;
 * - `sum`, `max`, `min`, `avg`, `count` with `by (…)` or `without (…)`;
 * - `/ * + -` and `== != > < >= <=` between vectors (one-to-one on all labels) or with a scalar,
 *   comparisons as filters (no `bool`), and `and`;
 * - an instant selector looks back 5 minutes; a range is left-open, `(t - range, t]`.
 *
 * The semantics follow Prometheus' own engine (promql/engine.go, functions.go, quantile.go); the
 * tests in test/deploy/alerts.test.ts check them on known values before trusting an alert.
 */

export type Labels = Record<string, string>;
export interface Sample {
  t: number; // ms
  v: number;
}
export interface Series {
  labels: Labels; // __name__ included
  samples: Sample[];
}
interface VectorItem {
  labels: Labels;
  value: number;
}
type Value =
  | { kind: 'scalar'; value: number }
  | { kind: 'vector'; items: VectorItem[] }
  | { kind: 'matrix'; items: { labels: Labels; samples: Sample[] }[]; rangeMs: number }
  | { kind: 'string'; value: string };

type Matcher = { name: string; op: '=' | '!=' | '=~' | '!~'; value: string };
type Node =
  | { type: 'number'; value: number }
  | { type: 'string'; value: string }
  | { type: 'selector'; matchers: Matcher[]; rangeMs?: number }
  | { type: 'call'; fn: string; args: Node[] }
  | { type: 'aggregate'; op: string; grouping: { without: boolean; labels: string[] } | undefined; arg: Node }
  | { type: 'binary'; op: string; left: Node; right: Node };

const LOOKBACK_MS = 5 * 60_000;
const AGGREGATIONS = new Set(['sum', 'max', 'min', 'avg', 'count']);
const FUNCTIONS = new Set(['rate', 'increase', 'delta', 'histogram_quantile']);
const COMPARISONS = new Set(['==', '!=', '>', '<', '>=', '<=']);

/** `5m`, `30s`, `1h30m`, `2d` → milliseconds. */
export function parseDuration(text: string): number {
  const units: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000, w: 604_800_000 };
  let total = 0;
  let rest = text;
  while (rest) {
    const m = /^(\d+)(ms|s|m|h|d|w)/.exec(rest);
    if (!m) throw new Error(`not a duration: ${text}`);
    total += Number(m[1]) * (units[m[2] as string] as number);
    rest = rest.slice(m[0].length);
  }
  if (!text) throw new Error('empty duration');
  return total;
}

// ---- parsing -----------------------------------------------------------------------------------

type Token = { kind: 'ident' | 'number' | 'string' | 'op' | 'duration'; text: string };

function tokenize(src: string): Token[] {
  const tokens: Token[] = [];
  let i = 0;
  while (i < src.length) {
    const rest = src.slice(i);
    const space = /^\s+/.exec(rest);
    if (space) {
      i += space[0].length;
      continue;
    }
    const prev = tokens.at(-1);
    const duration = prev?.text === '[' ? /^[0-9]+[a-z0-9]*/.exec(rest) : null;
    const match =
      (duration && { kind: 'duration' as const, text: duration[0] }) ??
      ((m) => m && { kind: 'number' as const, text: m[0] })(
        /^(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?|^(Inf|NaN)\b/.exec(rest),
      ) ??
      ((m) => m && { kind: 'ident' as const, text: m[0] })(/^[a-zA-Z_:][a-zA-Z0-9_:]*/.exec(rest)) ??
      ((m) => m && { kind: 'string' as const, text: m[0] })(/^"(?:[^"\\]|\\.)*"/.exec(rest)) ??
      ((m) => m && { kind: 'op' as const, text: m[0] })(/^(==|!=|>=|<=|=~|!~|[-+*/<>=(){}[\],])/.exec(rest));
    if (!match) throw new Error(`PromQL: unexpected character at ${i}: ${rest.slice(0, 20)}`);
    tokens.push(match);
    i += match.text.length;
  }
  return tokens;
}

export function parse(src: string): Node {
  const tokens = tokenize(src);
  let pos = 0;
  const peek = () => tokens[pos];
  const next = () => {
    const t = tokens[pos++];
    if (!t) throw new Error(`PromQL: unexpected end of ${src}`);
    return t;
  };
  const expect = (text: string) => {
    const t = next();
    if (t.text !== text) throw new Error(`PromQL: expected ${text}, got ${t.text} in ${src}`);
  };
  const unquote = (s: string) => JSON.parse(s) as string;

  // Lowest to highest precedence, as Prometheus: or; and, unless; comparisons; + -; * / %.
  const levels: string[][] = [['or'], ['and', 'unless'], [...COMPARISONS], ['+', '-'], ['*', '/']];
  const binary = (level: number): Node => {
    if (level === levels.length) return unary();
    let left = binary(level + 1);
    while (peek() && (levels[level] as string[]).includes(peek()?.text as string)) {
      const op = next().text;
      if (op === 'or' || op === 'unless') throw new Error(`PromQL: ${op} is not supported here`);
      if (peek()?.text === 'bool' || peek()?.text === 'on' || peek()?.text === 'ignoring')
        throw new Error(`PromQL: ${peek()?.text} modifiers are not supported here`);
      left = { type: 'binary', op, left, right: binary(level + 1) };
    }
    return left;
  };
  const grouping = () => {
    const without = next().text === 'without';
    expect('(');
    const labels: string[] = [];
    while (peek()?.text !== ')') {
      labels.push(next().text);
      if (peek()?.text === ',') next();
    }
    expect(')');
    return { without, labels };
  };
  const unary = (): Node => {
    const t = next();
    if (t.kind === 'number') return { type: 'number', value: Number(t.text) };
    if (t.kind === 'string') return { type: 'string', value: unquote(t.text) };
    if (t.text === '(') {
      const inner = binary(0);
      expect(')');
      return inner;
    }
    if (t.text === '-') return { type: 'binary', op: '*', left: { type: 'number', value: -1 }, right: unary() };
    if (t.kind === 'ident' && AGGREGATIONS.has(t.text)) {
      let group = peek()?.text === 'by' || peek()?.text === 'without' ? grouping() : undefined;
      expect('(');
      const arg = binary(0);
      expect(')');
      if (!group && (peek()?.text === 'by' || peek()?.text === 'without')) group = grouping();
      return { type: 'aggregate', op: t.text, grouping: group, arg };
    }
    if (t.kind === 'ident' && peek()?.text === '(') {
      if (!FUNCTIONS.has(t.text)) throw new Error(`PromQL: function ${t.text} is not supported here`);
      next();
      const args: Node[] = [];
      while (peek()?.text !== ')') {
        args.push(binary(0));
        if (peek()?.text === ',') next();
      }
      expect(')');
      return { type: 'call', fn: t.text, args };
    }
    if (t.kind === 'ident' || t.text === '{') {
      const matchers: Matcher[] = t.kind === 'ident' ? [{ name: '__name__', op: '=', value: t.text }] : [];
      if (t.text === '{' || peek()?.text === '{') {
        if (t.text !== '{') next();
        while (peek()?.text !== '}') {
          const name = next().text;
          const op = next().text as Matcher['op'];
          if (!['=', '!=', '=~', '!~'].includes(op)) throw new Error(`PromQL: bad matcher operator ${op}`);
          matchers.push({ name, op, value: unquote(next().text) });
          if (peek()?.text === ',') next();
        }
        expect('}');
      }
      let rangeMs: number | undefined;
      if (peek()?.text === '[') {
        next();
        rangeMs = parseDuration(next().text);
        expect(']');
      }
      return { type: 'selector', matchers, ...(rangeMs === undefined ? {} : { rangeMs }) };
    }
    throw new Error(`PromQL: unexpected ${t.text} in ${src}`);
  };
  const tree = binary(0);
  if (pos !== tokens.length) throw new Error(`PromQL: unexpected ${tokens[pos]?.text} in ${src}`);
  return tree;
}

// ---- evaluation ----------------------------------------------------------------------------------

const withoutName = (labels: Labels): Labels => {
  const { __name__: _name, ...rest } = labels;
  return rest;
};
const signature = (labels: Labels) =>
  JSON.stringify(
    Object.entries(labels)
      .filter(([k, v]) => k !== '__name__' && v !== '')
      .sort(([a], [b]) => a.localeCompare(b)),
  );

function matches(labels: Labels, m: Matcher): boolean {
  const value = labels[m.name] ?? ''; // an absent label is the empty string, as in Prometheus
  const re = () => new RegExp(`^(?:${m.value})$`);
  switch (m.op) {
    case '=':
      return value === m.value;
    case '!=':
      return value !== m.value;
    case '=~':
      return re().test(value);
    case '!~':
      return !re().test(value);
  }
}

/** Prometheus' extrapolatedRate (functions.go): rate, increase and delta over a range ending at `t`. */
function extrapolated(samples: Sample[], t: number, rangeMs: number, isCounter: boolean, isRate: boolean) {
  if (samples.length < 2) return undefined;
  const first = samples[0] as Sample;
  const last = samples.at(-1) as Sample;
  let result = last.v - first.v;
  if (isCounter)
    for (let i = 1; i < samples.length; i++) {
      const [a, b] = [samples[i - 1] as Sample, samples[i] as Sample];
      if (b.v < a.v) result += a.v;
    }
  const rangeStart = t - rangeMs;
  let durationToStart = (first.t - rangeStart) / 1000;
  const durationToEnd = (t - last.t) / 1000;
  const sampled = (last.t - first.t) / 1000;
  const average = sampled / (samples.length - 1);
  const threshold = average * 1.1;
  let extrapolateTo = sampled;
  if (isCounter && result > 0 && first.v >= 0) {
    const toZero = sampled * (first.v / result);
    if (toZero < durationToStart) durationToStart = toZero;
  }
  extrapolateTo += durationToStart < threshold ? durationToStart : average / 2;
  extrapolateTo += durationToEnd < threshold ? durationToEnd : average / 2;
  result *= extrapolateTo / sampled;
  return isRate ? result / (rangeMs / 1000) : result;
}

/** Prometheus' bucketQuantile (quantile.go) over one series' buckets. */
function bucketQuantile(q: number, buckets: { upper: number; count: number }[]): number {
  if (q < 0) return -Infinity;
  if (q > 1) return Infinity;
  const sorted = [...buckets].sort((a, b) => a.upper - b.upper);
  if (sorted.length < 2 || (sorted.at(-1) as { upper: number }).upper !== Infinity) return NaN;
  const total = (sorted.at(-1) as { count: number }).count;
  if (total === 0) return NaN;
  const rank = q * total;
  const b = sorted.findIndex((x) => x.count >= rank);
  if (b === sorted.length - 1) return (sorted[sorted.length - 2] as { upper: number }).upper;
  if (b === 0 && (sorted[0] as { upper: number }).upper <= 0) return (sorted[0] as { upper: number }).upper;
  const bucketStart = b === 0 ? 0 : (sorted[b - 1] as { upper: number }).upper;
  const countBefore = b === 0 ? 0 : (sorted[b - 1] as { count: number }).count;
  const bucket = sorted[b] as { upper: number; count: number };
  return bucketStart + (bucket.upper - bucketStart) * ((rank - countBefore) / (bucket.count - countBefore));
}

function arithmetic(op: string, a: number, b: number): number {
  switch (op) {
    case '+':
      return a + b;
    case '-':
      return a - b;
    case '*':
      return a * b;
    case '/':
      return a / b;
  }
  throw new Error(`PromQL: operator ${op}`);
}
function compare(op: string, a: number, b: number): boolean {
  switch (op) {
    case '==':
      return a === b;
    case '!=':
      return a !== b;
    case '>':
      return a > b;
    case '<':
      return a < b;
    case '>=':
      return a >= b;
    case '<=':
      return a <= b;
  }
  throw new Error(`PromQL: operator ${op}`);
}

function evaluate(node: Node, series: Series[], t: number): Value {
  switch (node.type) {
    case 'number':
      return { kind: 'scalar', value: node.value };
    case 'string':
      return { kind: 'string', value: node.value };
    case 'selector': {
      const picked = series.filter((s) => node.matchers.every((m) => matches(s.labels, m)));
      if (node.rangeMs !== undefined) {
        const from = t - node.rangeMs;
        return {
          kind: 'matrix',
          rangeMs: node.rangeMs,
          items: picked
            .map((s) => ({ labels: s.labels, samples: s.samples.filter((p) => p.t > from && p.t <= t) }))
            .filter((s) => s.samples.length),
        };
      }
      const items: VectorItem[] = [];
      for (const s of picked) {
        const latest = s.samples.filter((p) => p.t <= t && p.t > t - LOOKBACK_MS).at(-1);
        if (latest && !Number.isNaN(latest.v)) items.push({ labels: s.labels, value: latest.v });
      }
      return { kind: 'vector', items };
    }
    case 'call': {
      if (node.fn === 'histogram_quantile') {
        const q = evaluate(node.args[0] as Node, series, t);
        const v = evaluate(node.args[1] as Node, series, t);
        if (q.kind !== 'scalar' || v.kind !== 'vector') throw new Error('histogram_quantile(scalar, vector)');
        const groups = new Map<string, { labels: Labels; buckets: { upper: number; count: number }[] }>();
        for (const item of v.items) {
          const le = item.labels.le;
          if (le === undefined) continue;
          const { le: _le, ...rest } = withoutName(item.labels);
          const key = signature(rest);
          const group = groups.get(key) ?? { labels: rest, buckets: [] };
          group.buckets.push({ upper: le === '+Inf' ? Infinity : Number(le), count: item.value });
          groups.set(key, group);
        }
        return {
          kind: 'vector',
          items: [...groups.values()].map((g) => ({ labels: g.labels, value: bucketQuantile(q.value, g.buckets) })),
        };
      }
      const m = evaluate(node.args[0] as Node, series, t);
      if (m.kind !== 'matrix') throw new Error(`${node.fn} needs a range vector`);
      const items: VectorItem[] = [];
      for (const s of m.items) {
        const value = extrapolated(s.samples, t, m.rangeMs, node.fn !== 'delta', node.fn === 'rate');
        if (value !== undefined) items.push({ labels: withoutName(s.labels), value });
      }
      return { kind: 'vector', items };
    }
    case 'aggregate': {
      const v = evaluate(node.arg, series, t);
      if (v.kind !== 'vector') throw new Error(`${node.op} needs an instant vector`);
      const groups = new Map<string, { labels: Labels; values: number[] }>();
      for (const item of v.items) {
        const g = node.grouping;
        const labels = Object.fromEntries(
          Object.entries(withoutName(item.labels)).filter(([k]) =>
            !g ? false : g.without ? !g.labels.includes(k) : g.labels.includes(k),
          ),
        );
        const key = signature(labels);
        const group = groups.get(key) ?? { labels, values: [] };
        group.values.push(item.value);
        groups.set(key, group);
      }
      const reduce: Record<string, (xs: number[]) => number> = {
        sum: (xs) => xs.reduce((a, b) => a + b, 0),
        max: (xs) => Math.max(...xs),
        min: (xs) => Math.min(...xs),
        avg: (xs) => xs.reduce((a, b) => a + b, 0) / xs.length,
        count: (xs) => xs.length,
      };
      return {
        kind: 'vector',
        items: [...groups.values()].map((g) => ({ labels: g.labels, value: (reduce[node.op] as any)(g.values) })),
      };
    }
    case 'binary': {
      const left = evaluate(node.left, series, t);
      const right = evaluate(node.right, series, t);
      const comparison = COMPARISONS.has(node.op);
      if (left.kind === 'scalar' && right.kind === 'scalar') {
        if (comparison) throw new Error('PromQL: a comparison between scalars needs bool');
        return { kind: 'scalar', value: arithmetic(node.op, left.value, right.value) };
      }
      if (node.op === 'and') {
        if (left.kind !== 'vector' || right.kind !== 'vector') throw new Error('and needs two vectors');
        const keys = new Set(right.items.map((i) => signature(i.labels)));
        return { kind: 'vector', items: left.items.filter((i) => keys.has(signature(i.labels))) };
      }
      if (left.kind === 'vector' && right.kind === 'scalar') {
        return {
          kind: 'vector',
          items: comparison
            ? left.items.filter((i) => compare(node.op, i.value, right.value))
            : left.items.map((i) => ({
                labels: withoutName(i.labels),
                value: arithmetic(node.op, i.value, right.value),
              })),
        };
      }
      if (left.kind === 'scalar' && right.kind === 'vector') {
        if (comparison) throw new Error('PromQL: write the vector on the left of a comparison here');
        return {
          kind: 'vector',
          items: right.items.map((i) => ({
            labels: withoutName(i.labels),
            value: arithmetic(node.op, left.value, i.value),
          })),
        };
      }
      if (left.kind === 'vector' && right.kind === 'vector') {
        const byKey = new Map(right.items.map((i) => [signature(i.labels), i]));
        if (byKey.size !== right.items.length) throw new Error('PromQL: many-to-one matching is not supported');
        const items: VectorItem[] = [];
        for (const l of left.items) {
          const r = byKey.get(signature(l.labels));
          if (!r) continue;
          if (comparison) {
            if (compare(node.op, l.value, r.value)) items.push(l);
          } else items.push({ labels: withoutName(l.labels), value: arithmetic(node.op, l.value, r.value) });
        }
        return { kind: 'vector', items };
      }
      throw new Error(`PromQL: ${node.op} between ${left.kind} and ${right.kind}`);
    }
  }
}

/** The instant vector an expression gives at time `t` (ms) over `series`. */
export function instantQuery(expr: string, series: Series[], t: number): VectorItem[] {
  const v = evaluate(parse(expr), series, t);
  if (v.kind === 'scalar') return [{ labels: {}, value: v.value }];
  if (v.kind !== 'vector') throw new Error(`PromQL: ${expr} is not an instant vector`);
  return v.items;
}

// ---- promtool's test format --------------------------------------------------------------------

/** A series in promtool's notation: `name{a="b"}`. */
export function parseSeriesName(text: string): Labels {
  const node = parse(text);
  if (node.type !== 'selector' || node.rangeMs !== undefined || node.matchers.some((m) => m.op !== '='))
    throw new Error(`not a series: ${text}`);
  return Object.fromEntries(node.matchers.map((m) => [m.name, m.value]));
}

/**
 * promtool's expanding notation, one value per interval from time 0: `1 2 3`, `0+10x5` (0, 10,
 * … 50), `5-1x3`, `7x2` (7 three times), `_` (no sample), `_x3`.
 */
export function expandValues(text: string, intervalMs: number): Sample[] {
  const out: Sample[] = [];
  let step = 0;
  for (const word of text.trim().split(/\s+/)) {
    const m = /^(_|[-+]?[\d.]+(?:e[-+]?\d+)?)(?:([-+])([\d.]+))?(?:x(\d+))?$/.exec(word);
    if (!m) throw new Error(`series values: cannot read "${word}"`);
    const [, start, sign, delta, times] = m;
    if (start === '_') {
      step += times ? Number(times) : 1;
      continue;
    }
    const n = times === undefined ? 0 : Number(times);
    const d = delta === undefined ? 0 : (sign === '-' ? -1 : 1) * Number(delta);
    for (let i = 0; i <= n; i++) out.push({ t: (step + i) * intervalMs, v: Number(start) + d * i });
    step += n + 1;
  }
  return out;
}

export interface AlertingRule {
  alert: string;
  expr: string;
  for?: string;
  labels?: Labels;
}

/**
 * The alerts firing at `evalMs`, as Prometheus' rule manager would have them when evaluating every
 * `intervalMs` from 0: an alert fires once its expression has returned its label set at every
 * evaluation for at least `for`. Labels: the result's (without the name), then the rule's.
 */
export function firingAlerts(rule: AlertingRule, series: Series[], evalMs: number, intervalMs: number): Labels[] {
  const forMs = rule.for ? parseDuration(rule.for) : 0;
  const activeSince = new Map<string, { at: number; labels: Labels }>();
  for (let t = 0; t <= evalMs; t += intervalMs) {
    const now = new Map<string, Labels>();
    for (const item of instantQuery(rule.expr, series, t)) {
      const labels = { ...withoutName(item.labels), ...(rule.labels ?? {}) };
      now.set(signature(labels), labels);
    }
    for (const key of [...activeSince.keys()]) if (!now.has(key)) activeSince.delete(key);
    for (const [key, labels] of now) if (!activeSince.has(key)) activeSince.set(key, { at: t, labels });
  }
  return [...activeSince.values()].filter((a) => evalMs - a.at >= forMs).map((a) => a.labels);
}
