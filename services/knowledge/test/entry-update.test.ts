import type { EntriesRepo } from '../src/data-access/entries-repo';
import type { Entry } from '../src/domain/types';
import type { EntryContext } from '../src/domain/entries/context';
import { assertVersionMatches } from '../src/domain/entries/load';
import { accessChanges, contentChanges, stamped, updateEntry } from '../src/domain/entries/update';
import { asyncRefusal, caller, entry, input, refusal, viewer } from './support/fixtures';

describe('who may read the entry after an update', () => {
  it('when type is sent, then it is 422 at body.type', () => {
    expect(refusal(() => accessChanges(viewer(), entry(), input({ type: 'knowledge' })))).toMatchObject({
      kind: 'invalid',
      locs: ['body.type'],
    });
  });

  it('when visibility personal is sent to a shared entry, then it is 409 naming the personal route', () => {
    expect(refusal(() => accessChanges(viewer(), entry(), input({ visibility: 'personal' }))).message).toContain(
      'POST /api/knowledge/knowledge-entries/personal',
    );
  });

  it('when a personal note is given another visibility, then it is 409: it stays personal', () => {
    expect(
      refusal(() => accessChanges(viewer(), entry({ visibility: 'personal' }), input({ visibility: 'internal' })))
        .message,
    ).toBe('A personal entry stays personal');
  });

  it('when the visibility sent is the current one, then it is no change of kind (a personal note may say personal)', () => {
    expect(accessChanges(viewer(), entry({ visibility: 'personal' }), input({ visibility: 'personal' }))).toEqual({
      visibility: 'personal',
    });
  });

  it('when the new visibility is above the ceiling, then it is 403', () => {
    expect(
      refusal(() => accessChanges(viewer({ role: 'Agent' }), entry(), input({ visibility: 'restricted' }))).kind,
    ).toBe('forbidden');
  });

  it('when workspaces are on and a workspace is sent with the visibility, then membership is checked against the sent one', () => {
    const v = viewer({ workspace_ids: ['w2'] }, { workspaces_enabled: true });
    const current = entry({ visibility: 'workspace', workspace_id: 'w1' });
    expect(accessChanges(v, current, input({ visibility: 'workspace', workspace_id: 'w2' }))).toEqual({
      visibility: 'workspace',
      workspace_id: 'w2',
    });
    expect(refusal(() => accessChanges(v, current, input({ visibility: 'workspace' }))).kind).toBe('forbidden');
  });
});

describe('moving an entry into a workspace', () => {
  it.each([true, false])(
    'when only workspace_id is sent and the caller is not in that workspace (workspaces on: %s), then it is 403',
    (on) => {
      const v = viewer({ workspace_ids: ['w2'] }, { workspaces_enabled: on });
      expect(refusal(() => accessChanges(v, entry(), input({ workspace_id: 'w1' })))).toMatchObject({
        kind: 'forbidden',
        message: 'Workspace entries can only be written by members of that workspace',
      });
      expect(accessChanges(v, entry(), input({ workspace_id: 'w2' }))).toEqual({ workspace_id: 'w2' });
    },
  );

  it('when the workspace_id sent is the current one or null, then membership is not asked', () => {
    const v = viewer({ workspace_ids: [] });
    expect(accessChanges(v, entry({ workspace_id: 'w1' }), input({ workspace_id: 'w1' }))).toEqual({
      workspace_id: 'w1',
    });
    expect(accessChanges(v, entry({ workspace_id: 'w1' }), input({ workspace_id: null }))).toEqual({
      workspace_id: null,
    });
  });
});

