// The port and the hash chain only: each backend has its own entry point
// (`@dojang/event-store/sqlite`, `/postgres`, `/esdb`), so a process loads only the driver it uses.
export * from './event-store.port';
export * from './hash-chain';
export * from './storable-events';
