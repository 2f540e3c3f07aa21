export * from './postgres-blob-store.adapter';
