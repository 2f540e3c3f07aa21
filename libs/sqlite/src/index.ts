// SQLite helpers shared by the SQLite adapters (the counterpart of libs/postgres): better-sqlite3 only.
export * from './sqlite-busy';
