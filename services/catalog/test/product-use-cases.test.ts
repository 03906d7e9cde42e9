import { AppError } from '@kb/platform';
import { deleteProduct, getProduct, upsertProduct, type CatalogDeps } from '../src/domain/products';
import { callerWith } from './support';

/** Deps whose repos fail the test on any call: the rule under test must answer before a query. */
const noQueries = new Proxy(
  {},
  {
    get: (_t, k) => {
      throw new Error(`unexpected use of ${String(k)}`);
    },
  },
) as unknown as CatalogDeps;
const badJson = { issues: [{ loc: ['body'], msg: 'Invalid JSON', type: 'json_invalid' }] };

describe('product use cases answer before any query', () => {
  test('when a read-only caller sends an unreadable body, then the answer is forbidden, not invalid (the scope comes first)', async () => {
    await expect(upsertProduct(noQueries, callerWith('knowledge:read'), 'shop', badJson)).rejects.toMatchObject({
      kind: 'forbidden',
    });
  });

  test('when a writer sends an unreadable body, then it is invalid with the decode issue', async () => {
    await expect(upsertProduct(noQueries, callerWith('knowledge:write'), 'shop', badJson)).rejects.toMatchObject({
      kind: 'invalid',
      issues: badJson.issues,
    });
  });

  test('when a writer sends a product without a title, then it is invalid at body.title', async () => {
    const p = upsertProduct(noQueries, callerWith('knowledge:write'), 'shop', { value: { language: 'de' } });
    await expect(p).rejects.toBeInstanceOf(AppError);
    await expect(p).rejects.toMatchObject({ issues: [expect.objectContaining({ loc: ['body', 'title'] })] });
  });

  test('when the product id is not a uuid, then it is not found', async () => {
    await expect(getProduct(noQueries, callerWith('knowledge:read'), 'abc')).rejects.toMatchObject({
      kind: 'not_found',
      message: 'Product not found',
    });
  });

  test('when a read-only caller deletes a product, then it is forbidden', async () => {
    await expect(deleteProduct(noQueries, callerWith('knowledge:read'), 'abc')).rejects.toMatchObject({
      kind: 'forbidden',
    });
  });
});
