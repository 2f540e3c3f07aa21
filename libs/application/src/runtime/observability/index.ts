export * from './logger';
export * from './metrics';
export * from './tracing';
export * from './instrumented-event-store';
export * from './lag';
