export * from './blob-store.port';
export * from './file-blob-store.adapter';
export * from './gridfs-blob-store.adapter';