describe('the text and metadata of an update', () => {
  const current = entry({ summary: 'old', tags: ['a'], layer: 'L1', type: 'memory' });

  it('when nothing is sent, then nothing changes', () => {
    expect(contentChanges(current, input({}))).toEqual({});
  });

  it('when a nullable field is sent as null, then it is cleared; lists are emptied', () => {
    expect(contentChanges(current, input({ summary: null, layer: null, tags: null }))).toEqual({
      summary: null,
      layer: null,
      tags: [],
    });
  });

  it('when title or content is sent as null, then they stay as they are', () => {
    expect(contentChanges(current, input({ title: null, content: null }))).toEqual({});
  });

  it('when metadata is sent, then it is checked against the entry type (409 when it does not fit) and sets the expiry', () => {
    expect(contentChanges(current, input({ metadata_json: '{"expires_at":"2030-01-01T00:00:00Z"}' }))).toEqual({
      metadata: { expires_at: '2030-01-01T00:00:00.000Z' },
      expires_at: new Date('2030-01-01T00:00:00.000Z'),
    });
    expect(refusal(() => contentChanges(current, input({ metadata_json: '{"steps":[]}' }))).kind).toBe('conflict');
  });

  it('when metadata is not JSON, then it is 422 at body.metadata', () => {
    expect(refusal(() => contentChanges(current, input({ metadata_json: '{' })))).toMatchObject({
      kind: 'invalid',
      locs: ['body.metadata'],
    });
  });
});

describe('timestamps of an update', () => {
  const current = entry({ title: 'Same', updated_at: new Date(5_000) });

  it('when the clock is behind the last change, then updated_at still moves forward by 1 ms', () => {
    expect(stamped(current, {}, 1_000).updated_at).toEqual(new Date(5_001));
    expect(stamped(current, {}, 9_000).updated_at).toEqual(new Date(9_000));
  });

  it('when only tags change, then content_changed_at stays; when the title changes, it moves', () => {
    expect(stamped(current, { tags: ['x'] }, 9_000)).not.toHaveProperty('content_changed_at');
    expect(stamped(current, { title: 'Same' }, 9_000)).not.toHaveProperty('content_changed_at');
    expect(stamped(current, { title: 'New' }, 9_000).content_changed_at).toEqual(new Date(9_000));
  });
});

describe('If-Match and lost races', () => {
  it('when If-Match names another version, then it is 412; none sent or the same, it passes', () => {
    expect(refusal(() => assertVersionMatches({ version: 3 }, 2))).toEqual({
      kind: 'precondition_failed',
      message: "If-Match does not match the entry's current version 3",
      locs: [],
    });
    expect(() => assertVersionMatches({ version: 3 }, undefined)).not.toThrow();
    expect(() => assertVersionMatches({ version: 3 }, 3)).not.toThrow();
  });

  function contextWith(stored: Entry, updateIfVersion: EntriesRepo['updateIfVersion']): EntryContext {
    const entries = {
      findReadable: async () => stored,
      updateIfVersion,
      addVersion: async () => undefined,
    } as unknown as EntriesRepo;
    return {
      entries,
      tenants: { findById: async () => null },
      transactions: { available: async () => false, run: <T>(work: () => Promise<T>) => work() },
      indexer: { indexNow: async () => new Map<string, string>() },
      skillIndexTurns: <T>(_key: string, fn: () => Promise<T>) => fn(),
      skillIndexLease: async <T>(_key: string, fn: () => Promise<T>) => ({ result: await fn(), kept: true }),
    } as unknown as EntryContext;
  }

  it('when another write bumped the version between read and write, then it is 409', async () => {
    const ctx = contextWith(entry(), async () => null);
    expect(await asyncRefusal(() => updateEntry(ctx, caller(), 'entry-1', input({ title: 'New' }), undefined))).toEqual(
      {
        kind: 'conflict',
        message: 'The entry was changed by another request; read it again and retry',
        locs: [],
      },
    );
  });

  it('when nobody wrote in between, then the write is conditional on the version read', async () => {
    const calls: number[] = [];
    const ctx = contextWith(entry({ version: 7 }), async (_t, _id, expected, set) => {
      calls.push(expected);
      return entry({ ...set, version: expected + 1 });
    });
    const updated = await updateEntry(ctx, caller(), 'entry-1', input({ title: 'New' }), 7);
    expect(calls).toEqual([7]);
    expect(updated).toMatchObject({ title: 'New', version: 8 });
  });
});
