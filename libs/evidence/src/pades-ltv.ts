import { createHash, X509Certificate } from 'node:crypto';
import * as asn1js from 'asn1js';
import * as pkijs from 'pkijs';
import signpdf, { Signer } from '@signpdf/signpdf';
import { PDFArray, PDFDict, PDFDocument, PDFName, PDFRawStream, PDFRef } from 'pdf-lib';
import { updateIncrementally } from '../../pdf/src/append-pdfs';
import { OID, readSignedData } from './cades-cms';
import { requestTimestampToken } from './rfc3161-timestamp';
import { fetchRevocation, isSelfSigned, issuerOf, LtvError, SigningCertificateInvalidError } from './revocation-check';
import { addPlaceholder } from './sign-pdf';
import { assertOffMainThread } from '../../pdf/src/main-thread-guard';

/**
 * PAdES baseline B-LT and B-LTA (ETSI EN 319 142-1 §5.4, §5.5) on top of a B-T signature:
 * - B-LT: a Document Security Store (`/DSS` in the catalog, ISO 32000-2 12.8.4.3) written in an
 *   incremental update, holding every certificate of every signature's and timestamp's chain
 *   (`/Certs`) and their revocation data: OCSP responses (`/OCSPs`) from the responder each
 *   certificate names in its Authority Information Access, or the CRL (`/CRLs`) of its
 *   distribution point when no responder answers.
 * - B-LTA: then a document timestamp (`/Type /DocTimeStamp`, `/SubFilter /ETSI.RFC3161`): an RFC
 *   3161 token over the whole file, DSS included, in a further incremental update.
 * Archiving repeats the pair (fresh validation data for the newest timestamp, then a new document
 * timestamp) before that timestamp's certificate expires; every earlier revision's bytes, and so
 * every earlier signature, stay as they were.
 *
 * The certificates come from the file itself (each CMS's certificates, each timestamp token's)
 * plus `extraCertificates` (the installation's chain); the URLs come from those certificates, so
 * nothing here reaches a host that neither the operator's certificates nor its TSA named.
 */

export { LtvError, SigningCertificateInvalidError, ocspUrls, crlUrls } from './revocation-check';

export type PadesLevel = 'B-B' | 'B-T' | 'B-LT' | 'B-LTA';
export const PADES_LEVELS: readonly PadesLevel[] = ['B-B', 'B-T', 'B-LT', 'B-LTA'];
export const DOCUMENT_TIMESTAMP_SUBFILTER = 'ETSI.RFC3161';

const OID_OCSP_BASIC = '1.3.6.1.5.5.7.48.1.1';

const toArrayBuffer = (b: Uint8Array): ArrayBuffer => new Uint8Array(b).buffer as ArrayBuffer;
const hashOf = (b: Uint8Array) => createHash('sha256').update(b).digest('hex');

export interface ValidationMaterial {
  certs: Buffer[];
  ocsps: Buffer[];
  crls: Buffer[];
}

/** Every signature dictionary's CMS (signatures and document timestamps), oldest first. */
export function signatureContents(pdf: Buffer): Buffer[] {
  const text = pdf.toString('latin1');
  const out: Buffer[] = [];
  for (const m of text.matchAll(/\/ByteRange\s*\[\s*(\d+)\s+(\d+)\s+(\d+)\s+(\d+)\s*\]/g)) {
    const [b, c] = [Number(m[2]), Number(m[3])];
    const hole = /^<([0-9A-Fa-f]*)>$/.exec(text.slice(b, c));
    if (!hole) continue;
    const der = Buffer.from(hole[1], 'hex');
    const parsed = asn1js.fromBER(toArrayBuffer(der));
    if (parsed.offset !== -1) out.push(der.subarray(0, parsed.offset));
  }
  return out;
}

/**
 * The certificates the first signature of a PDF (its PAdES signature) carries, the signer's first
 * (DER): which certificate signed a final PDF (the installation's or the organization's own), for
 * the evidence bundle. Null: no readable signature. Scans and parses the whole file: the pool's
 * `pdf.signer-chain` job runs it.
 */
export function signerChain(pdf: Buffer): Buffer[] | null {
  assertOffMainThread('signerChain');
  const [first] = signatureContents(pdf);
  if (!first) return null;
  const signedData = readSignedData(first);
  const certs = (signedData.certificates ?? []).filter((c): c is pkijs.Certificate => c instanceof pkijs.Certificate);
  const sid = signedData.signerInfos[0]?.sid;
  const isSigner = (c: pkijs.Certificate) =>
    sid instanceof pkijs.IssuerAndSerialNumber && Buffer.from(c.serialNumber.valueBlock.valueHexView).equals(Buffer.from(sid.serialNumber.valueBlock.valueHexView)) && c.issuer.isEqual(sid.issuer);
  const signer = certs.find(isSigner) ?? certs[0];
  if (!signer) return null;
  const der = (c: pkijs.Certificate) => Buffer.from(c.toSchema().toBER(false));
  return [signer, ...certs.filter((c) => c !== signer)].map(der);
}

