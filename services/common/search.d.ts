export * from './dist/search/index';
