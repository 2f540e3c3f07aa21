export * from './usage.reactor';
