export * from './role-assignments';
export * from './template-send.service';
export * from './template-layout';
