export * from './webhook-secret-box';
export * from './webhook-deliveries';
export * from './webhook-delivery.reactor';
export * from './webhook-dispatcher';
export * from './delivery-loop';
