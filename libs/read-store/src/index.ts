export * from './read-store.port';
export * from './sqlite-read-store.adapter';
export * from './mongo-read-store.adapter';
