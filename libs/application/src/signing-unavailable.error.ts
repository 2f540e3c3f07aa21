/**
 * The document could not be signed because something it needs is away: the timestamp authority,
 * an OCSP responder or CRL (B-LT), the PKCS#11 token or the remote signer. Nothing was written;
 * the same request succeeds once it is back (503, not 500: the client did nothing wrong).
 */
export class SigningUnavailableError extends Error {
  constructor(readonly cause: string) {
    super(`The document cannot be signed right now: ${cause}. Nothing was recorded; retry shortly.`);
    this.name = 'SigningUnavailableError';
  }
}

/**
 * The prefix a pool job puts before the message of an error that means "signing unavailable":
 * an error's class does not survive the trip back from a worker thread, its message does.
 */
export const SIGNING_UNAVAILABLE_PREFIX = 'signing_unavailable: ';

/** The worker's error as a SigningUnavailableError when it says so; otherwise unchanged. */
export function signingUnavailableOf(error: unknown): unknown {
  const message = (error as Error | undefined)?.message;
  if (typeof message === 'string' && message.startsWith(SIGNING_UNAVAILABLE_PREFIX)) return new SigningUnavailableError(message.slice(SIGNING_UNAVAILABLE_PREFIX.length));
  return error;
}
