import { embeddingTexts } from '@kb/catalog';
import type { BenchProduct } from './catalogue';

/** A product's non-empty embedding texts, as the catalog builds them. */
export const textsOf = (p: BenchProduct) =>
  Object.values(
    embeddingTexts({
      ...p,
      short_description: p.short_description,
      embedding_text_description: null,
      embedding_text_properties: null,
      embedding_text_attributes: null,
    }),
  ).filter((t): t is string => typeof t === 'string' && t.trim() !== '');
