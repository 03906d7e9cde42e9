/**
 * The parent guard (src/parent-guard.ts) against the run's real MongoDB: a delete and the writes
 * that refer to the parent meet on the parent's document. Each case sets up one interleaving on
 * purpose, including the crash and stall paths the end-to-end race suite cannot reach: a mark
 * or a claim older than the TTL (here 300 ms) counts as abandoned.
 */
import mongoose, { Schema, type Connection, type Model } from 'mongoose';
import { parentGuard, type ParentGuard, type ParentGuardStore } from '@kb/rules';
import { AppError } from '@kb/platform';
import { parentGuardPath, parentGuardStore } from '../../src/parent-guard-store';
import { tenantScoped } from '../../src/tenancy';
import { testName } from '../../../../test/support/test-names';

const TTL_MS = 300;
const T = 'tenant-a';

interface ParentDoc {
  _id: string;
  tenant_id: string;
}
interface ChildDoc {
  _id: string;
  tenant_id: string;
  parent_id: string;
}

let connection: Connection;
let Parent: Model<ParentDoc>;
let Child: Model<ChildDoc>;
let store: ParentGuardStore;
let guard: ParentGuard;

beforeAll(async () => {
  const url = new URL(process.env.MONGODB_URI as string);
  url.pathname = `/${testName('kbguard')}`;
  connection = await mongoose.createConnection(url.toString()).asPromise();
  const parentSchema = new Schema<ParentDoc>(
    { _id: String, tenant_id: String, ...parentGuardPath },
    { versionKey: false },
  );
  parentSchema.plugin(tenantScoped);
  Parent = connection.model<ParentDoc>('Parent', parentSchema);
  const childSchema = new Schema<ChildDoc>(
    { _id: String, tenant_id: String, parent_id: String },
    { versionKey: false },
  );
  childSchema.plugin(tenantScoped);
  Child = connection.model<ChildDoc>('Child', childSchema);
  store = parentGuardStore(Parent, TTL_MS);
  guard = parentGuard(store, { what: 'Parent', missing: () => AppError.notFound('Parent not found'), waitMs: 1000 });
});
afterAll(async () => {
  await connection?.close();
});

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
let n = 0;
async function newParent(): Promise<string> {
  const id = `p${++n}`;
  await Parent.create({ _id: id, tenant_id: T });
  return id;
}
const children = async (parentId: string) => Child.countDocuments({ tenant_id: T, parent_id: parentId });
const inUse = (parentId: string) => async () => ((await children(parentId)) > 0 ? 'Parent has children' : null);
const addChild =
  (parentId: string, id = `c${++n}`) =>
  async () => {
    await Child.create({ _id: id, tenant_id: T, parent_id: parentId });
    return id;
  };
const removeChild = async (id: string) => void (await Child.deleteOne({ tenant_id: T, _id: id }));
const parentExists = async (id: string) => (await Parent.exists({ tenant_id: T, _id: id })) !== null;
/** The error a promise rejects with, as `<kind>: <message>`. */
const failure = (p: Promise<unknown>) =>
  p.then(
    () => 'no error',
    (err: AppError) => `${err.kind}: ${err.message}`,
  );
/** A step a test holds until it lets it go. */
function gate() {
  let open!: () => void;
  const passed = new Promise<void>((r) => (open = r));
  return { open, passed };
}
/** Resolves once the parent's guard state satisfies `test` (polls MongoDB). */
async function until(
  parentId: string,
  test: (guard: { deleting?: unknown; claims?: unknown[] }) => boolean,
): Promise<void> {
  for (;;) {
    const doc = await Parent.findOne({ tenant_id: T, _id: parentId }).lean<{
      guard?: { deleting?: unknown; claims?: unknown[] };
    }>();
    if (test(doc?.guard ?? {})) return;
    await sleep(5);
  }
}
const claimed = (g: { claims?: unknown[] }) => (g.claims?.length ?? 0) > 0;
const marked = (g: { deleting?: unknown }) => g.deleting !== undefined;

