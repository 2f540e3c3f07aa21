export * from './bulk-rows';
export * from './bulk-send.service';
export * from './bulk-send.reactor';
export * from './orphaned-reservation.sweeper';
