export * from './clock';
export * from './command-handler';
export * from './config';
export * from './infrastructure';
export * from './secrets';
export * from './ids';
export * from './admin.service';
