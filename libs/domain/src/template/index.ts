export * from './template.events';
export * from './template.decider';
export * from './template-instance';
