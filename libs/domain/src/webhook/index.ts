export * from './webhook-endpoint.events';
export * from './webhook-endpoint.decider';
