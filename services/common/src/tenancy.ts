import type { Schema } from 'mongoose';

/**
 * A mongoose plugin that refuses any query, update or aggregation that does not filter by
 * tenant_id, so tenant isolation is enforced in one place rather than remembered in each
 * handler. Saves are covered because tenant_id is a required path on every schema using it.
 */
export function tenantScoped(schema: Schema): void {
  if (!schema.path('tenant_id')) {
    schema.add({ tenant_id: { type: String, required: true, index: true } });
  }
  const queryOps = [
    'find',
    'findOne',
    'countDocuments',
    'deleteOne',
    'deleteMany',
    'updateOne',
    'updateMany',
    'findOneAndUpdate',
    'findOneAndDelete',
    'findOneAndReplace',
    'replaceOne',
    'distinct',
  ] as const;
  for (const op of queryOps) {
    schema.pre(op, function () {
      const filter = this.getFilter() as Record<string, unknown>;
      if (typeof filter.tenant_id !== 'string' || filter.tenant_id === '') {
        throw new Error(`Refusing ${op} on ${this.model.modelName} without a tenant_id filter`);
      }
    });
  }
  schema.pre('aggregate', function () {
    const first = this.pipeline()[0] as { $match?: { tenant_id?: unknown } } | undefined;
    if (typeof first?.$match?.tenant_id !== 'string') {
      throw new Error('Refusing an aggregation without a leading $match on tenant_id');
    }
  });
}
