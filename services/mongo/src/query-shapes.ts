/*
 * Which index serves a repository query. Every repository module declares the queries it issues
 * as shapes (fields compared for equality, the sort, a range, fields checked on each document the
 * index finds); a unit test checks each shape against the indexes declared on the schemas
 * (`servingIndex`), and an end-to-end test captures the filters the services really send and
 * checks each one against the declared shapes (`shapeOfFilter`, `matchesShape`).
 * docs/mongodb.md lists the indexes and the queries they serve.
 */

/** A sort as MongoDB takes it: field → 1 (ascending) or -1 (descending), in order. */
export type SortSpec = Record<string, 1 | -1>;

/** One query a repository issues, as an index sees it. */
export interface QueryShape {
  /** The collection it runs on. */
  collection: string;
  /** What issues it (module and function): named in failures and in docs/mongodb.md. */
  query: string;
  /** Fields compared for equality (a value, null, `$in`): the index's leading keys, in any order. */
  eq?: string[];
  /** The order asked for: the index keys right after the equality fields, all directions as given or all reversed. */
  sort?: SortSpec;
  /** One field compared by range (`$lt`, `$gte`, a prefix regex…): the index key after the sort. */
  range?: string[];
  /** Fields compared with `$exists: true`: an index whose partial filter is exactly that serves them. */
  exists?: string[];
  /** Fields the filter may also name (sometimes, in an `$or`, with `$ne`…): checked on each document the index finds. */
  residual?: string[];
  /** Why an order no index gives is sorted in memory: a set bounded by the data model. */
  sortInMemory?: string;
}

/** An index as a schema declares it (mongoose `Schema#indexes()`: keys, then options). */
export interface DeclaredIndex {
  key: Record<string, unknown>;
  unique?: boolean;
  partialFilterExpression?: Record<string, unknown>;
}

/** The primary key every collection has. */
export const ID_INDEX: DeclaredIndex = { key: { _id: 1 }, unique: true };

/** A schema's declared indexes, plus the primary key. */
export function declaredIndexes(schema: { indexes(): unknown[] }): DeclaredIndex[] {
  const out: DeclaredIndex[] = [ID_INDEX];
  for (const entry of schema.indexes()) {
    const [key, options = {}] = entry as [Record<string, unknown>, Record<string, unknown>?];
    out.push({
      key,
      unique: options.unique === true,
      ...(options.partialFilterExpression
        ? { partialFilterExpression: options.partialFilterExpression as Record<string, unknown> }
        : {}),
    });
  }
  return out;
}

/** `{a: 1, b: -1}` as `a_1_b_-1`, the name MongoDB gives an index by default. */
export const indexName = (index: DeclaredIndex): string =>
  Object.entries(index.key)
    .map(([k, v]) => `${k}_${String(v)}`)
    .join('_');

/** The `$exists: true` fields a partial filter requires; null when it requires anything else. */
function partialExists(filter: Record<string, unknown>): string[] | null {
  const fields: string[] = [];
  for (const [field, cond] of Object.entries(filter)) {
    const ops = cond as Record<string, unknown> | null;
    if (!ops || typeof ops !== 'object' || Object.keys(ops).length !== 1 || ops.$exists !== true) return null;
    fields.push(field);
  }
  return fields;
}

/**
 * Whether `index` serves `shape` by the leading-prefix rule: its first keys are exactly the
 * shape's equality fields (any order), then the sort (every direction as asked, or every one
 * reversed), then the range field; and it bounds the scan (at least one key used, or a partial
 * filter the query implies). A unique index whose keys are all equalities finds one document,
 * so its order needs no sort. Null when it serves; else why not.
 */
