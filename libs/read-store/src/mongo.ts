export * from './mongo-read-store.adapter';
