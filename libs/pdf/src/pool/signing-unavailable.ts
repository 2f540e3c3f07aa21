/**
 * Errors that mean "an authority or a key is away" (the TSA, an OCSP responder or CRL, a PKCS#11
 * token, a remote signer) leave the worker with this prefix on their message: a class does not
 * survive the trip back from a worker thread. The application reads it back as a 503
 * (libs/application/src/signing-unavailable.error.ts).
 */
export const SIGNING_UNAVAILABLE_PREFIX = 'signing_unavailable: ';
const UNAVAILABLE = new Set(['TimestampError', 'LtvError', 'SigningKeyError']);

/** A certificate that would sign or timestamp is revoked, expired or not yet valid (revocation-check.ts). */
export const SIGNING_CERTIFICATE_INVALID_PREFIX = 'signing_certificate_invalid: ';

export function asSigningUnavailable(error: unknown): unknown {
  const e = error as Error | undefined;
  if (e?.name === 'SigningCertificateInvalidError' && !e.message.startsWith(SIGNING_CERTIFICATE_INVALID_PREFIX)) return new Error(`${SIGNING_CERTIFICATE_INVALID_PREFIX}${e.message}`);
  if (e && UNAVAILABLE.has(e.name) && !e.message.startsWith(SIGNING_UNAVAILABLE_PREFIX)) return new Error(`${SIGNING_UNAVAILABLE_PREFIX}${e.message}`);
  return error;
}
