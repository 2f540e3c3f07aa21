export * from './pool';
export * from './migrations';
