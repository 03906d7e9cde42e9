/**
 * @kb/rules: The API's rules on input: validation issues, field and JSON limits, entry vocabulary
 * and metadata schemas, exact decimals, the product input schema, the parent guard (a parent in use is not deleted).
 */
export * from './entry-metadata';
export * from './entry-vocabulary';
export * from './exact-json';
export * from './json-shape';
export * from './limits';
export * from './product-input';
export * from './validation';
export * from './parent-guard';
