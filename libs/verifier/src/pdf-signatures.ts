import { createHash, verify, X509Certificate } from 'node:crypto';
import * as asn1js from 'asn1js';
import * as pkijs from 'pkijs';
import { pdfChainHead, verifyPades } from './pades';

/**
 * What a PDF alone says about its signatures, for someone holding only the PDF (the public verify
 * page): every signature in the order it was made, each checked with the certificate its own CMS
 * carries, its timestamp if any, document timestamps, and whether long-term validation material
 * (a DSS dictionary) is present. Reads the bytes only: no object stream is inflated, so the work
 * is bounded by the file's size. Whose certificate it is (this installation's or another's) is for
 * the caller to judge by `certificate_sha256`.
 */

const OID_SIGNED_DATA = '1.2.840.113549.1.7.2';
const OID_MESSAGE_DIGEST = '1.2.840.113549.1.9.4';
const OID_TIMESTAMP_TOKEN = '1.2.840.113549.1.9.16.2.14';
const HASHES: Record<string, string> = {
  '1.3.14.3.2.26': 'sha1',
  '2.16.840.1.101.3.4.2.1': 'sha256',
  '2.16.840.1.101.3.4.2.2': 'sha384',
  '2.16.840.1.101.3.4.2.3': 'sha512',
};

export interface TimestampReport {
  /** The token's message imprint matches what it stamps and its signature verifies with the TSA certificate it carries. */
  valid: boolean;
  /** The time the authority vouches for (ISO 8601), when the token could be read. */
  time: string | null;
  authority: string | null;
  detail: string;
}

export interface PdfSignatureReport {
  /** `signature`: a CMS signature (PAdES/CAdES or adbe.pkcs7); `document_timestamp`: an RFC 3161 document timestamp (PAdES B-LTA). */
  kind: 'signature' | 'document_timestamp';
  sub_filter: string | null;
  /** The signed bytes hash to what the signature covers and the signature verifies with the certificate in its CMS. */
  valid: boolean;
  /** The signature covers the file up to its last byte (only the last one can; earlier ones cover their revision). */
  covers_whole_file: boolean;
  /** The signer's (or TSA's) certificate subject, as the CMS names it. */
  signer: string | null;
  /** SHA-256 of the signer's certificate (DER), for comparing with a known certificate. */
  certificate_sha256: string | null;
  /** The signature's own timestamp (PAdES B-T), if it carries one. */
  timestamp: TimestampReport | null;
  /** The signer's chain as the file carries it (signer first), each certificate's subject and SHA-256. */
  chain: Array<{ subject: string; sha256: string }>;
  /** When the signature is proven to have existed: its timestamp's time, or null (only claimed). */
  proven_at: string | null;
  /** What the file's revocation data (DSS) says about the signer at that time, or why it says nothing. */
  revocation: string | null;
  /**
   * The signed bytes verify, but the signer's standing does not hold (revoked at the signature's
   * time, outside its validity then, revocation unknown): `valid` is false and this says why.
   */
  standing_problem: string | null;
  /**
   * Whether the signer's chain reaches a trust anchor given (`trusted: …`), or "untrusted issuer"
   * said plainly (none given, or none reached: then `valid` is false). Null for a document timestamp.
   */
  trust: string | null;
  /** The chain reaches a trust anchor given (false with none given: trust is never implied); null for a document timestamp. */
  trusted: boolean | null;
  detail: string;
}

/** What a reader of a PDF's signatures is given beyond the file. */
export interface PdfSignaturesOptions {
  /** Certificates (DER) the verifying party trusts: each signature's chain must reach one. */
  trustAnchors?: Buffer[];
}

export interface PdfSignaturesReport {
  signatures: PdfSignatureReport[];
  /** A /DSS dictionary (PAdES B-LT) in the file's bytes, and whether it names revocation data. */
  dss: { present: boolean; revocation_data: boolean };
  /** The Dojang chain head in the information dictionary, if the PDF carries one. */
  chain_head: { revision: number; hash: string; completed_event_count: number } | null;
}

const toArrayBuffer = (b: Uint8Array): ArrayBuffer => b.buffer.slice(b.byteOffset, b.byteOffset + b.byteLength) as ArrayBuffer;
const sha256Hex = (b: Uint8Array) => createHash('sha256').update(b).digest('hex');

function signedDataOf(der: Uint8Array | ArrayBuffer): pkijs.SignedData {
  const parsed = asn1js.fromBER(der instanceof ArrayBuffer ? der : toArrayBuffer(der));
  if (parsed.offset === -1) throw new Error(parsed.result.error);
  const info = new pkijs.ContentInfo({ schema: parsed.result });
  if (info.contentType !== OID_SIGNED_DATA) throw new Error(`content type ${info.contentType}`);
  return new pkijs.SignedData({ schema: info.content });
}