export function whyNotServed(shape: QueryShape, index: DeclaredIndex): string | null {
  const keys = Object.entries(index.key);
  const exists = new Set(shape.exists ?? []);
  let partial = false;
  if (index.partialFilterExpression) {
    const needed = partialExists(index.partialFilterExpression);
    if (!needed || !needed.every((f) => exists.has(f))) return 'its partial filter is not implied by the query';
    partial = true;
  }
  let i = 0;
  const eq = new Set(shape.eq ?? []);
  while (i < keys.length && eq.has(keys[i]![0])) eq.delete(keys[i++]![0]);
  if (eq.size) return `equality fields ${[...eq].join(', ')} are not its leading keys`;
  const pointRead = index.unique === true && i === keys.length;
  const sorted = new Set<string>();
  const sort = Object.entries(shape.sort ?? {});
  if (sort.length && !pointRead) {
    const flip = keys[i]?.[0] === sort[0]![0] && keys[i]?.[1] === -sort[0]![1];
    const inOrder = sort.every(([f, dir], j) => keys[i + j]?.[0] === f && keys[i + j]?.[1] === (flip ? -dir : dir));
    if (inOrder) {
      for (const [f] of sort) sorted.add(f);
      i += sort.length;
    } else if (!shape.sortInMemory) return `the sort ${JSON.stringify(shape.sort)} does not follow the equality keys`;
  }
  for (const field of shape.range ?? []) {
    if (sorted.has(field)) continue;
    if (keys[i]?.[0] !== field) return `the range field ${field} is not the key after the equality and sort keys`;
    i++;
  }
  if (i === 0 && !partial) return 'no key of it bounds the query';
  return null;
}

/** The first index that serves the shape, or undefined. */
export function servingIndex(shape: QueryShape, indexes: DeclaredIndex[]): DeclaredIndex | undefined {
  return indexes.find((index) => whyNotServed(shape, index) === null);
}

/** A filter as it was sent, sorted into what an index sees: equality, range, `$exists: true`, the rest. */
export interface FilterShape {
  eq: string[];
  range: string[];
  exists: string[];
  other: string[];
  sort?: SortSpec;
}

const RANGE_OPS = new Set(['$lt', '$lte', '$gt', '$gte']);

function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v) && Object.getPrototypeOf(v) === Object.prototype;
}

/** The kind of one field's condition. */
function conditionKind(cond: unknown): keyof Omit<FilterShape, 'sort'> {
  if (cond instanceof RegExp) return cond.source.startsWith('^') ? 'range' : 'other';
  if (!isPlainObject(cond)) return 'eq';
  const ops = Object.keys(cond);
  if (!ops.some((o) => o.startsWith('$'))) return 'eq';
  if (ops.length === 1 && (ops[0] === '$in' || ops[0] === '$eq')) return 'eq';
  if (ops.length === 1 && ops[0] === '$exists' && cond.$exists === true) return 'exists';
  if (ops.every((o) => RANGE_OPS.has(o))) return 'range';
  if (ops[0] === '$regex' && typeof cond.$regex === 'string' && cond.$regex.startsWith('^')) return 'range';
  return 'other';
}

/** Every field named anywhere inside a condition list (the branches of an `$or`). */
function fieldsIn(clauses: unknown, into: Set<string>): void {
  if (!Array.isArray(clauses)) return;
  for (const clause of clauses)
    if (isPlainObject(clause))
      for (const [k, v] of Object.entries(clause)) {
        if (k.startsWith('$')) fieldsIn(v, into);
        else into.add(k);
      }
}

/** How a filter (and its sort) reads to an index: `$and` branches merged, `$or`/`$nor` branches residual. */
export function shapeOfFilter(
  filter: Record<string, unknown> | undefined,
  sortAsSent?: Record<string, unknown> | Map<string, unknown>,
): FilterShape {
  // The driver sends a command's sort as a Map (it keeps the key order).
  const sort = sortAsSent instanceof Map ? Object.fromEntries(sortAsSent) : sortAsSent;
  const kinds = {
    eq: new Set<string>(),
    range: new Set<string>(),
    exists: new Set<string>(),
    other: new Set<string>(),
  };
  const visit = (f: Record<string, unknown>) => {
    for (const [k, v] of Object.entries(f)) {
      if (k === '$and' && Array.isArray(v)) {
        for (const c of v) if (isPlainObject(c)) visit(c);
      } else if (k.startsWith('$')) fieldsIn(v, kinds.other);
      else kinds[conditionKind(v)].add(k);
    }
  };
  visit(filter ?? {});
  // A field both compared for equality and elsewhere (in an $or) is still an equality for the index.
  for (const f of kinds.eq) kinds.other.delete(f);
  const sorted = (s: Set<string>) => [...s].sort();
  return {
    eq: sorted(kinds.eq),
    range: sorted(kinds.range),
    exists: sorted(kinds.exists),
    other: sorted(kinds.other),
    ...(sort && Object.keys(sort).length
      ? { sort: Object.fromEntries(Object.entries(sort).map(([k, v]) => [k, Number(v) < 0 ? -1 : 1])) as SortSpec }
      : {}),
  };
}

