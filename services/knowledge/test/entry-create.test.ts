import { entryFromInput, typeOfNew, visibilityOfNew } from '../src/domain/entries/create';
import { caller, input, refusal } from './support/fixtures';

describe('the type of a new entry', () => {
  it('when no type is sent, then it is knowledge', () => {
    expect(typeOfNew(input({ title: 't' }), false)).toBe('knowledge');
  });

  it('when created on the personal route, then it is knowledge whatever was sent', () => {
    expect(typeOfNew(input({ type: 'skill' }), true)).toBe('knowledge');
    expect(typeOfNew(input({ type: 'skill' }), false)).toBe('skill');
  });
});

describe('the visibility of a new entry', () => {
  it('when visibility personal is sent off the personal route, then it is 422 naming the route', () => {
    const r = refusal(() => visibilityOfNew(input({ visibility: 'personal' }), false, 'knowledge'));
    expect(r).toEqual({
      kind: 'invalid',
      message: 'Personal entries can only be created through POST /api/knowledge/knowledge-entries/personal',
      locs: ['body.visibility'],
    });
  });

  it('when on the personal route, then it is personal', () => {
    expect(visibilityOfNew(input({ visibility: 'public' }), true, 'knowledge')).toBe('personal');
  });

  it('when a memory is sent without visibility, then it is internal', () => {
    expect(visibilityOfNew(input({}), false, 'memory')).toBe('internal');
    expect(visibilityOfNew(input({ visibility: null }), false, 'memory')).toBe('internal');
  });

  it('when another type is sent without visibility, then it is 422 Field required', () => {
    expect(refusal(() => visibilityOfNew(input({}), false, 'knowledge'))).toMatchObject({
      kind: 'invalid',
      message: 'Field required',
      locs: ['body.visibility'],
    });
  });
});

describe('the new entry record', () => {
  const decided = {
    type: 'memory',
    visibility: 'internal',
    workspaceId: null,
    categoryId: 'cat-1',
    metadata: { expires_at: '2030-01-01T00:00:00.000Z' },
    language: 'en',
    translation: { groupId: 'g-1', of: null },
  };
  const now = new Date('2026-02-01T00:00:00.000Z');

  it('when fields are left out, then the defaults apply and the entry starts at version 1, pending indexing', () => {
    const e = entryFromInput(caller(), input({ title: 'T', content: 'C' }), false, decided, now);
    expect(e).toMatchObject({
      version: 1,
      source: 'manual',
      tags: [],
      summary: null,
      index_pending: true,
      indexed_version: 0,
      created_at: now,
      updated_at: now,
      content_changed_at: now,
    });
    expect(e.expires_at).toEqual(new Date('2030-01-01T00:00:00.000Z'));
    expect(e.owner_key).toBe('user:user-1');
  });

  it('when on the personal route, then search keywords, similarity text and projects are not taken', () => {
    const sent = input({ title: 'T', content: 'C', search_keywords: ['k'], similarity_text: 's', project_ids: ['p'] });
    expect(entryFromInput(caller(), sent, true, decided, now)).toMatchObject({
      search_keywords: [],
      similarity_text: null,
      project_ids: null,
    });
    expect(entryFromInput(caller(), sent, false, decided, now)).toMatchObject({
      search_keywords: ['k'],
      similarity_text: 's',
      project_ids: ['p'],
    });
  });

  it('when the caller is a token without a user, then created_by_user_id is null', () => {
    expect(
      entryFromInput(caller({ user_id: '' }), input({ title: 'T', content: 'C' }), true, decided, now)
        .created_by_user_id,
    ).toBeNull();
  });
});
