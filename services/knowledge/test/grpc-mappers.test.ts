import type { knowledgeV1 } from '@kb/platform';
import {
  apiTokenMessage,
  categoryChanges,
  entryInput,
  entryListRequest,
  entrySearchRequest,
} from '../src/grpc/mappers';

describe('list requests from the wire', () => {
  const wire = (more: Partial<knowledgeV1.ListEntriesRequest__Output>) =>
    ({ caller: null, include_expired: false, limit: 0, ...more }) as knowledgeV1.ListEntriesRequest__Output;

  it('when filters are empty strings, then they are no filters, but a sent empty layer is one', () => {
    expect(entryListRequest(wire({ category_id: '', type: '', cursor: '', layer: '' }))).toEqual({
      layer: '',
      include_expired: false,
      limit: 0,
    });
  });

  it('when filters and a cursor are sent, then they all reach the use case', () => {
    expect(
      entryListRequest(
        wire({
          category_id: 'c',
          project_id: 'p',
          visibility: 'public',
          cursor: 'abc',
          include_expired: true,
          limit: 5,
        }),
      ),
    ).toEqual({
      category_id: 'c',
      project_id: 'p',
      visibility: 'public',
      cursor: 'abc',
      include_expired: true,
      limit: 5,
    });
  });
});

describe('search requests from the wire', () => {
  it('when category and language are empty, then they are left out', () => {
    const req = {
      caller: null,
      query: 'q',
      limit: 3,
      types: ['skill'],
      category_id: '',
      language: '',
    } as unknown as knowledgeV1.SearchEntriesRequest__Output;
    expect(entrySearchRequest(req)).toEqual({ query: 'q', limit: 3, types: ['skill'] });
  });
});

describe('category updates from the wire', () => {
  const wire = (more: Record<string, unknown>, sent: string[]) =>
    ({
      caller: null,
      category_id: 'c1',
      ...more,
      sent_fields: sent,
    }) as unknown as knowledgeV1.UpdateCategoryRequest__Output;

  it('when description and parent_id are sent as null, then they are cleared; fields not sent do not change', () => {
    expect(categoryChanges(wire({ name: 'ignored' }, ['description', 'parent_id']))).toEqual({
      description: null,
      parent_id: null,
    });
  });

  it('when name and sort_order are sent, then they change', () => {
    expect(categoryChanges(wire({ name: 'N', sort_order: 2 }, ['name', 'sort_order']))).toEqual({
      name: 'N',
      sort_order: 2,
    });
  });
});

describe('entry inputs from the wire', () => {
  it('when a request carries no input, then it is one that sent no field', () => {
    expect(entryInput(null).sent_fields).toEqual([]);
  });
});

describe('API token identities to the wire', () => {
  const token = {
    id: 'abc',
    tenant_id: 'acme',
    user_id: null,
    role: 'Agent',
    scopes: ['knowledge:read'],
    workspace_ids: [],
    name: null,
    revoked_at: null,
    created_at: new Date('2026-01-01T00:00:00Z'),
  } as unknown as Parameters<typeof apiTokenMessage>[0];

  it('when a token expires, then its identity carries the expiry (a cache must not outlive it); else it is empty', () => {
    const expiring = apiTokenMessage({ ...token, expires_at: new Date('2026-12-01T10:00:00.250Z') });
    expect(expiring.expires_at).toBe('2026-12-01T10:00:00.250Z');
    expect(apiTokenMessage({ ...token, expires_at: null }).expires_at).toBe('');
  });
});
