import { createHash, verify, X509Certificate } from 'node:crypto';
import * as asn1js from 'asn1js';
import * as pkijs from 'pkijs';

/**
 * One judge of revocation data (RFC 6960 OCSP responses, RFC 5280 CRLs) for the signing side (the
 * PDF pool checks a certificate before it signs, libs/evidence/src/revocation-check.ts) and for every
 * verifier (verifyLtv, the bundle's PAdES check, the public verify page), so what signing refuses
 * is what verification fails.
 *
 * Fail closed: a response or list that is not readable, not successful, not about this certificate
 * (CertID: serial, issuer name and key hashes), not signed by the issuer or a responder the issuer
 * authorized (id-kp-OCSPSigning), or stale (its nextUpdate before the time judged) is no data:
 * `unknown`, never `good`. Parsing is pkijs/asn1js; signatures are checked with Node's crypto
 * over the bytes as received (tbsView), never a re-encoding.
 */

export type RevocationVerdict =
  | { status: 'good'; detail: string }
  | { status: 'revoked'; revokedAt: Date; detail: string }
  /** `none`: nothing in the data concerns this certificate at all (every response and list is another's). */
  | { status: 'unknown'; detail: string; none?: true };

export interface RevocationData {
  ocsps: Buffer[];
  crls: Buffer[];
}

export interface JudgeOptions {
  /** The clock now; data issued more than a few minutes after it is refused (default: `at`'s real clock). */
  now?: Date;
}

const OID_OCSP_BASIC = '1.3.6.1.5.5.7.48.1.1';
const OID_KP_OCSP_SIGNING = '1.3.6.1.5.5.7.3.9';
const DIGESTS: Record<string, string> = {
  '1.3.14.3.2.26': 'sha1',
  '2.16.840.1.101.3.4.2.1': 'sha256',
  '2.16.840.1.101.3.4.2.2': 'sha384',
  '2.16.840.1.101.3.4.2.3': 'sha512',
};
/** Signature algorithms Node verifies with a plain `verify(hash, …)`: RSA PKCS #1 v1.5 and ECDSA. */
const SIGNATURE_HASHES: Record<string, string> = {
  '1.2.840.113549.1.1.5': 'sha1',
  '1.2.840.113549.1.1.11': 'sha256',
  '1.2.840.113549.1.1.12': 'sha384',
  '1.2.840.113549.1.1.13': 'sha512',
  '1.2.840.10045.4.3.2': 'sha256',
  '1.2.840.10045.4.3.3': 'sha384',
  '1.2.840.10045.4.3.4': 'sha512',
};
/** Clocks differ: data up to this far ahead of ours is still taken. */
const CLOCK_SKEW_MS = 5 * 60_000;
const REASONS = ['unspecified', 'keyCompromise', 'cACompromise', 'affiliationChanged', 'superseded', 'cessationOfOperation', 'certificateHold', '', 'removeFromCRL', 'privilegeWithdrawn', 'aACompromise'];

const toArrayBuffer = (b: Uint8Array): ArrayBuffer => b.buffer.slice(b.byteOffset, b.byteOffset + b.byteLength) as ArrayBuffer;
const der = (c: pkijs.Certificate) => Buffer.from(c.toSchema().toBER());
const bytesOf = (v: { valueBlock: { valueHexView: Uint8Array } }) => Buffer.from(v.valueBlock.valueHexView);
export const subjectOf = (certificate: Buffer): string => new X509Certificate(certificate).subject.replace(/\n/g, ', ');

function signedBy(tbs: Uint8Array, algorithm: string, signature: Buffer, signer: Buffer): boolean {
  const hash = SIGNATURE_HASHES[algorithm];
  if (!hash) return false;
  try {
    return verify(hash, tbs, new X509Certificate(signer).publicKey, signature);
  } catch {
    return false;
  }
}

/** `cert` was issued by `issuer`: names chain and the issuer's key verifies its signature. */
export function issuedBy(cert: Buffer, issuer: Buffer): boolean {
  try {
    const x = new X509Certificate(cert);
    const i = new X509Certificate(issuer);
    return x.issuer === i.subject && x.verify(i.publicKey);
  } catch {
    return false;
  }
}

