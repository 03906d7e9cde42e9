/** The shapes of the demo data: what tools/devstack/demo/ holds (read by data.ts) and the seeder writes. */

export type Language = 'en' | 'de';
export type WritableType = 'knowledge' | 'skill' | 'process' | 'glossary' | 'memory' | 'bootstrap';
export type Visibility = 'public' | 'community' | 'internal' | 'restricted';

/** The demo shop's site, as POST /sites takes it. */
export interface DemoSite {
  slug: string;
  name: string;
  domain: string;
  language: Language;
  site_type: string;
  platform: string;
  config: { languages: Language[]; currency: string };
}

export interface DemoCategory {
  /** Stable key; other data refers to the category by it. */
  key: string;
  name: string;
  description: string;
  /** The parent's key; absent: top level. */
  parent?: string;
  sort_order?: number;
}

export interface DemoEntry {
  /** Stable key: the entry's source_reference is `demo:<key>`, how a later start finds it. */
  key: string;
  category: string;
  type: WritableType;
  visibility: Visibility;
  language: Language;
  title: string;
  content: string;
  summary?: string;
  tags?: string[];
  metadata?: Record<string, unknown>;
  search_keywords?: string[];
  /** The key of the entry this one translates (same translation group). */
  translation_of?: string;
  /** Assigned to the demo site (customer-facing answers of the shop). */
  site?: boolean;
}

export interface DemoNote {
  key: string;
  category: string;
  title: string;
  content: string;
  language: Language;
  tags?: string[];
}

/** A product body as POST /products/bulk takes it. */
export interface DemoProduct {
  external_id: string;
  title: string;
  language: Language;
  [field: string]: unknown;
}
