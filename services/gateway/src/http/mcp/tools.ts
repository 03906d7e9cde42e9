import { Type, type Static, type TObject, type TSchema } from '@sinclair/typebox';
import { AppError } from '@kb/platform';
import type { RouteResult } from '../route';
import { Category, Uuid } from '../schemas';
import { Entry, EntrySearch, EntrySearchHit, PersonalEntryCreate } from '../entry-schemas';
import {
  Product,
  ProductSearch,
  Site,
  ProductSearchResponse,
  SimilarSearch,
  SimilarSearchResponse,
} from '../catalog-schemas';

/** A REST operation of the route table answered for the tool's caller (RouteTable.invoke). */
export type Operation = (
  operationId: string,
  input: { params?: unknown; query?: unknown; body?: unknown },
) => Promise<RouteResult>;

/** What a tool gave the assistant, for its span: entries as id and version, products as id. */
export interface Returned {
  entries: { id: string; version: number }[];
  products: string[];
}

export interface ToolAnswer {
  structured: Record<string, unknown>;
  text: string;
  returned: Returned;
}

export interface Tool<I extends TObject = TObject> {
  name: string;
  title: string;
  description: string;
  input: I;
  output: TObject;
  readOnly: boolean;
  run(args: Static<I>, operation: Operation): Promise<ToolAnswer>;
}

const define = <I extends TObject>(tool: Tool<I>): Tool => tool as unknown as Tool;

/** An object's listed properties, as the REST schema declares them, and nothing else. */
function subset<T extends TObject, K extends keyof T['properties'] & string>(schema: T, keys: K[]): TObject {
  const properties = Object.fromEntries(keys.map((k) => [k, schema.properties[k] as TSchema]));
  return Type.Object(properties, { additionalProperties: false });
}

type Hit = Static<typeof EntrySearchHit>;
type ProductHit = {
  id: string;
  title: string;
  brand?: string | null;
  price_current?: string | null;
  currency?: string;
};
type EntryJson = Static<typeof Entry>;

const none = (): Returned => ({ entries: [], products: [] });

function productLines(products: ProductHit[]): string {
  if (!products.length) return 'No products found.';
  return products
    .map((p, i) => {
      const price = p.price_current ? `, ${p.price_current} ${p.currency ?? ''}`.trimEnd() : '';
      return `${i + 1}. ${p.title}${p.brand ? ` (${p.brand})` : ''}${price} [product ${p.id}]`;
    })
    .join('\n');
}

/** A product search's answer (text or similar) as the tool gives it: the REST body, a list, the ids. */
function productsAnswer(body: unknown): ToolAnswer {
  const products = (body as { products: ProductHit[] }).products;
  return {
    structured: body as Record<string, unknown>,
    text: productLines(products),
    returned: { entries: [], products: products.map((p) => p.id) },
  };
}

const searchKnowledge = define({
  name: 'search_knowledge',
  title: 'Search the knowledge base',
  description:
    'Search the support knowledge base (articles, processes, glossary, skills) with a question or keywords, in any ' +
    'language the entries are written in. Returns the best matching entries, each with its best passages (the exact ' +
    'text that answers, with offsets into the entry) and a calibrated relevance from 0 to 1: at 0.5 and above the ' +
    'entry most likely answers. Set min_relevance to 0.5 to get an empty list when nothing answers, rather than ' +
    'weak matches. Narrow with site_id (the shop you serve, by id or slug: its entries only), tags (any of), ' +
    'updated_after, types or category_id. Use get_knowledge_entry for the whole text of a hit.',
  input: subset(EntrySearch, [
    'query',
    'limit',
    'passages',
    'min_relevance',
    'types',
    'category_id',
    'language',
    'site_id',
    'tags',
    'updated_after',
  ]),
  output: Type.Object({ hits: Type.Array(EntrySearchHit) }),
  readOnly: true,
  async run(args, operation) {
    // The passages are the answer; the whole content is one get_knowledge_entry away.
    const { body } = await operation('searchKnowledgeEntries', { body: { ...args, include_content: false } });
    const hits = body as Hit[];
    const text = hits.length
      ? hits
          .map((h, i) => {
            const { title, id, version } = h.entry;
            const head = `${i + 1}. ${title} (entry ${id}, version ${version}, relevance ${h.relevance.toFixed(2)})`;
            // Whole passages (at most 1,200 characters each): the answering sentence may be anywhere in one.
            return [head, ...h.passages.map((p) => `   > ${p.text.replace(/\s+/g, ' ')}`)].join('\n');
          })
          .join('\n')
      : 'Nothing in the knowledge base answers this.';
    return {
      structured: { hits },
      text,
      returned: { entries: hits.map((h) => ({ id: h.entry.id, version: h.entry.version })), products: [] },
    };
  },
});

