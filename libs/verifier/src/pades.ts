import { createHash, verify, X509Certificate } from 'node:crypto';
import * as asn1js from 'asn1js';
import * as pkijs from 'pkijs';

const OID_MESSAGE_DIGEST = '1.2.840.113549.1.9.4';
const OID_SIGNED_DATA = '1.2.840.113549.1.7.2';
const HASHES: Record<string, string> = {
  '2.16.840.1.101.3.4.2.1': 'sha256',
  '2.16.840.1.101.3.4.2.2': 'sha384',
  '2.16.840.1.101.3.4.2.3': 'sha512',
};

export type PadesResult = { ok: true; detail: string } | { ok: false; detail: string };

/** DER certificates from a PEM file, in order. */
export function pemCertificates(pem: string): Buffer[] {
  const out: Buffer[] = [];
  for (const m of pem.matchAll(/-----BEGIN CERTIFICATE-----([\s\S]*?)-----END CERTIFICATE-----/g)) {
    out.push(Buffer.from(m[1].replace(/\s+/g, ''), 'base64'));
  }
  return out;
}

const toArrayBuffer = (b: Uint8Array): ArrayBuffer => b.buffer.slice(b.byteOffset, b.byteOffset + b.byteLength) as ArrayBuffer;

/**
 * The last signature of a PDF (the final PDF is signed once, as the last step): its /ByteRange
 * must cover the whole file but the /Contents hole, the CMS's message digest must be the hash of
 * those bytes, the signed attributes must verify with `certificate`'s key, and the CMS must name
 * that certificate as its signer.
 */
export function verifyPades(pdf: Buffer, certificate: Buffer): PadesResult {
  const text = pdf.toString('latin1');
  const ranges = [...text.matchAll(/\/ByteRange\s*\[\s*(\d+)\s+(\d+)\s+(\d+)\s+(\d+)\s*\]/g)];
  const last = ranges[ranges.length - 1];
  if (!last) return { ok: false, detail: 'no /ByteRange: the PDF carries no signature' };
  const [a, b, c, d] = last.slice(1, 5).map(Number);
  if (a !== 0 || c + d !== pdf.length || b > c) {
    return { ok: false, detail: `/ByteRange [${a} ${b} ${c} ${d}] does not cover the whole file (${pdf.length} bytes)` };
  }
  const hole = text.slice(b, c);
  const hex = /^<([0-9A-Fa-f]*)>$/.exec(hole);
  if (!hex) return { ok: false, detail: 'the /Contents hole holds no hex string' };
  const signed = Buffer.concat([pdf.subarray(a, a + b), pdf.subarray(c, c + d)]);

  let signedData: pkijs.SignedData;
  try {
    const der = Buffer.from(hex[1], 'hex');
    // The hole is zero-padded past the CMS; BER decoding stops at the end of the first value.
    const parsed = asn1js.fromBER(toArrayBuffer(der));
    if (parsed.offset === -1) throw new Error(parsed.result.error);
    const info = new pkijs.ContentInfo({ schema: parsed.result });
    if (info.contentType !== OID_SIGNED_DATA) throw new Error(`content type ${info.contentType}`);
    signedData = new pkijs.SignedData({ schema: info.content });
  } catch (error) {
    return { ok: false, detail: `the signature is not a readable CMS SignedData: ${(error as Error).message}` };
  }
  const signerInfo = signedData.signerInfos[0];
  if (!signerInfo?.signedAttrs) return { ok: false, detail: 'the CMS has no signer with signed attributes (not PAdES)' };
  const hash = HASHES[signerInfo.digestAlgorithm.algorithmId];
  if (!hash) return { ok: false, detail: `unsupported digest algorithm ${signerInfo.digestAlgorithm.algorithmId}` };

  const digestAttr = signerInfo.signedAttrs.attributes.find((attr) => attr.type === OID_MESSAGE_DIGEST);
  const claimed = digestAttr ? Buffer.from((digestAttr.values[0] as asn1js.OctetString).valueBlock.valueHexView) : null;
  const actual = createHash(hash).update(signed).digest();
  if (!claimed || !claimed.equals(actual)) {
    return { ok: false, detail: 'the signed byte range does not hash to the message digest the signature covers (the PDF was altered)' };
  }

  const cert = new X509Certificate(certificate);
  const sid = signerInfo.sid as pkijs.IssuerAndSerialNumber;
  const bundledCert = pkijs.Certificate.fromBER(toArrayBuffer(certificate));
  const sameSerial = sid instanceof pkijs.IssuerAndSerialNumber && Buffer.from(sid.serialNumber.valueBlock.valueHexView).equals(Buffer.from(bundledCert.serialNumber.valueBlock.valueHexView));
  if (!sameSerial || !sid.issuer.isEqual(bundledCert.issuer)) {
    return { ok: false, detail: `the PDF was signed by another certificate than the bundle's (${cert.subject.replace(/\n/g, ', ')})` };
  }
  // RFC 5652 §5.4: the signature covers the signed attributes as a SET OF, not under their [0] tag.
  const attrs = Buffer.from(signerInfo.signedAttrs.encodedValue);
  attrs[0] = 0x31;
  let valid = false;
  try {
    valid = verify(hash, attrs, cert.publicKey, Buffer.from(signerInfo.signature.valueBlock.valueHexView));
  } catch {
    valid = false;
  }
  if (!valid) return { ok: false, detail: "the CMS signature does not verify with the bundle's certificate" };
  return { ok: true, detail: `signature over bytes 0..${b} and ${c}..${c + d} verifies with ${cert.subject.replace(/\n/g, ', ')}` };
}

/**
 * A JSON entry of a PDF's information dictionary (`DojangChainHead`, `DojangDeliveryHead`), read
 * from the bytes: the last one written wins, as the newest incremental update's dictionary does.
 * Trust it only when the signature it sits under covers the whole file (verifyPades).
 */
export function pdfEvidenceEntry<T>(pdf: Buffer, key: string): T | null {
  const text = pdf.toString('latin1');
  const hits = [...text.matchAll(new RegExp(`/${key}\\s*(<[0-9A-Fa-f\\s]*>|\\((?:\\\\.|[^\\\\)])*\\))`, 'g'))];
  const raw = hits[hits.length - 1]?.[1];
  if (!raw) return null;
  let value: string;
  if (raw.startsWith('<')) {
    const bytes = Buffer.from(raw.slice(1, -1).replace(/\s+/g, ''), 'hex');
    value = bytes[0] === 0xfe && bytes[1] === 0xff ? bytes.subarray(2).swap16().toString('utf16le') : bytes.toString('latin1');
  } else {
    value = raw.slice(1, -1).replace(/\\([()\\])/g, '$1');
  }
  try {
    return JSON.parse(value) as T;
  } catch {
    return null;
  }
}

/** The `DojangChainHead` entry of a PDF's information dictionary (the head its signature was made over), if any. */
export function pdfChainHead(pdf: Buffer): { revision: number; hash: string; completed_event_count: number } | null {
  return pdfEvidenceEntry(pdf, 'DojangChainHead');
}
