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

/**
 * The certificate that would sign (the installation's, an organization's) or the TSA's that would
 * timestamp is revoked, expired or not yet valid (libs/evidence/src/revocation-check.ts): nothing was
 * signed or recorded. 503, not 4xx: the signer did nothing wrong, and the same request completes
 * once the operator (or the organization) configures a valid key.
 */
export class SigningCertificateInvalidError extends Error {
  constructor(readonly reason: string) {
    super(`The document cannot be signed: ${reason}. Nothing was recorded; it completes once a valid certificate is configured.`);
    this.name = 'SigningCertificateInvalidError';
  }
}

export const SIGNING_CERTIFICATE_INVALID_PREFIX = 'signing_certificate_invalid: ';

/** The worker's error as a SigningUnavailableError or SigningCertificateInvalidError when it says so; otherwise unchanged. */
export function signingUnavailableOf(error: unknown): unknown {
  const message = (error as Error | undefined)?.message;
  if (typeof message === 'string' && message.startsWith(SIGNING_CERTIFICATE_INVALID_PREFIX)) return new SigningCertificateInvalidError(message.slice(SIGNING_CERTIFICATE_INVALID_PREFIX.length));
  if (typeof message === 'string' && message.startsWith(SIGNING_UNAVAILABLE_PREFIX)) return new SigningUnavailableError(message.slice(SIGNING_UNAVAILABLE_PREFIX.length));
  return error;
}
