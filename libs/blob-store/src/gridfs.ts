export * from './gridfs-blob-store.adapter';
