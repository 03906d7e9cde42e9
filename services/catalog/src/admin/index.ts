export * from './products';
export * from './tenant-data';
