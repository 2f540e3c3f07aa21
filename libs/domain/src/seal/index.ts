export * from './seal.events';
export * from './seal.decider';
