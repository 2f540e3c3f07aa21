/** DI tokens for the ports and services the HTTP shell depends on. */
export const INFRA = Symbol('INFRA');
export { CLOCK } from '@dojang/application';
/** The Notifier used by the API for messages it sends itself (SMS PINs). */
export const NOTIFIER = Symbol('NOTIFIER');
