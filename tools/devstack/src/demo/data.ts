/**
 * The demo data, read from tools/devstack/demo/ (see its README): the site, the category tree,
 * the knowledge entries (the long articles as Markdown files), the demo user's notes and what the
 * start banner shows. The files are read where the package lies, not copied into dist/: this
 * module sits two levels below the package in src/demo/ and in dist/demo/ alike.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { DemoCategory, DemoEntry, DemoNote, DemoSite } from './types';

const DEMO_DIR = path.join(__dirname, '..', '..', 'demo');

function readDemoFile(file: string): string {
  return readFileSync(path.join(DEMO_DIR, file), 'utf8');
}

export function readDemoJson<T>(file: string): T {
  return JSON.parse(readDemoFile(file)) as T;
}

/** An entry as entries.json writes it: a long article names its Markdown file instead of holding its content. */
type EntryRecord = Omit<DemoEntry, 'content'> & ({ content: string } | { content_file: string });

function withContent(record: EntryRecord): DemoEntry {
  if ('content' in record) return record;
  const { content_file, ...entry } = record;
  return { ...entry, content: readDemoFile(content_file) };
}

/** The demo shop's site (POST /sites body); found again by its slug. */
export const DEMO_SITE: DemoSite = readDemoJson('site.json');

/** The category tree of the demo shop (parents before children). */
export const DEMO_CATEGORIES: DemoCategory[] = readDemoJson('categories.json');

/**
 * The demo knowledge entries: every writable type, long articles, English and German with
 * translations, tags, and visibility from public to restricted (a Viewer sees the public and
 * community ones only). Sources come before their translations.
 */
export const DEMO_ENTRIES: DemoEntry[] = readDemoJson<EntryRecord[]>('entries.json').map(withContent);

/** Personal notes of the demo user (the user of the token npm start prints); only that user sees them. */
export const DEMO_NOTES: DemoNote[] = readDemoJson('notes.json');

const banner = readDemoJson<{
  question: string;
  answer_snippet: string;
  example_product: { external_id: string; sku: string; title: string };
}>('banner.json');

/** The banner's and the README's example question; its answer sits in the middle of the returns article. */
export const DEMO_QUESTION = banner.question;
/** A sentence of the passage that answers DEMO_QUESTION. */
export const DEMO_ANSWER_SNIPPET = banner.answer_snippet;
/** The banner's similar-products anchor: a variant of the Aurora 2 tent, in English. */
export const DEMO_EXAMPLE_PRODUCT = banner.example_product;
