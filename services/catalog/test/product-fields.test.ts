import { Types } from 'mongoose';
import {
  fieldsOf,
  hasSimilarityAnchor,
  keepsVectors,
  parentIdOf,
  planWrite,
  sameFields,
} from '../src/domain/products/fields';
import { embeddingsStatus } from '../src/domain/products/write';
import { withDecimal128 } from '../src/data-access/decimals';
import { storedProduct } from './support';

const now = new Date('2026-02-01T00:00:00Z');
const minimal = { title: 'Chair', language: 'de' };

describe('product fields on upsert', () => {
  test('when fields are omitted, then they take their defaults (null, false, EUR, 0, empty collections)', () => {
    const f = fieldsOf(minimal, 'api');
    expect(f).toMatchObject({
      external_id: null,
      description: null,
      price_current: null,
      price_on_request: false,
      currency: 'EUR',
      rating_count: 0,
      is_variant: false,
      is_parent: false,
      attributes: {},
      properties: {},
      additional_images: [],
      search_keywords: [],
      source: 'api',
    });
  });

  test('when two products are written, then their default collections are not the same object', () => {
    expect(fieldsOf(minimal, 'api').attributes).not.toBe(fieldsOf(minimal, 'api').attributes);
  });

  test('when a price is sent as a decimal string, then it is stored as that exact Decimal128', () => {
    // The domain keeps the exact decimal string; data-access stores it as Decimal128.
    const f = withDecimal128(fieldsOf({ ...minimal, price_current: '0.10000000000000000001' }, 'import'));
    expect(f.price_current).toBeInstanceOf(Types.Decimal128);
    expect(String(f.price_current)).toBe('0.10000000000000000001');
    expect(f.source).toBe('import');
  });

  test('when the similarity text is blank, then the product is no similarity anchor; with text it is', () => {
    expect(hasSimilarityAnchor({ similarity_text: '   ' })).toBe(false);
    expect(hasSimilarityAnchor({ similarity_text: null })).toBe(false);
    expect(hasSimilarityAnchor({ similarity_text: 'like a throne' })).toBe(true);
  });

  test('when the sync_hash is the stored one, then the vectors are kept; when it differs or is null, then not', () => {
    expect(keepsVectors(storedProduct({ sync_hash: 'h1' }), { sync_hash: 'h1' })).toBe(true);
    expect(keepsVectors(storedProduct({ sync_hash: 'h1' }), { sync_hash: 'h2' })).toBe(false);
    expect(keepsVectors(storedProduct({ sync_hash: null }), { sync_hash: null })).toBe(false);
    expect(keepsVectors(null, { sync_hash: 'h1' })).toBe(false);
  });

  test('when the parent is the product itself or absent, then it has no parent id', () => {
    const parent = storedProduct({ id: 'p1' });
    expect(parentIdOf(parent, 'c1')).toBe('p1');
    expect(parentIdOf(parent, 'p1')).toBeNull();
    expect(parentIdOf(null, 'c1')).toBeNull();
  });

  test('when the stored product has the same content from another channel, then the write is unchanged', () => {
    const existing = storedProduct({ source: 'import' });
    const fields = fieldsOf({ ...minimal, external_id: 'ext-1' }, 'api');
    expect(sameFields(existing, fields)).toBe(true);
    expect(planWrite(fields, existing, null, now)).toEqual({ kind: 'unchanged', existing });
  });

  test('when one field differs, then the write is a new version keyed by the external id, keeping the translation group', () => {
    const existing = storedProduct({ translation_group_id: 'g1' });
    const plan = planWrite(fieldsOf({ ...minimal, external_id: 'ext-1', brand: 'Acme' }, 'api'), existing, null, now);
    expect(plan.kind).toBe('write');
    if (plan.kind !== 'write') return;
    expect(plan.key).toBe('ext-1');
    expect(plan.set).toMatchObject({
      brand: 'Acme',
      translation_group_id: 'g1',
      needs_index: true,
      last_synced_at: now,
      updated_at: now,
    });
  });

  test('when a product has no external id, then its key is its new id', () => {
    const plan = planWrite(fieldsOf(minimal, 'api'), null, null, now);
    expect(plan.kind === 'write' && plan.key === plan.newId).toBe(true);
  });

  test('when a variant names a stored parent, then it points at the parent; with no parent stored yet, then at none', () => {
    const fields = fieldsOf({ ...minimal, external_id: 'v1', parent_external_id: 'ext-1', is_variant: true }, 'api');
    const withParent = planWrite(fields, null, storedProduct(), now);
    const waiting = planWrite(fields, null, null, now);
    expect(withParent.kind === 'write' && withParent.set.parent_product_id).toBe(storedProduct().id);
    expect(waiting.kind === 'write' && waiting.set.parent_product_id).toBeNull();
  });

  test('when the sync_hash is unchanged but content changed, then the plan reuses the vectors', () => {
    const plan = planWrite(
      fieldsOf({ ...minimal, external_id: 'ext-1', sync_hash: 'h', brand: 'B' }, 'api'),
      storedProduct({ sync_hash: 'h' }),
      null,
      now,
    );
    expect(plan.kind === 'write' && plan.reuseVectors && plan.set.reuse_vectors).toBe(true);
  });

  test('when a write is unchanged or keeps its vectors, then embeddings are skipped; else recomputed once indexed, pending before', () => {
    expect(embeddingsStatus({ status: 'unchanged', reuseVectors: false }, false)).toBe('skipped');
    expect(embeddingsStatus({ status: 'updated', reuseVectors: true }, true)).toBe('skipped');
    expect(embeddingsStatus({ status: 'created', reuseVectors: false }, true)).toBe('recomputed');
    expect(embeddingsStatus({ status: 'created', reuseVectors: false }, false)).toBe('pending');
  });
});
