export * from './bulk-rows';
export * from './bulk-send.service';
export * from './bulk-send.reactor';
