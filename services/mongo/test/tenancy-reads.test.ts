import { findOfTenantByIds } from '../src/tenancy';

/** A collection stand-in that records the filter it was asked and answers every stored document the filter's ids name. */
function collection(docs: { _id: string; tenant_id: string }[]) {
  const filters: object[] = [];
  return {
    filters,
    find(filter: { _id: string | { $in: string[] } }) {
      filters.push(filter);
      const ids = typeof filter._id === 'string' ? [filter._id] : filter._id.$in;
      return { toArray: async () => docs.filter((d) => ids.includes(d._id)) };
    },
  };
}

describe("reads of a tenant's documents by id", () => {
  const docs = [
    { _id: 'a', tenant_id: 't1' },
    { _id: 'b', tenant_id: 't2' },
    { _id: 'c', tenant_id: 't1' },
  ];

  test("when ids of another tenant are asked for, then only the caller tenant's documents come back", async () => {
    const c = collection(docs);
    expect((await findOfTenantByIds(c, 't1', ['a', 'b', 'c'])).map((d) => d._id)).toEqual(['a', 'c']);
    expect(await findOfTenantByIds(c, 't2', ['a'])).toEqual([]);
  });

  test('when asked, then the filter names _id alone (served by the _id index), ids once each', async () => {
    const c = collection(docs);
    await findOfTenantByIds(c, 't1', ['a', 'a', 'c']);
    await findOfTenantByIds(c, 't1', ['a']);
    expect(c.filters).toEqual([{ _id: { $in: ['a', 'c'] } }, { _id: 'a' }]);
  });

  test('when no id is asked for, then nothing is read', async () => {
    const c = collection(docs);
    expect(await findOfTenantByIds(c, 't1', [])).toEqual([]);
    expect(c.filters).toEqual([]);
  });
});
