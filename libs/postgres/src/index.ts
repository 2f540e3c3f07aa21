export * from './pool';
export * from './migrations';
export * from './prepared';
export * from './listening-connection';
export * from './checkout';
