import { AppError } from '@kb/platform';
import { parentNotFound } from './context';

/**
 * 422 when the new parent is the category itself or below it: walks up from the parent, and
 * meeting the category means a cycle. An unknown parent is a 404; a broken chain above it ends the walk.
 */
export async function assertNotBelowItself(
  parentOf: (id: string) => Promise<{ parent_id: string | null } | null>,
  id: string,
  parentId: string,
): Promise<void> {
  let cursor: string | null = parentId;
  const seen = new Set<string>();
  while (cursor) {
    if (cursor === id) {
      throw AppError.invalid([
        {
          loc: ['body', 'parent_id'],
          msg: 'A category cannot be moved below itself or one of its descendants',
          type: 'value_error',
        },
      ]);
    }
    if (seen.has(cursor)) break;
    seen.add(cursor);
    const parent: { parent_id: string | null } | null = await parentOf(cursor);
    if (!parent) {
      if (cursor === parentId) throw parentNotFound();
      break;
    }
    cursor = parent.parent_id;
  }
}
