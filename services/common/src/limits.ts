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

/** Bounds on the shape of every JSON body, checked before any schema or service sees it. */
export const JSON_LIMITS = {
  /** Nesting levels, the body itself included: deeper bodies are refused before anything recurses into them. */
  maxDepth: 32,
  /** Keys of one object (free-form objects such as metadata, config, attributes, properties). */
  maxKeys: 200,
  /** Characters of one key. */
  maxKeyLength: 128,
} as const;
