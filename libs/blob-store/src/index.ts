export * from './blob-store.port';
export * from './file-blob-store.adapter';
