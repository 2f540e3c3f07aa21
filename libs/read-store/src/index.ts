// The port only: each backend has its own entry point (`@dojang/read-store/sqlite`, `/postgres`,
// `/mongo`), so a process loads only the driver it uses.
export * from './read-store.port';
