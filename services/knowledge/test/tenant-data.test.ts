/** The tenant's collections as export, import and purge see them: every collection the service owns is declared. */
import mongoose from 'mongoose';
import { knowledgeModels } from '../src/data-access/models';
import { KNOWLEDGE_TENANT_COLLECTIONS } from '../src/admin/tenant-data';

test('when a collection is added to the models, then it is declared for tenant export, import and purge', () => {
  const connection = mongoose.createConnection();
  const owned = Object.values(knowledgeModels(connection)).map((m) => m.collection.collectionName);
  const declared = KNOWLEDGE_TENANT_COLLECTIONS.map((c) => c.name);
  // knowledge_leases is a raw collection (entries-repo.ts), declared too.
  expect(new Set(declared)).toEqual(new Set([...owned, 'knowledge_leases']));
});

test('when a tenant is exported, then API tokens (their hashes included) are not', () => {
  const tokens = KNOWLEDGE_TENANT_COLLECTIONS.find((c) => c.name === 'api_tokens');
  expect(tokens?.exported).toBe(false);
});
