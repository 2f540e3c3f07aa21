/** DI tokens for the ports and services the HTTP shell depends on. */
export const INFRA = Symbol('INFRA');
export { CLOCK } from '@dojang/application';
/** The Notifier used by the API for messages it sends itself (SMS PINs). */
export const NOTIFIER = Symbol('NOTIFIER');
/** Resolves webhook host names at registration (HostResolver); tests inject answers, production uses the system's. */
export const WEBHOOK_HOST_RESOLVER = Symbol('WEBHOOK_HOST_RESOLVER');
