/** DI tokens for the ports and services the HTTP shell depends on. */
export const INFRA = Symbol('INFRA');
export { CLOCK } from '@dojang/application';