/** The certificate the first signer names (issuer and serial, or key identifier), from the CMS's own set. */
function signerCertificate(signedData: pkijs.SignedData): pkijs.Certificate | null {
  const sid = signedData.signerInfos[0]?.sid;
  const certs = (signedData.certificates ?? []).filter((c): c is pkijs.Certificate => c instanceof pkijs.Certificate);
  if (sid instanceof pkijs.IssuerAndSerialNumber) {
    const serial = Buffer.from(sid.serialNumber.valueBlock.valueHexView);
    return certs.find((c) => Buffer.from(c.serialNumber.valueBlock.valueHexView).equals(serial) && c.issuer.isEqual(sid.issuer)) ?? null;
  }
  return certs.length === 1 ? certs[0] : null;
}

const certificateDer = (c: pkijs.Certificate) => Buffer.from(c.toSchema().toBER(false));
const subjectOf = (der: Buffer) => new X509Certificate(der).subject.replace(/\n/g, ', ');

/** RFC 5652 §5.4: the signer's signed attributes name the content's digest and are signed with the certificate's key. */
function signerInfoProblem(signedData: pkijs.SignedData, content: Buffer, certificate: Buffer): string | null {
  const signerInfo = signedData.signerInfos[0];
  if (!signerInfo?.signedAttrs) return 'the CMS has no signer with signed attributes';
  const hash = HASHES[signerInfo.digestAlgorithm.algorithmId];
  if (!hash) return `unsupported digest algorithm ${signerInfo.digestAlgorithm.algorithmId}`;
  const digestAttr = signerInfo.signedAttrs.attributes.find((a) => a.type === OID_MESSAGE_DIGEST);
  const claimed = digestAttr ? Buffer.from((digestAttr.values[0] as asn1js.OctetString).valueBlock.valueHexView) : null;
  if (!claimed || !claimed.equals(createHash(hash).update(content).digest())) return 'the signed content does not hash to the digest the signature covers';
  const attrs = Buffer.from(signerInfo.signedAttrs.encodedValue);
  attrs[0] = 0x31;
  try {
    return verify(hash, attrs, new X509Certificate(certificate).publicKey, Buffer.from(signerInfo.signature.valueBlock.valueHexView)) ? null : 'the signature does not verify with its certificate';
  } catch (error) {
    return `the signature cannot be checked: ${(error as Error).message}`;
  }
}

/** The TSTInfo an RFC 3161 token (a CMS SignedData) carries, as bytes. */
function tstInfoBytes(signedData: pkijs.SignedData): Buffer {
  const eContent = signedData.encapContentInfo.eContent;
  if (!eContent) throw new Error('the token has no TSTInfo');
  if (eContent.idBlock.isConstructed) {
    return Buffer.concat((eContent.valueBlock.value as asn1js.OctetString[]).map((part) => Buffer.from(part.valueBlock.valueHexView)));
  }
  return Buffer.from(eContent.valueBlock.valueHexView);
}

/** An RFC 3161 token stamping `stamped` (a signature value, or a document timestamp's byte range). */
function checkTimestamp(token: pkijs.SignedData, stamped: Buffer): TimestampReport {
  let tst: pkijs.TSTInfo;
  let content: Buffer;
  try {
    content = tstInfoBytes(token);
    tst = pkijs.TSTInfo.fromBER(toArrayBuffer(content));
  } catch (error) {
    return { valid: false, time: null, authority: null, detail: `the timestamp token cannot be read: ${(error as Error).message}` };
  }
  const time = tst.genTime instanceof Date && !Number.isNaN(tst.genTime.getTime()) ? tst.genTime.toISOString() : null;
  const cert = signerCertificate(token);
  const authority = cert ? subjectOf(certificateDer(cert)) : null;
  const hash = HASHES[tst.messageImprint.hashAlgorithm.algorithmId];
  if (!hash) return { valid: false, time, authority, detail: `unsupported imprint algorithm ${tst.messageImprint.hashAlgorithm.algorithmId}` };
  if (!Buffer.from(tst.messageImprint.hashedMessage.valueBlock.valueHexView).equals(createHash(hash).update(stamped).digest())) {
    return { valid: false, time, authority, detail: 'the timestamp stamps other bytes than these' };
  }
  if (!cert) return { valid: false, time, authority, detail: 'the timestamp token carries no certificate of its authority' };
  const problem = signerInfoProblem(token, content, certificateDer(cert));
  return problem ? { valid: false, time, authority, detail: `timestamp: ${problem}` } : { valid: true, time, authority, detail: `timestamped ${time ?? ''} by ${authority}` };
}

interface SignatureSpot {
  range: [number, number, number, number];
  contents: Buffer | null;
  subFilter: string | null;
}

