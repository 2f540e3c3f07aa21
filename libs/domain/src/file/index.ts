export * from './file.events';
export * from './file.decider';
