import { createHash } from 'node:crypto';
import '../../pdf/src/native-deflate';
import { pdflibAddPlaceholder } from '@signpdf/placeholder-pdf-lib';
import signpdf, { Signer } from '@signpdf/signpdf';
import { PDFArray, PDFDict, PDFDocument, PDFHexString, PDFInvalidObject, PDFName, PDFRef, PDFString } from 'pdf-lib';
import { updateIncrementally } from '../../pdf/src/append-pdfs';
import { buildSignedData, CmsSigner, sha256, timestampTokenAttribute } from './cades-cms';
import { requestTimestampToken } from './rfc3161-timestamp';
import { checkCertificateChain } from './revocation-check';
import { signerFromP12 } from './signing-identity';
import { signerFromSpec, type SigningKeySpec } from './signing-key';
import { assertOffMainThread } from '../../pdf/src/main-thread-guard';

export interface SignPdfOptions {
  /** The file adapter's PKCS#12 and passphrase, unless `key` names another adapter. */
  p12?: Buffer;
  passphrase?: string;
  /** Where the key lives (signing-key.ts): a PKCS#11 token, a remote signer, a file. */
  key?: SigningKeySpec;
  reason?: string;
  name?: string;
  location?: string;
  /** RFC 3161 TSA; when set the signature gets a signature-time-stamp (PAdES B-T). */
  tsaUrl?: string;
  /** Claimed signing time for /M; defaults to now. */
  signingTime?: Date;
  /**
   * Entries for the document information dictionary (e.g. `DojangChainHead`), written before
   * signing so the signature covers them: evidence a reader of the PDF alone can check.
   */
  evidence?: Record<string, string>;
}

export const PADES_SUBFILTER = 'ETSI.CAdES.detached';

function signerOf(opts: SignPdfOptions): CmsSigner {
  if (opts.key) return signerFromSpec(opts.key);
  if (!opts.p12) throw new Error('signPdf: neither a key nor a PKCS#12 given');
  return signerFromP12(opts.p12, opts.passphrase ?? '');
}

/**
 * Before every signature: the certificate and its chain valid now and, where they name OCSP or CRL
 * sources, not revoked (revocation-check.ts). A revoked or expired key signs nothing.
 */
async function checkSignerCertificate(signer: CmsSigner): Promise<void> {
  await checkCertificateChain([signer.certificate, ...signer.chain], { role: 'signing' });
}

export function sha256Hex(buf: Buffer | Uint8Array): string {
  return createHash('sha256').update(buf).digest('hex');
}

/** @signpdf hands us the file minus the /Contents hole; we return the CMS. */
class CadesSigner extends Signer {
  constructor(
    private readonly signer: CmsSigner,
    private readonly tsaUrl: string | undefined,
  ) {
    super();
  }

  async sign(signedBytes: Buffer): Promise<Buffer> {
    const tsaUrl = this.tsaUrl;
    return buildSignedData({
      signer: this.signer,
      contentDigest: sha256(signedBytes),
      unsignedAttributes: tsaUrl
        ? async (signatureValue) => [timestampTokenAttribute(await requestTimestampToken(tsaUrl, signatureValue))]
        : undefined,
    });
  }
}

/**
 * Room for the CMS in /Contents. The signed part is fixed-size for a given
 * certificate chain; a timestamp token (with the TSA's certificates) gets a
 * generous allowance because its size is the TSA's choice.
 */
function contentsCapacity(signer: CmsSigner, withTimestamp: boolean): number {
  const certificates = signer.certificate.length + signer.chain.reduce((n, c) => n + c.length, 0);
  return certificates + 2048 + (withTimestamp ? 16384 : 0);
}

function infoDictionary(doc: PDFDocument): PDFDict {
  const existing = doc.context.trailerInfo.Info;
  const found = existing ? doc.context.lookup(existing) : undefined;
  if (found instanceof PDFDict) return found;
  const info = doc.context.obj({});
  doc.context.trailerInfo.Info = doc.context.register(info);
  return info;
}

/** The `evidence` entries a PDF's information dictionary carries (keys starting with `Dojang`). */
export async function readPdfEvidence(pdf: Buffer): Promise<Record<string, string>> {
  assertOffMainThread('readPdfEvidence');
  const doc = await PDFDocument.load(pdf, { updateMetadata: false, ignoreEncryption: true });
  const ref = doc.context.trailerInfo.Info;
  const info = ref ? doc.context.lookup(ref) : undefined;
  const out: Record<string, string> = {};
  if (!(info instanceof PDFDict)) return out;
  for (const [key, value] of info.entries()) {
    const name = key.decodeText();
    if (name.startsWith('Dojang') && (value instanceof PDFHexString || 'decodeText' in value)) out[name] = (value as PDFHexString).decodeText();
  }
  return out;
}

/**
 * PAdES baseline B-B signature over the whole file: SubFilter
 * ETSI.CAdES.detached, ByteRange = everything except the /Contents hole,
 * invisible widget on page 1.
 *
 * pdf-lib rewrites the file, so signatures already present in the input do
 * not survive; sign once, as the last step of building the final PDF.
 */
export async function signPdf(pdf: Buffer, opts: SignPdfOptions): Promise<Buffer> {
  return signDocument(await PDFDocument.load(pdf, { updateMetadata: false }), opts);
}

/**
 * signPdf on a loaded document (which it writes out): the final PDF is stamped and signed in one
 * parse and one write.
 */
