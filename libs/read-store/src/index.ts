export * from './read-store.port';
export * from './sqlite-read-store.adapter';
