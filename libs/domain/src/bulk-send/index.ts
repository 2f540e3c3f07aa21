export * from './bulk-send.events';
export * from './bulk-send.decider';