function singleResponseFor(basic: pkijs.BasicOCSPResponse, cert: pkijs.Certificate, issuer: pkijs.Certificate): pkijs.SingleResponse | undefined {
  return basic.tbsResponseData.responses.find((r) => {
    const digest = DIGESTS[r.certID.hashAlgorithm.algorithmId];
    if (!digest || !r.certID.serialNumber.isEqual(cert.serialNumber)) return false;
    const nameHash = createHash(digest).update(new Uint8Array(issuer.subject.toSchema().toBER())).digest();
    const keyHash = createHash(digest).update(issuer.subjectPublicKeyInfo.subjectPublicKey.valueBlock.valueHexView).digest();
    return bytesOf(r.certID.issuerNameHash).equals(nameHash) && bytesOf(r.certID.issuerKeyHash).equals(keyHash);
  });
}

/** One OCSP response about `cert` (DER), judged at `at`. */
export function judgeOcsp(response: Buffer, certificate: Buffer, issuerCertificate: Buffer, at: Date, options: JudgeOptions = {}): RevocationVerdict {
  const now = options.now ?? new Date();
  let basic: pkijs.BasicOCSPResponse;
  let cert: pkijs.Certificate;
  let issuer: pkijs.Certificate;
  try {
    const outer = pkijs.OCSPResponse.fromBER(toArrayBuffer(response));
    const status = outer.responseStatus.valueBlock.valueDec;
    if (status !== 0) return { status: 'unknown', detail: `the OCSP responder refused (status ${status})` };
    if (outer.responseBytes?.responseType !== OID_OCSP_BASIC) return { status: 'unknown', detail: 'the OCSP response is not a basic response' };
    basic = pkijs.BasicOCSPResponse.fromBER(toArrayBuffer(bytesOf(outer.responseBytes.response)));
    cert = pkijs.Certificate.fromBER(toArrayBuffer(certificate));
    issuer = pkijs.Certificate.fromBER(toArrayBuffer(issuerCertificate));
  } catch (error) {
    return { status: 'unknown', detail: `the OCSP response is unreadable (${(error as Error).message})` };
  }
  const single = singleResponseFor(basic, cert, issuer);
  if (!single) return { status: 'unknown', detail: 'the OCSP response is about another certificate' };
  // Signed by the issuer itself, or by a responder certificate the issuer issued for OCSP signing.
  const algorithm = basic.signatureAlgorithm.algorithmId;
  const signature = bytesOf(basic.signature);
  const candidates = [issuerCertificate, ...(basic.certs ?? []).map(der).filter((c) => {
    try {
      return issuedBy(c, issuerCertificate) && (new X509Certificate(c).keyUsage ?? []).includes(OID_KP_OCSP_SIGNING);
    } catch {
      return false;
    }
  })];
  if (!candidates.some((c) => signedBy(basic.tbsResponseData.tbsView, algorithm, signature, c))) {
    return { status: 'unknown', detail: "the OCSP response is not signed by the certificate's issuer or a responder it authorized" };
  }
  if (single.thisUpdate.getTime() > now.getTime() + CLOCK_SKEW_MS) return { status: 'unknown', detail: `the OCSP response claims to be issued in the future (${single.thisUpdate.toISOString()})` };
  const tag = (single.certStatus as asn1js.BaseBlock).idBlock.tagNumber;
  if (tag === 1) {
    const info = (single.certStatus as asn1js.Constructed).valueBlock.value;
    const revokedAt = (info[0] as asn1js.GeneralizedTime | undefined)?.toDate?.();
    const reasonBlock = info[1] as asn1js.Constructed | undefined;
    const reasonCode = reasonBlock ? (reasonBlock.valueBlock.value[0] as asn1js.Enumerated | undefined)?.valueBlock.valueDec : undefined;
    const reason = reasonCode !== undefined ? ` (${REASONS[reasonCode] || `reason ${reasonCode}`})` : '';
    if (!revokedAt) return { status: 'unknown', detail: 'the OCSP response says revoked without a readable time' };
    if (revokedAt.getTime() <= at.getTime()) return { status: 'revoked', revokedAt, detail: `OCSP: revoked ${revokedAt.toISOString()}${reason}` };
    return { status: 'good', detail: `OCSP: good at ${at.toISOString()}, revoked later (${revokedAt.toISOString()}${reason})` };
  }
  if (tag !== 0) return { status: 'unknown', detail: 'OCSP: the responder does not know the certificate' };
  if (single.nextUpdate && single.nextUpdate.getTime() < at.getTime()) return { status: 'unknown', detail: `the OCSP response is stale (next update ${single.nextUpdate.toISOString()})` };
  return { status: 'good', detail: `OCSP good at ${single.thisUpdate.toISOString()}` };
}