/**
 * Whether a filter as sent is the declared shape: every field the shape needs, compared as it
 * needs (an equality may stand where a range is declared: a narrower range), no field the
 * shape does not list, and the same sort.
 */
export function matchesShape(sent: FilterShape, shape: QueryShape): boolean {
  const has = (list: string[], f: string) => list.includes(f);
  if (!(shape.eq ?? []).every((f) => has(sent.eq, f))) return false;
  if (!(shape.range ?? []).every((f) => has(sent.range, f) || has(sent.eq, f))) return false;
  if (!(shape.exists ?? []).every((f) => has(sent.exists, f))) return false;
  const listed = new Set([
    ...(shape.eq ?? []),
    ...(shape.range ?? []),
    ...(shape.exists ?? []),
    ...(shape.residual ?? []),
  ]);
  if (![...sent.eq, ...sent.range, ...sent.exists, ...sent.other].every((f) => listed.has(f))) return false;
  return JSON.stringify(Object.entries(sent.sort ?? {})) === JSON.stringify(Object.entries(shape.sort ?? {}));
}

/** A filter as sent, in one line: for failure messages. */
export const describeFilterShape = (collection: string, s: FilterShape): string =>
  `${collection} eq[${s.eq.join(',')}] range[${s.range.join(',')}] exists[${s.exists.join(',')}] ` +
  `other[${s.other.join(',')}] sort${JSON.stringify(s.sort ?? {})}`;

/** Reads by id (findOfTenantByIds, a tombstone's product): the primary key; the tenant is checked on each document. */
export const byIdQuery = (collection: string, query: string, residual: string[] = []): QueryShape => ({
  collection,
  query,
  eq: ['_id'],
  residual: ['tenant_id', ...residual],
});

/** A collection as a repository declares it: its name and its schema's indexes. */
export interface DeclaredCollection {
  name: string;
  indexes: DeclaredIndex[];
  /** Whether every query on it is a tenant's (then every index but the listed cross-tenant ones leads with tenant_id). */
  tenantScoped: boolean;
}

/** The collections of a connection's models (mongoose `Model`s, or anything with a collection name and a schema). */
export function declaredCollections(
  models: { collection: { collectionName: string }; schema: { indexes(): unknown[]; path(p: string): unknown } }[],
): DeclaredCollection[] {
  return models.map((m) => ({
    name: m.collection.collectionName,
    indexes: declaredIndexes(m.schema),
    tenantScoped: Boolean(m.schema.path('tenant_id')),
  }));
}

/**
 * What is wrong with a service's queries and indexes, as sentences (none: all is well): a
 * query no declared index serves; an index that serves no query (unique indexes excepted: they
 * guard a rule); an index of a tenant's collection not led by tenant_id unless `crossTenant`
 * names it (`<collection>.<index name>`: the indexers' and the admin CLI's queries over every tenant).
 */
export function queryIndexProblems(
  shapes: QueryShape[],
  collections: DeclaredCollection[],
  crossTenant: string[],
): string[] {
  const problems: string[] = [];
  const byName = new Map(collections.map((c) => [c.name, c]));
  const used = new Set<string>();
  for (const shape of shapes) {
    const indexes = byName.get(shape.collection)?.indexes ?? [ID_INDEX];
    const index = servingIndex(shape, indexes);
    if (index) used.add(`${shape.collection}.${indexName(index)}`);
    else
      problems.push(
        `${shape.collection}: no index serves "${shape.query}" (${indexes
          .map((i) => `${indexName(i)}: ${whyNotServed(shape, i)}`)
          .join('; ')})`,
      );
  }
  for (const c of collections)
    for (const index of c.indexes) {
      const name = `${c.name}.${indexName(index)}`;
      if (!index.unique && !used.has(name)) problems.push(`${name} serves no declared query`);
      const lead = Object.keys(index.key)[0];
      if (c.tenantScoped && lead !== 'tenant_id' && lead !== '_id' && !crossTenant.includes(name))
        problems.push(`${name} does not lead with tenant_id and is not listed as cross-tenant`);
    }
  return problems;
}
