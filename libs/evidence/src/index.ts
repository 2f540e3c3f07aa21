/**
 * Evidence for Dojang: what makes a record provable. The installation's signing identity and
 * evidence key, signing keys (PKCS#12, PKCS#11, remote signers), CMS (CAdES) signed data, RFC 3161
 * timestamps, PAdES signatures with their LTV material, and the check of a certificate's chain and
 * revocation before anything is signed. The costly parts run in the PDF pool (libs/pdf/src/pool),
 * whose handlers call them; the verifier's revocation rules are shared (libs/verifier).
 */
export { signPdf, countersignPdf, readPdfEvidence, sha256Hex, PADES_SUBFILTER, type SignPdfOptions } from './sign-pdf';
export {
  loadOrCreateSigningIdentity,
  loadSigningIdentity,
  evidenceKeyOf,
  GENERATED_CERTIFICATE_CN,
  type SigningIdentity,
  type SigningIdentityOptions,
} from './signing-identity';
export { TimestampError, requestTimestampToken } from './rfc3161-timestamp';
export { inspectSigningP12, SigningP12Error, type SigningP12Problem, type SigningCertificateSummary } from './organization-certificate';
export { signerFromSpec, probeSigningKey, SigningKeyError, type SigningKeySpec } from './signing-key';
export {
  extendPades,
  addDss,
  addDocumentTimestamp,
  collectValidationMaterial,
  newestTimestampExpiry,
  newestDocumentTimestampTime,
  LtvError,
  SigningCertificateInvalidError,
  PADES_LEVELS,
  DOCUMENT_TIMESTAMP_SUBFILTER,
  type PadesLevel,
  type ValidationMaterial,
} from './pades-ltv';
export { buildEvidenceBundle, eventsJsonl, type EvidenceParts, type Zipper } from './evidence-bundle';
