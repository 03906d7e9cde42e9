export * from './dist/mongo/index';
