export * from './postgres-read-store.adapter';
