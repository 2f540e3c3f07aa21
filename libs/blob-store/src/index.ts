// The port only: each backend has its own entry point (`@dojang/blob-store/file`, `/postgres`,
// `/gridfs`), so a process loads only the driver it uses.
export * from './blob-store.port';
export * from './cached-blob-store';
export * from './sized-lru';