export async function signDocument(doc: PDFDocument, opts: SignPdfOptions): Promise<Buffer> {
  assertOffMainThread('signDocument');
  const signer = signerOf(opts);
  await checkSignerCertificate(signer);
  if (opts.evidence) {
    const info = infoDictionary(doc);
    for (const [key, value] of Object.entries(opts.evidence)) info.set(PDFName.of(key), PDFHexString.fromText(value));
  }
  addSignaturePlaceholder(doc, signer, opts);
  // @signpdf locates /ByteRange and /Contents by scanning bytes, so the
  // signature dictionary must not be compressed into an object stream.
  const withPlaceholder = Buffer.from(await doc.save({ useObjectStreams: false }));
  return signpdf.sign(withPlaceholder, new CadesSigner(signer, opts.tsaUrl), opts.signingTime);
}

/**
 * PDF text strings are PDFDocEncoding or UTF-16BE with a byte order mark (ISO 32000-1, 7.9.2.2).
 * @signpdf writes /Reason, /Name, /Location and /ContactInfo as literal strings of the UTF-16 code
 * units' low bytes, so a Korean title read back as garbage in every viewer and in pdfsig (issue 25,
 * item 5). Text beyond printable ASCII goes in as a marker and is swapped for its UTF-16BE hex
 * string (with BOM) in the dictionary's bytes, which @signpdf has already serialized.
 */
const isPlainAscii = (text: string) => /^[\x20-\x7e]*$/.test(text);
const utf16Hex = (text: string) => PDFHexString.fromText(text).toString();

/** The PAdES signature dictionary and its empty /Contents, sized for this signer (and a token). */
function addSignaturePlaceholder(doc: PDFDocument, signer: CmsSigner, opts: SignPdfOptions): void {
  addPlaceholder(doc, { reason: opts.reason, name: opts.name, location: opts.location, signingTime: opts.signingTime, subFilter: PADES_SUBFILTER, capacity: contentsCapacity(signer, !!opts.tsaUrl) });
}

export interface PlaceholderOptions {
  reason?: string;
  name?: string;
  location?: string;
  signingTime?: Date;
  subFilter: string;
  /** Bytes reserved for /Contents. */
  capacity: number;
  /** A document timestamp (`/Type /DocTimeStamp`, ISO 32000-2 12.8.5) rather than a signature. */
  documentTimestamp?: boolean;
}

/**
 * A signature dictionary with an empty /Contents of `capacity` bytes, its invisible widget on page
 * 1 and a field named after the fields already there (names must be unique). Shared by the PAdES
 * signature and the document timestamps of B-LTA (pades-ltv.ts).
 */
export function addPlaceholder(doc: PDFDocument, opts: PlaceholderOptions): void {
  const acroForm = doc.catalog.lookupMaybe(PDFName.of('AcroForm'), PDFDict);
  const existing = acroForm?.lookupMaybe(PDFName.of('Fields'), PDFArray)?.size() ?? 0;
  const swaps = new Map<string, string>();
  const text = (value: string | undefined) => {
    const plain = value ?? '';
    if (isPlainAscii(plain)) return plain;
    const marker = `DojangText${swaps.size}x${Date.now()}`;
    swaps.set(`(${marker})`, utf16Hex(plain));
    return marker;
  };
  pdflibAddPlaceholder({
    pdfDoc: doc,
    reason: text(opts.reason),
    contactInfo: '',
    name: text(opts.name),
    location: text(opts.location),
    signingTime: opts.signingTime,
    subFilter: opts.subFilter,
    // @signpdf counts hex digits here, two per CMS byte.
    signatureLength: 2 * opts.capacity,
    appName: 'Dojang',
  });
  const fields = doc.catalog.lookup(PDFName.of('AcroForm'), PDFDict).lookup(PDFName.of('Fields'), PDFArray);
  const field = fields.lookup(fields.size() - 1, PDFDict);
  // The placeholder always names its field Signature1; field names must be unique.
  if (existing > 0) field.set(PDFName.of('T'), PDFString.of(`Signature${existing + 1}`));
  if (opts.documentTimestamp) swaps.set('/Type /Sig', '/Type /DocTimeStamp');
  if (swaps.size === 0) return;
  const ref = field.get(PDFName.of('V'));
  const serialized = ref instanceof PDFRef ? doc.context.lookup(ref) : undefined;
  if (!(ref instanceof PDFRef) || !(serialized instanceof PDFInvalidObject)) throw new Error('pdf: the signature dictionary is not where @signpdf puts it');
  const bytes = new Uint8Array(serialized.sizeInBytes());
  serialized.copyBytesInto(bytes, 0);
  let dict = Buffer.from(bytes).toString('latin1');
  for (const [marker, hex] of swaps) dict = dict.replace(marker, hex);
  doc.context.assign(ref, PDFInvalidObject.of(Buffer.from(dict, 'latin1')));
}

/**
 * Signs a PDF again without touching what is already there: the new signature field goes in an
 * incremental update, so earlier signatures keep verifying for their revisions and this one
 * covers the whole file (the audit bundle: signed contract + certificate appended after it).
 * A file that cannot be updated incrementally (no classic cross-reference table) holds no
 * signature worth keeping and is signed as a whole by signPdf.
 */
export async function countersignPdf(pdf: Buffer, opts: SignPdfOptions): Promise<Buffer> {
  assertOffMainThread('countersignPdf');
  const signer = signerOf(opts);
  await checkSignerCertificate(signer);
  const withPlaceholder = await updateIncrementally(pdf, (doc) => {
    // As signPdf does: written in the update, before the placeholder, so the signature covers it.
    if (opts.evidence) {
      const info = infoDictionary(doc);
      for (const [key, value] of Object.entries(opts.evidence)) info.set(PDFName.of(key), PDFHexString.fromText(value));
    }
    addSignaturePlaceholder(doc, signer, opts);
  });
  if (!withPlaceholder) return signPdf(pdf, opts);
  return signpdf.sign(withPlaceholder, new CadesSigner(signer, opts.tsaUrl), opts.signingTime);
}
