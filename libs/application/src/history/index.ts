export * from './delivery-evidence';
export * from './document-history';
export * from './history-masking';
export * from './stream-replay';
