export * from './template.events';
export * from './template.decider';
