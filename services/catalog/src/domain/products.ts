// The product use cases live in ./products/ (one file each); this module keeps the import path
// '…/domain/products' that the indexer, the admin CLI and the gRPC layer use.
export * from './products/index';
