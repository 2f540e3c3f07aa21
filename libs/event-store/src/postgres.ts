export * from './postgres-event-store.adapter';
export * from './postgres-event-store.migrations';