describe('parent guard', () => {
  test('when a delete meets a write under way, then the delete is a 409 and the write keeps its child', async () => {
    const parent = await newParent();
    const hold = gate();
    const writing = guard.referring(
      T,
      parent,
      async () => {
        await hold.passed;
        return addChild(parent)();
      },
      removeChild,
    );
    await until(parent, claimed);
    expect(await failure(guard.remove(T, parent, inUse(parent)))).toBe(
      'conflict: Parent is in use: a write that refers to it is under way',
    );
    hold.open();
    await writing;
    expect(await failure(guard.remove(T, parent, inUse(parent)))).toBe('conflict: Parent has children');
    expect(await parentExists(parent)).toBe(true);
  });

  test('when a write meets a delete that removes the parent, then the write waits, writes nothing and is a 404', async () => {
    const parent = await newParent();
    const hold = gate();
    const deleting = guard.remove(T, parent, async () => {
      await hold.passed;
      return inUse(parent)();
    });
    await until(parent, marked);
    const writing = failure(guard.referring(T, parent, addChild(parent), removeChild));
    await sleep(50); // the write is waiting on the mark
    hold.open();
    await deleting;
    expect(await writing).toBe('not_found: Parent not found');
    expect(await children(parent)).toBe(0);
  });

  test('when a write meets a delete that backs off, then the write waits and goes on', async () => {
    const parent = await newParent();
    await addChild(parent)();
    const hold = gate();
    const deleting = failure(
      guard.remove(T, parent, async () => {
        await hold.passed;
        return inUse(parent)();
      }),
    );
    await until(parent, marked);
    const writing = guard.referring(T, parent, addChild(parent), removeChild);
    await sleep(50); // the write is waiting on the mark
    hold.open();
    expect(await deleting).toBe('conflict: Parent has children');
    await writing;
    expect(await children(parent)).toBe(2);
  });

  test('when a delete stalls past the TTL, then a write takes its mark over and the stalled delete is a 409, not a removal', async () => {
    const parent = await newParent();
    const hold = gate();
    const deleting = failure(
      guard.remove(T, parent, async () => {
        await hold.passed;
        return null; // it counted before the write below: no children
      }),
    );
    await until(parent, marked);
    await sleep(TTL_MS + 50);
    await guard.referring(T, parent, addChild(parent), removeChild);
    hold.open();
    expect(await deleting).toBe('conflict: The parent changed while it was being deleted; try again');
    expect(await parentExists(parent)).toBe(true);
    expect(await children(parent)).toBe(1);
  });

  test('when a write stalls past the TTL and the parent is deleted meanwhile, then the write undoes its child and is a 404', async () => {
    const parent = await newParent();
    const hold = gate();
    const undone: string[] = [];
    const writing = failure(
      guard.referring(
        T,
        parent,
        async () => {
          await hold.passed;
          return addChild(parent)();
        },
        async (id) => {
          undone.push(id);
          await removeChild(id);
        },
      ),
    );
    await until(parent, claimed);
    await sleep(TTL_MS + 50);
    await guard.remove(T, parent, inUse(parent)); // drops the abandoned claim, counts no child: removed
    hold.open();
    expect(await writing).toBe('not_found: Parent not found');
    expect(undone).toHaveLength(1);
    expect(await children(parent)).toBe(0);
  });

  test('when a write stalls past the TTL but the delete saw its child, then the write keeps its child', async () => {
    const parent = await newParent();
    const hold = gate();
    const writing = guard.referring(
      T,
      parent,
      async () => {
        const id = await addChild(parent)();
        await hold.passed;
        return id;
      },
      async () => {
        throw new Error('must not undo');
      },
    );
    await until(parent, claimed);
    while ((await children(parent)) === 0) await sleep(5);
    await sleep(TTL_MS + 50);
    expect(await failure(guard.remove(T, parent, inUse(parent)))).toBe('conflict: Parent has children');
    hold.open();
    await writing;
    expect(await children(parent)).toBe(1);
  });

  test('when a write fails, then its claim is released and a delete goes through', async () => {
    const parent = await newParent();
    const failed = failure(
      guard.referring(
        T,
        parent,
        async () => {
          throw AppError.invalid([{ loc: ['body'], msg: 'bad', type: 'value_error' }]);
        },
        async () => undefined,
      ),
    );
    expect(await failed).toBe('invalid: bad');
    await guard.remove(T, parent, inUse(parent));
    expect(await parentExists(parent)).toBe(false);
  });

  test('when two deletes race, then one removes the parent and the other waits for it and is a 404', async () => {
    const parent = await newParent();
    const outcomes = await Promise.all([
      failure(guard.remove(T, parent, inUse(parent))),
      failure(guard.remove(T, parent, inUse(parent))),
    ]);
    expect(outcomes.sort()).toEqual(['no error', 'not_found: Parent not found']);
  });
});