/** The certificates a CMS carries, and those of the timestamp tokens in its unsigned attributes. */
export function cmsCertificates(cms: Buffer): Buffer[] {
  const signedData = readSignedData(cms);
  const out: Buffer[] = [];
  for (const cert of signedData.certificates ?? []) if (cert instanceof pkijs.Certificate) out.push(Buffer.from(cert.toSchema().toBER()));
  for (const info of signedData.signerInfos) {
    for (const attr of info.unsignedAttrs?.attributes ?? []) {
      if (attr.type === OID.signatureTimeStampToken) out.push(...cmsCertificates(Buffer.from(attr.values[0].toBER())));
    }
  }
  return out;
}

/** A successful OCSPResponse's basic response (RFC 6960 §4.2.1), or an error saying why not. */
export function readOcspResponse(der: Buffer): pkijs.BasicOCSPResponse {
  const response = pkijs.OCSPResponse.fromBER(toArrayBuffer(der));
  const status = response.responseStatus.valueBlock.valueDec;
  if (status !== 0) throw new LtvError(`OCSP responder refused (status ${status})`);
  if (!response.responseBytes || response.responseBytes.responseType !== OID_OCSP_BASIC) throw new LtvError('OCSP response is not a basic response');
  return pkijs.BasicOCSPResponse.fromBER(toArrayBuffer(new Uint8Array(response.responseBytes.response.valueBlock.valueHexView)));
}

export interface CollectOptions {
  timeoutMs?: number;
  /**
   * A certificate found revoked now: refused (SigningCertificateInvalidError, the default: the
   * material is for a signature or timestamp being made) or embedded as found (the archive step,
   * which adds evidence to a file signed long ago and judges nothing).
   */
  refuseRevoked?: boolean;
}

/**
 * The chain and revocation data for `certificates`: each certificate that is not self-signed gets
 * an OCSP response from its responder (the responder's own certificates go in the chain too) or,
 * failing that, its distribution point's CRL, each judged by the verifier's rules
 * (revocation-check.ts) before it is embedded. A certificate that names neither needs none (a
 * trust anchor, an installation's self-signed certificate). One that names some, none of which
 * gives a usable answer, is an LtvError: a B-LT file without it would not validate once the
 * certificate expires; one found revoked is a SigningCertificateInvalidError.
 */
export async function collectValidationMaterial(certificates: Buffer[], options: CollectOptions = {}): Promise<ValidationMaterial> {
  const timeoutMs = options.timeoutMs ?? 15_000;
  const certs = new Map<string, Buffer>();
  for (const c of certificates) certs.set(hashOf(c), c);
  const ocsps: Buffer[] = [];
  const crls = new Map<string, Buffer>();
  const done = new Set<string>();
  const now = new Date();
  // Responders' certificates join the pool as they arrive; loop until nothing new needs data.
  for (let pass = 0; pass < 4; pass++) {
    const pending = [...certs.entries()].filter(([h]) => !done.has(h));
    if (!pending.length) break;
    for (const [h, der] of pending) {
      done.add(h);
      if (isSelfSigned(der)) continue;
      const answer = await fetchRevocation(der, issuerOf(der, [...certs.values()]), now, timeoutMs);
      if (!answer) continue;
      const subject = new X509Certificate(der).subject.replace(/\n/g, ', ');
      if (answer.verdict.status === 'unknown') throw new LtvError(`no revocation data for ${subject}: ${answer.verdict.detail}`);
      if (answer.verdict.status === 'revoked' && options.refuseRevoked !== false) {
        throw new SigningCertificateInvalidError(`the certificate ${subject} (SHA-256 ${hashOf(der)}) is revoked: ${answer.verdict.detail}`);
      }
      if (answer.ocsp) {
        for (const c of readOcspResponse(answer.ocsp).certs ?? []) {
          const b = Buffer.from(c.toSchema().toBER());
          certs.set(hashOf(b), b);
          // An OCSP responder's certificate is checked by its id-pkix-ocsp-nocheck, not by OCSP.
          done.add(hashOf(b));
        }
        ocsps.push(answer.ocsp);
      }
      if (answer.crl) crls.set(hashOf(answer.crl), answer.crl);
    }
  }
  return { certs: [...certs.values()], ocsps, crls: [...crls.values()] };
}

function streamContents(doc: PDFDocument, array: PDFArray | undefined): Set<string> {
  const out = new Set<string>();
  for (let i = 0; i < (array?.size() ?? 0); i++) {
    const stream = array!.lookup(i);
    if (stream instanceof PDFRawStream) out.add(hashOf(stream.contents));
  }
  return out;
}

/**
 * Adds `material` to the PDF's DSS (creating it) in an incremental update; what the DSS already
 * holds is not repeated. Streams are stored uncompressed: DER barely compresses, and a reader
 * without an inflater (the offline verifier) finds them as they are.
 */
