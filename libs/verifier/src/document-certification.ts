import { createHash, verify, X509Certificate } from 'node:crypto';
import * as asn1js from 'asn1js';
import * as pkijs from 'pkijs';
import { canonicalJson } from '@dojang/event-store/hash-chain';
import type { DocumentFacts } from './document-facts';

/**
 * Dojang's certification of a concluded document, as a `DocumentCertified` event carries it
 * (`DocumentSealed` with `{ seal }` before issue 35, when it was called a seal): the
 * document-signing key's signature over the
 * stream's head *after* the terminal event (so the events that concluded the document, their
 * times, actors and identity checks are inside it) and over the facts derived from those events
 * (document-facts.ts), so a verifier names the fact that was changed instead of only a hash. With
 * a timestamp authority configured, an RFC 3161 token over the signature dates it.
 *
 * The statement ('dojang-seal-v1', and its `sealed_at`) is frozen like the hash chain, old name
 * included: certifications already made are signed over it. libs/application signs exactly
 * these bytes and the offline verifier rebuilds them.
 */
export interface DocumentCertificationProof {
  /** The last event the certification covers (the terminal event or a later one) and the events up to it. */
  head: { revision: number; hash: string; event_count: number };
  /** documentFacts(events up to head.revision). */
  facts: DocumentFacts;
  /** The server's clock when it signed (a claim: the timestamp token, when present, is the proof). */
  sealed_at: string;
  algorithm: 'RSA-SHA256';
  certificate_sha256: string;
  /** Base64 signature over certificationStatementBytes(...). */
  signature: string;
  /** Base64 DER RFC 3161 TimeStampToken whose imprint is SHA-256 of the signature bytes; null without a TSA. */
  timestamp_token: string | null;
  /** The token's genTime (ISO 8601), restated for readers; the verifier reads it from the token. */
  timestamped_at: string | null;
}

export type CertificationStatement = Pick<DocumentCertificationProof, 'head' | 'facts' | 'sealed_at'> & { document_id: string };

export function certificationStatementBytes(s: CertificationStatement): Buffer {
  return Buffer.from(canonicalJson({ purpose: 'dojang-seal-v1', document_id: s.document_id, head: s.head, facts: s.facts, sealed_at: s.sealed_at }), 'utf8');
}

const sha256 = (b: Uint8Array) => createHash('sha256').update(b).digest();
const toArrayBuffer = (b: Uint8Array): ArrayBuffer => b.buffer.slice(b.byteOffset, b.byteOffset + b.byteLength) as ArrayBuffer;

/** Why the certification's signature fails, or null when `certificate`'s key signed exactly this statement. */
export function certificationSignatureProblem(documentId: string, proof: DocumentCertificationProof, certificate: Buffer): string | null {
  if (proof.algorithm !== 'RSA-SHA256') return `unknown algorithm ${String(proof.algorithm)}`;
  const fingerprint = sha256(certificate).toString('hex');
  if (proof.certificate_sha256 !== fingerprint) return `signed by certificate sha256 ${proof.certificate_sha256}, the certificate given is ${fingerprint}`;
  try {
    const bytes = certificationStatementBytes({ document_id: documentId, head: proof.head, facts: proof.facts, sealed_at: proof.sealed_at });
    return verify('sha256', bytes, new X509Certificate(certificate).publicKey, Buffer.from(proof.signature, 'base64'))
      ? null
      : 'the signature does not match its head, facts or time (the certification was edited)';
  } catch (error) {
    return `the signature cannot be checked: ${(error as Error).message}`;
  }
}

const OID_TST_INFO = '1.2.840.113549.1.9.16.1.4';
const OID_MESSAGE_DIGEST = '1.2.840.113549.1.9.4';
const OID_SHA256 = '2.16.840.1.101.3.4.2.1';

export type TimestampCheck = { ok: true; gen_time: string; tsa: string } | { ok: false; detail: string };

/**
 * An RFC 3161 token over `data`: its imprint is SHA-256 of `data`, its TSTInfo is what its signer
 * signed (message digest), and the signer's signature verifies with the certificate the token
 * carries. Whether that TSA is one you trust is for you to judge (its subject is reported).
 */
export function checkTimestampToken(tokenB64: string, data: Buffer): TimestampCheck {
  try {
    const der = Buffer.from(tokenB64, 'base64');
    const parsed = asn1js.fromBER(toArrayBuffer(der));
    if (parsed.offset === -1) throw new Error(parsed.result.error);
    const signedData = new pkijs.SignedData({ schema: new pkijs.ContentInfo({ schema: parsed.result }).content });
    const encap = signedData.encapContentInfo;
    if (encap.eContentType !== OID_TST_INFO || !encap.eContent) return { ok: false, detail: 'the token carries no TSTInfo' };
    const tstBytes = Buffer.from(encap.eContent.getValue());
    const tst = pkijs.TSTInfo.fromBER(toArrayBuffer(tstBytes));
    if (tst.messageImprint.hashAlgorithm.algorithmId !== OID_SHA256) return { ok: false, detail: 'the token imprint is not SHA-256' };
    if (!Buffer.from(tst.messageImprint.hashedMessage.valueBlock.valueHexView).equals(sha256(data))) {
      return { ok: false, detail: 'the timestamp token does not cover this certification (imprint differs)' };
    }
    const signer = signedData.signerInfos[0];
    if (!signer?.signedAttrs) return { ok: false, detail: 'the token has no signed attributes' };
    if (signer.digestAlgorithm.algorithmId !== OID_SHA256) return { ok: false, detail: 'the token is not signed with SHA-256' };
    const digest = signer.signedAttrs.attributes.find((a) => a.type === OID_MESSAGE_DIGEST);
    if (!digest || !Buffer.from((digest.values[0] as asn1js.OctetString).valueBlock.valueHexView).equals(sha256(tstBytes))) {
      return { ok: false, detail: 'the token signature does not cover its TSTInfo' };
    }
    const sid = signer.sid as pkijs.IssuerAndSerialNumber;
    const cert = (signedData.certificates ?? []).find(
      (c): c is pkijs.Certificate =>
        c instanceof pkijs.Certificate &&
        sid instanceof pkijs.IssuerAndSerialNumber &&
        c.issuer.isEqual(sid.issuer) &&
        Buffer.from(c.serialNumber.valueBlock.valueHexView).equals(Buffer.from(sid.serialNumber.valueBlock.valueHexView)),
    );
    if (!cert) return { ok: false, detail: 'the token carries no certificate of its signer' };
    const x509 = new X509Certificate(Buffer.from(cert.toSchema().toBER()));
    const attrs = Buffer.from(signer.signedAttrs.encodedValue);
    attrs[0] = 0x31;
    if (!verify('sha256', attrs, x509.publicKey, Buffer.from(signer.signature.valueBlock.valueHexView))) {
      return { ok: false, detail: "the token's signature does not verify with its TSA certificate" };
    }
    return { ok: true, gen_time: tst.genTime.toISOString(), tsa: x509.subject.replace(/\n/g, ', ') };
  } catch (error) {
    return { ok: false, detail: `the timestamp token cannot be read: ${(error as Error).message}` };
  }
}
