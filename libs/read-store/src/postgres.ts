export * from './postgres-read-store.adapter';
export * from './postgres-projector-seat';
