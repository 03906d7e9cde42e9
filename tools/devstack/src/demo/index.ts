export { seedDemoData, demoReference, type SeedOptions, type SeedResult, type SeedCounts } from './seed';
export { DEMO_ANSWER_SNIPPET, DEMO_ENTRIES, DEMO_QUESTION } from './data/entries';
export { DEMO_CATEGORIES } from './data/categories';
export { DEMO_NOTES } from './data/notes';
export { DEMO_EXAMPLE_PRODUCT, DEMO_PRODUCTS_VERSION, demoProducts } from './data/products';
export { DEMO_SITE } from './data/site';
