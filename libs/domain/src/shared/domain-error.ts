/**
 * Domain errors carry the public error code (SPEC.md) and what kind of failure it is; the HTTP
 * shell maps the kind to a status. The domain itself knows nothing of HTTP.
 */
export type DomainErrorKind =
  | 'invalid' // 400: the request is malformed or names something impossible
  | 'precondition' // 400: a state precondition the client must fix first (send checks)
  | 'not_found' // 404
  | 'conflict' // 409: the current state forbids it
  | 'payment_required' // 402
  | 'too_large' // 413: an input over a size limit
  | 'too_many' // 429: slow down (cooldowns)
  | 'gone'; // 410: it existed and its time is over (a download window)

export class DomainError extends Error {
  readonly name = 'DomainError';
  constructor(
    readonly kind: DomainErrorKind,
    readonly code: string,
    message: string,
    readonly param?: string,
    /** For 'too_many': when the client may try again. */
    readonly retryAfterSeconds?: number,
  ) {
    super(message);
  }
}

export const invalid = (code: string, message: string, param?: string) => new DomainError('invalid', code, message, param);
export const notFound = (code: string, message: string) => new DomainError('not_found', code, message);
export const conflict = (code: string, message: string) => new DomainError('conflict', code, message);