const Offset = Type.Integer({ minimum: 0, description: 'An offset into the content, in UTF-16 code units' });

/** Where a part of an entry's content was taken from (get_knowledge_entry with start or end). */
const ContentRange = Type.Object(
  {
    start: Type.Integer({ minimum: 0 }),
    end: Type.Integer({ minimum: 0 }),
    length: Type.Integer({ minimum: 0, description: "The whole content's length" }),
  },
  { description: 'content is entry.content.slice(start, end) of the whole content, not all of it' },
);

const getKnowledgeEntry = define({
  name: 'get_knowledge_entry',
  title: 'Read a knowledge entry',
  description:
    'The whole knowledge entry with this id (as found by search_knowledge or in the skill index): title, full ' +
    'Markdown content, type, metadata (a process carries its steps, a skill its trigger_description), tags and ' +
    'version. With start and/or end (offsets into the content, as search_knowledge gives its passages), only that ' +
    'part of a long content, e.g. a passage with a couple of thousand characters either side; content_range then ' +
    'says which part it is.',
  input: Type.Object(
    { id: Uuid, start: Type.Optional(Offset), end: Type.Optional(Offset) },
    { additionalProperties: false },
  ),
  // content may be an empty part (start = end), so it is not the entry's content schema (at least 1 character).
  output: Type.Composite([
    Type.Omit(Entry, ['content']),
    Type.Object({ content: Type.String(), content_range: Type.Optional(ContentRange) }),
  ]),
  readOnly: true,
  async run({ id, start, end }, operation) {
    if (start !== undefined && end !== undefined && end < start)
      throw AppError.invalid([{ loc: ['body', 'end'], msg: 'end must not be before start', type: 'range' }]);
    const { body } = await operation('getKnowledgeEntry', { params: { entry_id: id } });
    const entry = body as EntryJson;
    const returned = { entries: [{ id: entry.id, version: entry.version }], products: [] };
    const head = `# ${entry.title}\n(entry ${entry.id}, version ${entry.version}, type ${entry.type}`;
    if (start === undefined && end === undefined)
      return {
        structured: entry as unknown as Record<string, unknown>,
        text: `${head})\n\n${entry.content}`,
        returned,
      };
    const range = contentRange(entry.content, start ?? 0, end ?? entry.content.length);
    const part = entry.content.slice(range.start, range.end);
    return {
      structured: { ...entry, content: part, content_range: range },
      text: `${head}; characters ${range.start}-${range.end} of ${range.length})\n\n${part}`,
      returned,
    };
  },
});

/** start and end clamped to the content, and moved off the middle of a surrogate pair (never half a character). */
export function contentRange(content: string, start: number, end: number): Static<typeof ContentRange> {
  const inside = (k: number) => {
    const at = Math.min(k, content.length);
    const low = content.charCodeAt(at);
    return at > 0 && at < content.length && low >= 0xdc00 && low <= 0xdfff ? at - 1 : at;
  };
  return { start: inside(start), end: inside(end), length: content.length };
}

const listCategories = define({
  name: 'list_categories',
  title: 'List knowledge categories',
  description:
    'The categories knowledge entries are filed in: the top level, or with parent_id the direct children of that ' +
    'category. Use a category id to narrow search_knowledge.',
  input: Type.Object({ parent_id: Type.Optional(Uuid) }, { additionalProperties: false }),
  output: Type.Object({ categories: Type.Array(Category) }),
  readOnly: true,
  async run(args, operation) {
    const { body } = await operation('listCategories', { query: args });
    const categories = body as Static<typeof Category>[];
    const text = categories.length
      ? categories.map((c) => `- ${c.name} [category ${c.id}]${c.description ? `: ${c.description}` : ''}`).join('\n')
      : 'No categories here.';
    return { structured: { categories }, text, returned: none() };
  },
});

const searchProducts = define({
  name: 'search_products',
  title: 'Search the product catalogue',
  description:
    "Find products in the shop's catalogue by words or a description of what the customer wants (keyword and " +
    'meaning combined; an exact SKU or GTIN comes first). Optional filters: site_id (the shop, uuid or slug), ' +
    'language, brand, category, availability, price_min and price_max (price_min must not exceed price_max).',
  input: Type.Object(ProductSearch.properties, { additionalProperties: false }),
  output: ProductSearchResponse,
  readOnly: true,
  run: async (args, operation) => productsAnswer((await operation('searchProducts', { body: args })).body),
});

