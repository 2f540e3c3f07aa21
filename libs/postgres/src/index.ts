export * from './pool';
export * from './migrations';
export * from './prepared';
