import { decodeCursor, encodeCursor, pageSize } from '../src/domain/entries/paging';
import { refusal } from './support/fixtures';

describe('page size', () => {
  it('when no limit is sent, then a page has 100; above 500, 500', () => {
    expect(pageSize(0)).toBe(100);
    expect(pageSize(501)).toBe(500);
    expect(pageSize(7)).toBe(7);
  });
});

describe('cursors', () => {
  it("when a cursor is made from an entry, then it decodes to that entry's place", () => {
    const at = new Date('2026-03-04T05:06:07.089Z');
    expect(decodeCursor(encodeCursor({ updated_at: at, id: 'abc' }))).toEqual({ updatedAt: at, id: 'abc' });
  });

  it('when a cursor is url-safe base64, then it has no padding, + or /', () => {
    expect(encodeCursor({ updated_at: new Date(0), id: '?>?>?>' })).toMatch(/^[A-Za-z0-9_-]+$/);
  });

  it.each([
    ['not base64 JSON', 'nope'],
    ['a bad date', Buffer.from(JSON.stringify(['yesterday', 'x'])).toString('base64url')],
    ['an id that is no string', Buffer.from(JSON.stringify([new Date(0).toISOString(), 5])).toString('base64url')],
    ['no array', Buffer.from('5').toString('base64url')],
  ])('when the cursor is %s, then it is 422 at query.cursor', (_what, cursor) => {
    expect(refusal(() => decodeCursor(cursor))).toEqual({
      kind: 'invalid',
      message: 'Invalid cursor',
      locs: ['query.cursor'],
    });
  });
});