export async function addDss(pdf: Buffer, material: ValidationMaterial): Promise<Buffer> {
  assertOffMainThread('addDss');
  const updated = await updateIncrementally(pdf, (doc) => {
    const existing = doc.catalog.lookupMaybe(PDFName.of('DSS'), PDFDict);
    const dss = existing ?? doc.context.obj({ Type: 'DSS' });
    for (const [key, items] of [
      ['Certs', material.certs],
      ['OCSPs', material.ocsps],
      ['CRLs', material.crls],
    ] as const) {
      const array = dss.lookupMaybe(PDFName.of(key), PDFArray) ?? doc.context.obj([]);
      const have = streamContents(doc, array);
      for (const item of items) {
        if (have.has(hashOf(item))) continue;
        have.add(hashOf(item));
        array.push(doc.context.register(doc.context.stream(new Uint8Array(item))));
      }
      if (array.size()) dss.set(PDFName.of(key), array);
    }
    doc.catalog.set(PDFName.of('DSS'), existing ? (doc.catalog.get(PDFName.of('DSS')) as PDFRef) : doc.context.register(dss));
  });
  if (!updated) throw new LtvError('the PDF cannot be updated incrementally (no classic cross-reference table)');
  return updated;
}

/** @signpdf hands us the file minus the /Contents hole; a document timestamp is the TSA's token over it. */
class DocumentTimestamper extends Signer {
  constructor(
    private readonly tsaUrl: string,
    private readonly timeoutMs?: number,
  ) {
    super();
  }

  async sign(signedBytes: Buffer): Promise<Buffer> {
    return requestTimestampToken(this.tsaUrl, signedBytes, this.timeoutMs ? { timeoutMs: this.timeoutMs } : {});
  }
}

/** Room for a token: its TSTInfo and signature plus the TSA's chain (certReq), generously. */
const DOCUMENT_TIMESTAMP_CAPACITY = 24_576;

/** A document timestamp over the whole file (B-LTA), in an incremental update. */
export async function addDocumentTimestamp(pdf: Buffer, tsaUrl: string, options: CollectOptions = {}): Promise<Buffer> {
  assertOffMainThread('addDocumentTimestamp');
  const withPlaceholder = await updateIncrementally(pdf, (doc) => {
    addPlaceholder(doc, { subFilter: DOCUMENT_TIMESTAMP_SUBFILTER, capacity: DOCUMENT_TIMESTAMP_CAPACITY, documentTimestamp: true });
  });
  if (!withPlaceholder) throw new LtvError('the PDF cannot be updated incrementally (no classic cross-reference table)');
  return signpdf.sign(withPlaceholder, new DocumentTimestamper(tsaUrl, options.timeoutMs));
}

export interface ExtendOptions extends CollectOptions {
  tsaUrl: string;
  level: PadesLevel;
  /** Certificates to cover besides those in the file (the installation's chain up to its root). */
  extraCertificates?: Buffer[];
}

/**
 * Raises a B-T file to B-LT (DSS) or B-LTA (DSS, then a document timestamp). Also the archive
 * step: on a B-LTA file it adds validation data for the newest timestamp and a new document
 * timestamp over everything.
 */
export async function extendPades(pdf: Buffer, options: ExtendOptions): Promise<Buffer> {
  if (options.level !== 'B-LT' && options.level !== 'B-LTA') return pdf;
  const certificates = [...(options.extraCertificates ?? []), ...signatureContents(pdf).flatMap(cmsCertificates)];
  const material = await collectValidationMaterial(certificates, options);
  const withDss = await addDss(pdf, material);
  if (options.level === 'B-LT') return withDss;
  return addDocumentTimestamp(withDss, options.tsaUrl, options);
}

/** When the newest timestamp's certificate (signature or document timestamp) stops being valid. */
export function newestTimestampExpiry(pdf: Buffer): Date | null {
  const contents = signatureContents(pdf);
  for (let i = contents.length - 1; i >= 0; i--) {
    const signedData = readSignedData(contents[i]);
    const tokens: Buffer[] = signedData.encapContentInfo.eContentType === OID.tstInfo
      ? [contents[i]]
      : signedData.signerInfos.flatMap((s) => (s.unsignedAttrs?.attributes ?? []).filter((a) => a.type === OID.signatureTimeStampToken).map((a) => Buffer.from(a.values[0].toBER())));
    for (const token of tokens) {
      const tsa = readSignedData(token);
      const sid = tsa.signerInfos[0]?.sid;
      const cert = (tsa.certificates ?? []).find(
        (c): c is pkijs.Certificate => c instanceof pkijs.Certificate && sid instanceof pkijs.IssuerAndSerialNumber && c.serialNumber.isEqual(sid.serialNumber) && c.issuer.isEqual(sid.issuer),
      );
      if (cert) return cert.notAfter.value;
    }
  }
  return null;
}

/** The TSA's time (genTime) of the file's newest document timestamp, or null when it has none. */
export function newestDocumentTimestampTime(pdf: Buffer): Date | null {
  const contents = signatureContents(pdf);
  for (let i = contents.length - 1; i >= 0; i--) {
    const signedData = readSignedData(contents[i]);
    if (signedData.encapContentInfo.eContentType !== OID.tstInfo || !signedData.encapContentInfo.eContent) continue;
    const der = signedData.encapContentInfo.eContent.valueBlock.valueHexView;
    return pkijs.TSTInfo.fromBER(der.slice().buffer).genTime;
  }
  return null;
}
