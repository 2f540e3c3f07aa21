export * from './esdb-event-store.adapter';
