import { isRefusal } from './index-errors';

/**
 * Sends a group of documents to the search index in one call. When the whole call is refused
 * (INVALID_ARGUMENT), each document is sent on its own, so only the one at fault is refused.
 * Throws what is worth retrying (the similarity service or its dependencies away).
 */
export async function indexSplittingRefusals<D, R>(
  group: D[],
  call: (docs: D[]) => Promise<R>,
  on: { answered(docs: D[], res: R): Promise<void>; refused(doc: D, reason: string): Promise<void> },
): Promise<void> {
  let res: R;
  try {
    res = await call(group);
  } catch (err) {
    if (!isRefusal(err)) throw err;
    if (group.length === 1) return on.refused(group[0] as D, (err as Error).message);
    for (const doc of group) await indexSplittingRefusals([doc], call, on);
    return;
  }
  await on.answered(group, res);
}
