export * from './products';
