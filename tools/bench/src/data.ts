/**
 * The benchmark's word lists, read from tools/bench/data/ (see its README): the catalogue's words
 * (catalogue.ts) and the embedder benchmark's (embedder.ts). The files are read where the package
 * lies, not copied into dist/: this module sits one level below the package in src/ and in dist/
 * alike.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';

const DATA_DIR = path.join(__dirname, '..', 'data');

function readDataFile<T>(file: string): T {
  return JSON.parse(readFileSync(path.join(DATA_DIR, file), 'utf8')) as T;
}

interface ByLanguage {
  en: string[];
  de: string[];
}

/** What catalogue-words.json holds; `kinds.de[i]` is `kinds.en[i]` in German. */
export interface CatalogueWords {
  kinds: ByLanguage;
  traits: ByLanguage;
  uses: ByLanguage;
  colours: string[];
  materials: string[];
  sizes: string[];
  brands: string[];
  categories: string[];
  availability: string[];
  entry_topics: string[];
  entry_asks: string[];
}

export const CATALOGUE_WORDS: CatalogueWords = readDataFile('catalogue-words.json');
// A product's kind is drawn once and named in its language, so the two lists go in step.
if (CATALOGUE_WORDS.kinds.en.length !== CATALOGUE_WORDS.kinds.de.length) {
  throw new Error('catalogue-words.json: kinds.en and kinds.de must name the same kinds in the same order');
}

/** What embedder-words.json holds: the words of the embedder benchmark's product texts. */
export interface EmbedderWords {
  kinds: string[];
  traits: string[];
  colours: string[];
}

export const EMBEDDER_WORDS: EmbedderWords = readDataFile('embedder-words.json');
