export * from './event-store.port';
export * from './hash-chain';
export * from './sqlite-event-store.adapter';
export * from './esdb-event-store.adapter';
