export * from './sqlite-read-store.adapter';
