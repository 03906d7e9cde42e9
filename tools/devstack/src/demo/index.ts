export { seedDemoData, demoReference, type SeedOptions, type SeedResult, type SeedCounts } from './seed';
export {
  DEMO_ANSWER_SNIPPET,
  DEMO_CATEGORIES,
  DEMO_ENTRIES,
  DEMO_EXAMPLE_PRODUCT,
  DEMO_NOTES,
  DEMO_QUESTION,
  DEMO_SITE,
} from './data';
export { DEMO_PRODUCTS_VERSION, demoProducts } from './products';