const findSimilarProducts = define({
  name: 'find_similar_products',
  title: 'Find similar products',
  description:
    'Products most like the given ones (by the meaning of their descriptions, titles or images as the shop has set ' +
    'it up): alternatives to a product, or more like a set of products the customer liked. product_ids are product ' +
    'ids from search_products or get_product (1-10); the given products are never returned. Optional: site_id, ' +
    'language, limit, exclude_product_ids (e.g. those already shown), vector_field (which field to compare, or hybrid).',
  input: Type.Object(
    {
      product_ids: SimilarSearch.properties.anchor_product_ids,
      ...subset(SimilarSearch, ['limit', 'site_id', 'language', 'exclude_product_ids', 'vector_field']).properties,
    },
    { additionalProperties: false },
  ),
  output: SimilarSearchResponse,
  readOnly: true,
  run: async ({ product_ids, ...rest }, operation) =>
    productsAnswer(
      (await operation('searchSimilarProducts', { body: { anchor_product_ids: product_ids, ...rest } })).body,
    ),
});

const getProduct = define({
  name: 'get_product',
  title: 'Read a product',
  description:
    'The whole product with this id: title, descriptions, brand, category, prices (decimal strings) and currency, ' +
    'availability, attributes, ratings, links, and whether it is a variant of another product.',
  input: Type.Object({ id: Uuid }, { additionalProperties: false }),
  output: Product,
  readOnly: true,
  async run(args, operation) {
    const { body } = await operation('getProduct', { params: { product_id: args.id } });
    const p = body as Static<typeof Product>;
    const lines = [
      `# ${p.title}${p.brand ? ` (${p.brand})` : ''} [product ${p.id}]`,
      p.price_current ? `Price: ${p.price_current} ${p.currency}` : p.price_on_request ? 'Price on request' : '',
      p.availability ? `Availability: ${p.availability}` : '',
      p.description ?? '',
    ];
    return {
      structured: p as unknown as Record<string, unknown>,
      text: lines.filter(Boolean).join('\n'),
      returned: { entries: [], products: [p.id] },
    };
  },
});

/** Where a note goes when the assistant names no category: one called like this, else the first at the top level. */
const NOTES_CATEGORY = /^(personal notes|notes|notizen|persönliche notizen)$/i;

const savePersonalNote = define({
  name: 'save_personal_note',
  title: 'Save a personal note',
  description:
    'Save a private note for the user you act for (only they ever see it): something to remember across ' +
    'conversations, such as a preference or an open task. It is searchable by them afterwards. Needs write access ' +
    '(knowledge:write). category_id is optional: without it the note is filed under "Personal notes" if that ' +
    'category exists, else under the first top-level category.',
  input: Type.Object(
    { ...subset(PersonalEntryCreate, ['title', 'content', 'tags']).properties, category_id: Type.Optional(Uuid) },
    { additionalProperties: false },
  ),
  output: Entry,
  readOnly: false,
  async run(args, operation) {
    const category_id = args.category_id ?? (await defaultCategory(operation));
    const { body } = await operation('createPersonalEntry', { body: { ...args, category_id } });
    const entry = body as EntryJson;
    return {
      structured: entry as unknown as Record<string, unknown>,
      text: `Saved note "${entry.title}" (entry ${entry.id}, version ${entry.version}).`,
      returned: { entries: [{ id: entry.id, version: entry.version }], products: [] },
    };
  },
});

async function defaultCategory(operation: Operation): Promise<string> {
  const roots = (await operation('listCategories', { query: {} })).body as { id: string; name: string }[];
  const chosen = roots.find((c) => NOTES_CATEGORY.test(c.name)) ?? roots[0];
  if (!chosen) {
    throw AppError.invalid([
      { loc: ['body', 'category_id'], msg: 'No category to file the note in: send category_id', type: 'missing' },
    ]);
  }
  return chosen.id;
}

const listSites = define({
  name: 'list_sites',
  title: 'List the shops',
  description:
    'The shops (sales channels) of this knowledge base: slug, name, domain, language, and which one is the default. ' +
    "Pass a shop's slug or id as site_id to search_knowledge, search_products or find_similar_products to stay " +
    'within the shop the customer is in.',
  input: Type.Object({}, { additionalProperties: false }),
  output: Type.Object({ sites: Type.Array(Site) }),
  readOnly: true,
  async run(_args, operation) {
    const { body } = await operation('listSites', {});
    const sites = body as Static<typeof Site>[];
    const text = sites.length
      ? sites
          .map(
            (s) =>
              `- ${s.name} [site ${s.id}, slug ${s.slug}]` +
              `${s.domain ? `, ${s.domain}` : ''}, language ${s.language}${s.is_default ? ', the default' : ''}`,
          )
          .join('\n')
      : 'No shops here.';
    return { structured: { sites }, text, returned: none() };
  },
});

/** The tools, in the order tools/list gives them. */
export const TOOLS: Tool[] = [
  searchKnowledge,
  getKnowledgeEntry,
  listCategories,
  searchProducts,
  findSimilarProducts,
  getProduct,
  listSites,
  savePersonalNote,
];
