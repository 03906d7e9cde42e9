import { byIdQuery, type QueryShape } from '@kb/mongo';
import type { ApiToken } from '../domain/types';
import type { ApiTokenDoc, KnowledgeModels } from './models';

/** A stored token as the domain reads it: `id` for `_id`; the hash stays here. */
const toRecord = (d: ApiTokenDoc): ApiToken => ({
  id: d._id,
  tenant_id: d.tenant_id,
  user_id: d.user_id,
  role: d.role,
  scopes: d.scopes,
  workspace_ids: d.workspace_ids ?? [],
  name: d.name,
  expires_at: d.expires_at,
  revoked_at: d.revoked_at,
  created_at: d.created_at,
});

export function tokensRepo(models: KnowledgeModels) {
  const { ApiToken: ApiTokenModel } = models;
  return {
    async create(input: Omit<ApiToken, 'revoked_at' | 'created_at'> & { hash: string }): Promise<ApiToken> {
      const doc = await ApiTokenModel.create({ _id: input.id, ...input, revoked_at: null, created_at: new Date() });
      return toRecord(doc.toObject());
    },
    async findByHash(tenantId: string, hash: string): Promise<ApiToken | null> {
      const doc = await ApiTokenModel.findOne({ tenant_id: tenantId, hash }).lean<ApiTokenDoc>();
      return doc ? toRecord(doc) : null;
    },
    /** Tokens of the tenant whose id starts with `prefix` (an id, or the start of the token). */
    async findByIdPrefix(tenantId: string, prefix: string): Promise<ApiToken[]> {
      const escaped = prefix.replace(/[^0-9a-f]/gi, '');
      if (!escaped) return [];
      const docs = await ApiTokenModel.find({ tenant_id: tenantId, _id: { $regex: `^${escaped}` } }).lean<
        ApiTokenDoc[]
      >();
      return docs.map(toRecord);
    },
    async revoke(tenantId: string, id: string): Promise<void> {
      await ApiTokenModel.updateOne({ tenant_id: tenantId, _id: id }, { $set: { revoked_at: new Date() } });
    },
  };
}
export type TokensRepo = ReturnType<typeof tokensRepo>;

/** Every query this repository issues, as an index sees it (@kb/mongo query-shapes; docs/mongodb.md). */
export const TOKEN_QUERIES: QueryShape[] = [
  { collection: 'api_tokens', query: 'tokensRepo findByHash', eq: ['tenant_id', 'hash'] },
  // A prefix regex on the id: a range of the primary key.
  { collection: 'api_tokens', query: 'tokensRepo findByIdPrefix', range: ['_id'], residual: ['tenant_id'] },
  byIdQuery('api_tokens', 'tokensRepo revoke'),
];
