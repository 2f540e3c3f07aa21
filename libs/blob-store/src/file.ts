export * from './file-blob-store.adapter';
