/** DI tokens for the ports and services the HTTP shell depends on. */
export const INFRA = Symbol('INFRA');
export { CLOCK } from '@dojang/application';
/** The Notifier used by the API for messages it sends itself (SMS PINs). */
export const NOTIFIER = Symbol('NOTIFIER');
/** The same Notifier when the app made it (createApp without one), so the app closes it; else null (its maker does). */
export const OWNED_NOTIFIER = Symbol('OWNED_NOTIFIER');
/** Resolves webhook host names at registration (HostResolver); tests inject answers, production uses the system's. */
export const WEBHOOK_HOST_RESOLVER = Symbol('WEBHOOK_HOST_RESOLVER');