/** One CRL (DER), judged for `certificate` at `at`. */
export function judgeCrl(list: Buffer, certificate: Buffer, issuerCertificate: Buffer, at: Date, options: JudgeOptions = {}): RevocationVerdict {
  const now = options.now ?? new Date();
  let crl: pkijs.CertificateRevocationList;
  let cert: pkijs.Certificate;
  let issuer: pkijs.Certificate;
  try {
    crl = pkijs.CertificateRevocationList.fromBER(toArrayBuffer(list));
    cert = pkijs.Certificate.fromBER(toArrayBuffer(certificate));
    issuer = pkijs.Certificate.fromBER(toArrayBuffer(issuerCertificate));
  } catch (error) {
    return { status: 'unknown', detail: `the CRL is unreadable (${(error as Error).message})` };
  }
  if (!crl.issuer.isEqual(cert.issuer) || !crl.issuer.isEqual(issuer.subject)) return { status: 'unknown', detail: "the CRL is not the certificate's issuer's" };
  if (!signedBy(crl.tbsView, crl.signatureAlgorithm.algorithmId, bytesOf(crl.signatureValue), issuerCertificate)) {
    return { status: 'unknown', detail: "the CRL is not signed by the certificate's issuer" };
  }
  const thisUpdate = crl.thisUpdate.value;
  if (thisUpdate.getTime() > now.getTime() + CLOCK_SKEW_MS) return { status: 'unknown', detail: `the CRL claims to be issued in the future (${thisUpdate.toISOString()})` };
  const entry = (crl.revokedCertificates ?? []).find((r) => r.userCertificate.isEqual(cert.serialNumber));
  if (entry) {
    const revokedAt = entry.revocationDate.value;
    if (revokedAt.getTime() <= at.getTime()) return { status: 'revoked', revokedAt, detail: `CRL of ${thisUpdate.toISOString()}: revoked ${revokedAt.toISOString()}` };
    return { status: 'good', detail: `CRL: good at ${at.toISOString()}, revoked later (${revokedAt.toISOString()})` };
  }
  const nextUpdate = crl.nextUpdate?.value;
  if (nextUpdate && nextUpdate.getTime() < at.getTime()) return { status: 'unknown', detail: `the CRL is stale (next update ${nextUpdate.toISOString()})` };
  return { status: 'good', detail: `not on the CRL of ${thisUpdate.toISOString()}` };
}

/**
 * Every OCSP response and CRL in `data` about `certificate`, judged at `at`: any that proves a
 * revocation at or before `at` wins; else any usable one that says good; else `unknown`, with
 * every reason the data was unusable.
 */
export function judgeRevocation(certificate: Buffer, issuerCertificate: Buffer, data: RevocationData, at: Date, options: JudgeOptions = {}): RevocationVerdict {
  const verdicts = [...data.ocsps.map((o) => judgeOcsp(o, certificate, issuerCertificate, at, options)), ...data.crls.map((c) => judgeCrl(c, certificate, issuerCertificate, at, options))];
  const revoked = verdicts.find((v) => v.status === 'revoked');
  if (revoked) return revoked;
  const good = verdicts.find((v) => v.status === 'good');
  if (good) return good;
  const reasons = [...new Set(verdicts.filter((v) => !/another certificate|not the certificate's issuer's/.test(v.detail)).map((v) => v.detail))];
  return reasons.length ? { status: 'unknown', detail: `revocation unknown: ${reasons.join('; ')}` } : { status: 'unknown', detail: 'revocation unknown: no OCSP response or CRL about it', none: true };
}

/** The certificate's validity window at `at`, or why not. */
export function validityProblem(certificate: Buffer, at: Date): string | null {
  const x = new X509Certificate(certificate);
  const from = new Date(x.validFrom);
  const to = new Date(x.validTo);
  if (at < from) return `not yet valid at ${at.toISOString()} (valid from ${from.toISOString()})`;
  if (at > to) return `expired at ${at.toISOString()} (valid until ${to.toISOString()})`;
  return null;
}

export const sha256Fingerprint = (certificate: Buffer): string => createHash('sha256').update(certificate).digest('hex');
