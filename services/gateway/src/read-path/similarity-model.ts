import type { Caller, similarityV1 } from '@kb/platform';
import type { Backends } from '../clients/backends';

/** What the similarity service's DescribeModel said: the aliases it searches and its model's languages. */
export type DescribeModel = (caller: Caller) => Promise<similarityV1.ModelInfo__Output>;

/** The aliases the similarity service searches and its model's languages (asked once; again after a failure). */
export function describeModel(backends: Backends): DescribeModel {
  let model: Promise<similarityV1.ModelInfo__Output> | undefined;
  return (caller) =>
    (model ??= backends.similarity.call('DescribeModel', { caller }).catch((err: unknown) => {
      model = undefined;
      throw err;
    }));
}

/** The products alias the similarity service searches (empty from one that does not name its aliases). */
export const productsAlias = async (describe: DescribeModel, caller: Caller) => (await describe(caller)).products_alias;
