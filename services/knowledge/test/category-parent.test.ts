import { assertNotBelowItself } from '../src/domain/categories/parent-cycle';
import { asyncRefusal } from './support/fixtures';

/** A tree as child → parent; a lookup answering from it, like the repository would. */
const tree = (parents: Record<string, string | null>) => async (id: string) =>
  id in parents ? { parent_id: parents[id] ?? null } : null;

describe('moving a category under a new parent', () => {
  const parents = tree({ root: null, a: 'root', b: 'a', c: 'b', other: null });

  it('when the new parent is the category itself, then it is 422', async () => {
    expect(await asyncRefusal(() => assertNotBelowItself(parents, 'a', 'a'))).toEqual({
      kind: 'invalid',
      message: 'A category cannot be moved below itself or one of its descendants',
      locs: ['body.parent_id'],
    });
  });

  it('when the new parent is a descendant, then it is 422', async () => {
    expect((await asyncRefusal(() => assertNotBelowItself(parents, 'a', 'c'))).locs).toEqual(['body.parent_id']);
  });

  it('when the new parent is elsewhere in the tree, then the move is allowed', async () => {
    await expect(assertNotBelowItself(parents, 'b', 'other')).resolves.toBeUndefined();
    await expect(assertNotBelowItself(parents, 'c', 'root')).resolves.toBeUndefined();
  });

  it('when the new parent does not exist, then it is 422 Parent category not found', async () => {
    expect((await asyncRefusal(() => assertNotBelowItself(parents, 'a', 'ghost'))).message).toBe(
      'Parent category not found',
    );
  });

  it('when the stored tree already has a loop above the parent, then the walk ends instead of spinning', async () => {
    await expect(assertNotBelowItself(tree({ x: 'y', y: 'x' }), 'a', 'x')).resolves.toBeUndefined();
  });
});
