export * from './webhook-signature';
export * from './network-address.policy';
export * from './webhook-url.validator';
export * from './safe-http.delivery';
export * from './retry.schedule';