/** Every /ByteRange in the file with its /Contents and /SubFilter, in file order (the order they were made). */
function signatureSpots(pdf: Buffer): SignatureSpot[] {
  const text = pdf.toString('latin1');
  const spots: SignatureSpot[] = [];
  for (const m of text.matchAll(/\/ByteRange\s*\[\s*(\d+)\s+(\d+)\s+(\d+)\s+(\d+)\s*\]/g)) {
    const range = m.slice(1, 5).map(Number) as [number, number, number, number];
    const [, b, c] = range;
    const hole = c > b && c <= pdf.length ? /^<([0-9A-Fa-f]*)>$/.exec(text.slice(b, c)) : null;
    // The signature dictionary around this /ByteRange: from its object's start to its end.
    const start = text.lastIndexOf(' obj', m.index);
    const end = text.indexOf('endobj', m.index);
    const dict = text.slice(start < 0 ? Math.max(0, m.index - 4096) : start, end < 0 ? m.index + 4096 : end);
    const subFilter = /\/SubFilter\s*\/([A-Za-z0-9.#_-]+)/.exec(dict)?.[1] ?? null;
    spots.push({ range, contents: hole ? Buffer.from(hole[1], 'hex') : null, subFilter });
  }
  return spots;
}

function reportOf(pdf: Buffer, spot: SignatureSpot, options: PdfSignaturesOptions): PdfSignatureReport {
  const [a, b, c, d] = spot.range;
  const kind = spot.subFilter === 'ETSI.RFC3161' ? 'document_timestamp' : 'signature';
  const base = { kind, sub_filter: spot.subFilter, covers_whole_file: a === 0 && c + d === pdf.length, signer: null, certificate_sha256: null, timestamp: null, chain: [] as PdfSignatureReport['chain'], proven_at: null, revocation: null, standing_problem: null, trust: null, trusted: null } as const;
  if (a !== 0 || b > c || c + d > pdf.length || !spot.contents) {
    return { ...base, valid: false, detail: `/ByteRange [${a} ${b} ${c} ${d}] does not describe a signature of this file` };
  }
  let signedData: pkijs.SignedData;
  try {
    signedData = signedDataOf(spot.contents);
  } catch (error) {
    return { ...base, valid: false, detail: `the signature is not a readable CMS SignedData: ${(error as Error).message}` };
  }
  const cert = signerCertificate(signedData);
  const der = cert ? certificateDer(cert) : null;
  const named = { signer: der ? subjectOf(der) : null, certificate_sha256: der ? sha256Hex(der) : null };
  if (kind === 'document_timestamp') {
    const signed = Buffer.concat([pdf.subarray(0, b), pdf.subarray(c, c + d)]);
    const ts = checkTimestamp(signedData, signed);
    return { ...base, ...named, valid: ts.valid, timestamp: ts, proven_at: ts.valid ? ts.time : null, detail: ts.detail };
  }
  if (!der) return { ...base, ...named, valid: false, detail: 'the CMS carries no certificate of its signer' };
  // The revision this signature was made over ends at c + d: checked as that revision's last signature.
  // The DSS that judges its signer's revocation comes in a later revision: read from the whole file.
  const pades = verifyPades(pdf.subarray(0, c + d), der, { wholeFile: pdf, trustAnchors: options.trustAnchors });
  const tokenAttr = signedData.signerInfos[0]?.unsignedAttrs?.attributes.find((attr) => attr.type === OID_TIMESTAMP_TOKEN);
  let timestamp: TimestampReport | null = null;
  if (tokenAttr) {
    try {
      const token = new pkijs.SignedData({ schema: new pkijs.ContentInfo({ schema: tokenAttr.values[0] }).content });
      timestamp = checkTimestamp(token, Buffer.from(signedData.signerInfos[0].signature.valueBlock.valueHexView));
    } catch (error) {
      timestamp = { valid: false, time: null, authority: null, detail: `the timestamp token cannot be read: ${(error as Error).message}` };
    }
  }
  const standing = pades.signer ? { chain: pades.signer.chain, proven_at: pades.signer.proven_at, revocation: pades.signer.revocation, trust: pades.signer.trust, trusted: pades.signer.trusted } : {};
  return { ...base, ...named, ...standing, valid: pades.ok, timestamp, standing_problem: pades.ok ? null : (pades.standing_problem ?? null), detail: pades.detail };
}

/** Every signature and document timestamp of `pdf`, its DSS and its Dojang chain head. */
export function readPdfSignatures(pdf: Buffer, options: PdfSignaturesOptions = {}): PdfSignaturesReport {
  const text = pdf.toString('latin1');
  const dss = /\/DSS\s*(\d+\s+\d+\s+R|<<)/.test(text);
  return {
    signatures: signatureSpots(pdf).map((spot) => reportOf(pdf, spot, options)),
    dss: { present: dss, revocation_data: dss && /\/(OCSPs|CRLs)\s*[[\d]/.test(text) },
    chain_head: pdfChainHead(pdf),
  };
}
