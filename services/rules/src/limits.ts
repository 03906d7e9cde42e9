/**
 * Bounds on what a request may carry where the interface leaves it open. One table, shared by
 * the gateway's schemas (and so the OpenAPI document) and the catalog's own product input (the
 * import CLI does not pass through the gateway). Each is chosen well above what a shop or
 * support integration sends, and below what trips a driver, an index or a log line.
 */
export const FIELD_LIMITS = {
  /** Product title: marketplaces cap titles at 200-500 characters. */
  productTitle: 1000,
  /** Long prose: entry content, product description, embedding texts (~15,000 words; the embedder reads far less). */
  longText: 100_000,
  /** Shorter prose: entry summary, product short_description, similarity_text, category description. */
  text: 10_000,
  /** A product's category path, e.g. "Sport > Running > Trail shoes". */
  category: 500,
  /** Names and references: site platform, parent_external_id (an external_id, max 200), product ids in searches. */
  name: 200,
  /** URLs: image_url, product_url, each additional image, site domain, entry source_reference. */
  url: 2048,
  /** One item of tags or search_keywords. */
  listItem: 200,
  /** Items of tags, search_keywords. */
  listItems: 100,
  /** Items of additional_images. */
  images: 50,
  /** Items of project_ids. */
  projectIds: 100,
  /** Items of exclude_product_ids in a similar search (a page or a basket of products). */
  excludeIds: 1000,
  /** Integers that cross gRPC as int32 or are indexed as an integer: sort_order, rating_count. */
  int32: 2_147_483_647,
} as const;

/**
 * Products in one bulk upsert: the gateway's schema publishes it, the catalog enforces it for
 * callers that reach it directly.
 */
export const BULK_LIMIT = 1000;

/** A page of a listing (entries, an entry's versions or translations): its size when not asked, and at most. */
export const PAGE_LIMITS = { default: 100, max: 500 } as const;

/** Bounds on the shape of every JSON body, checked before any schema or service sees it. */
export const JSON_LIMITS = {
  /** Nesting levels, the body itself included: deeper bodies are refused before anything recurses into them. */
  maxDepth: 32,
  /** Keys of one object (free-form objects such as metadata, config, attributes, properties). */
  maxKeys: 200,
  /** Characters of one key. */
  maxKeyLength: 128,
} as const;

/**
 * Bytes of the items of one answer that lists entries (a page of entries, an entry's versions or
 * translations, entry search hits), measured as their messages' JSON. A gRPC message is capped at
 * 16 MiB and one entry may hold about 1 MiB (content and metadata within the body limit), so a
 * page of 500 could pass the cap; half of it leaves room for the message's envelope and for one
 * oversized first item. The REST body the gateway writes from such a message stays within the
 * budget too (each item's allowance covers the nulls and brackets the REST view adds).
 * An answer is cut short when its next item would pass the budget (the first item always goes),
 * and a paged answer's next cursor continues right after its last item.
 */
export const ANSWER_BYTE_BUDGET = 8 * 1024 * 1024;

/**
 * What one item of an answer counts against the budget: its message's JSON in UTF-8 bytes (at
 * least its protobuf encoding: every string is at least as long, every field name longer than a
 * tag) plus 512 bytes for the nulls and field names the REST view adds.
 */
export function answerItemBytes(message: unknown): number {
  return Buffer.byteLength(JSON.stringify(message) ?? '', 'utf8') + 512;
}

/**
 * The running total of one answer against a byte budget. `admit` says whether an item of that size
 * still goes into the answer (and counts it when it does): the first item always does, so a page
 * is never empty; after it, only while the total stays within the budget. Once an item is refused
 * the answer is closed: nothing after it is admitted either, so the answer is a prefix of the
 * items in order and a cursor after its last item loses nothing.
 */
export class AnswerBudget {
  private used = 0;
  private admitted = 0;
  private closed = false;

  constructor(readonly budget: number = ANSWER_BYTE_BUDGET) {}

  admit(bytes: number): boolean {
    if (this.closed) return false;
    if (this.admitted > 0 && this.used + bytes > this.budget) {
      this.closed = true;
      return false;
    }
    this.used += bytes;
    this.admitted += 1;
    return true;
  }

  /** Bytes admitted so far. */
  get bytes(): number {
    return this.used;
  }
}

/** The longest prefix of `items` whose sizes fit the budget (at least the first item). */
export function withinBudget<T>(items: readonly T[], size: (item: T) => number, budget = ANSWER_BYTE_BUDGET): T[] {
  const b = new AnswerBudget(budget);
  const kept: T[] = [];
  for (const item of items) {
    if (!b.admit(size(item))) break;
    kept.push(item);
  }
  return kept;
}
