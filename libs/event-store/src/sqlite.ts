export * from './sqlite-event-store.adapter';
