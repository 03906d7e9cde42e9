/**
 * Bounds on values the interface leaves unbounded, shared by the gateway's schemas and the
 * catalog's own product input (the import CLI does not pass through the gateway). Chosen well
 * above what a shop or support integration sends, and below what trips an index or a log.
 */
export const FIELD_LIMITS = {
  /** A product's category path, e.g. "Sport > Running > Trail shoes". */
  category: 500,
  /** One item of tags or search_keywords. */
  listItem: 200,
  /** Items of tags, search_keywords. */
  listItems: 100,
  /** image_url, product_url, each additional image. */
  url: 2048,
  /** Items of additional_images. */
  images: 50,
} as const;
