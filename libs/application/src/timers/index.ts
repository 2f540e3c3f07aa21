export * from './timers';
export * from './document-timers.reactor';
export * from './timer-service';
