import { createHash, KeyObject, webcrypto } from 'node:crypto';
import * as asn1js from 'asn1js';
import * as pkijs from 'pkijs';

/**
 * CMS SignedData in the CAdES-BES shape that PAdES baseline B-B asks for:
 * signed attributes content-type, message-digest and ESS
 * signing-certificate-v2, and *no* signing-time (PAdES carries the claimed
 * time in the signature dictionary's /M; ETSI EN 319 142-1 forbids the
 * attribute). Built with pkijs + asn1js; only ESSCertIDv2, which pkijs has
 * no class for, is assembled from asn1js types here.
 */

export const OID = {
  data: '1.2.840.113549.1.7.1',
  signedData: '1.2.840.113549.1.7.2',
  tstInfo: '1.2.840.113549.1.9.16.1.4',
  contentType: '1.2.840.113549.1.9.3',
  messageDigest: '1.2.840.113549.1.9.4',
  signingTime: '1.2.840.113549.1.9.5',
  signingCertificateV2: '1.2.840.113549.1.9.16.2.47',
  signatureTimeStampToken: '1.2.840.113549.1.9.16.2.14',
  sha256: '2.16.840.1.101.3.4.2.1',
} as const;

/** Node's WebCrypto behind pkijs; passed explicitly so no process-wide engine is set. */
export const cryptoEngine = new pkijs.CryptoEngine({ name: 'node', crypto: webcrypto as unknown as Crypto });

export interface CmsSigner {
  /** DER of the signing certificate. */
  certificate: Buffer;
  /** Further certificates to ship (intermediates), DER. */
  chain: Buffer[];
  privateKey: KeyObject;
}

export const sha256 = (data: Buffer | Uint8Array): Buffer => createHash('sha256').update(data).digest();

const toArrayBuffer = (buf: Buffer | Uint8Array): ArrayBuffer => new Uint8Array(buf).buffer as ArrayBuffer;

export function parseCertificate(der: Buffer): pkijs.Certificate {
  return pkijs.Certificate.fromBER(toArrayBuffer(der));
}

const cryptoKeys = new WeakMap<KeyObject, Promise<CryptoKey>>();

/** The KeyObject as a WebCrypto key for pkijs (imported once per key). */
function cryptoKeyOf(key: KeyObject): Promise<CryptoKey> {
  let imported = cryptoKeys.get(key);
  if (!imported) {
    const pkcs8 = key.export({ format: 'der', type: 'pkcs8' });
    imported = webcrypto.subtle.importKey('pkcs8', pkcs8, { name: 'RSASSA-PKCS1-v1_5', hash: 'SHA-256' }, false, ['sign']) as Promise<CryptoKey>;
    cryptoKeys.set(key, imported);
  }
  return imported;
}

/** ESS SigningCertificateV2 (RFC 5035) naming the certificate by its SHA-256, hash algorithm left at its default. */
function signingCertificateV2(certificate: pkijs.Certificate, der: Buffer): pkijs.Attribute {
  const issuerSerial = new asn1js.Sequence({
    value: [
      new asn1js.Sequence({ value: [new pkijs.GeneralName({ type: 4, value: certificate.issuer }).toSchema()] }),
      certificate.serialNumber,
    ],
  });
  const essCertIdV2 = new asn1js.Sequence({ value: [new asn1js.OctetString({ valueHex: toArrayBuffer(sha256(der)) }), issuerSerial] });
  return new pkijs.Attribute({
    type: OID.signingCertificateV2,
    values: [new asn1js.Sequence({ value: [new asn1js.Sequence({ value: [essCertIdV2] })] })],
  });
}

/** DER orders a SET OF by the members' encodings, and the signature covers the SET as encoded. */
function derOrdered(attributes: pkijs.Attribute[]): pkijs.Attribute[] {
  return attributes
    .map((attribute) => ({ attribute, der: Buffer.from(attribute.toSchema().toBER()) }))
    .sort((a, b) => Buffer.compare(a.der, b.der))
    .map(({ attribute }) => attribute);
}

export interface SignedDataInput {
  signer: CmsSigner;
  /** SHA-256 of the signed content (for PDFs: the byte ranges). */
  contentDigest: Buffer;
  /** Defaults to id-data. */
  contentType?: string;
  /** Embedded content (timestamp tokens embed TSTInfo); omitted = detached. */
  content?: Buffer;
  /**
   * Called with the signature value before assembly; whatever it returns goes into the
   * unsigned attributes (used for the RFC 3161 signature-time-stamp token).
   */
  unsignedAttributes?: (signatureValue: Buffer) => Promise<pkijs.Attribute[]>;
}

const parsedCertificates = new WeakMap<CmsSigner, { certificate: pkijs.Certificate; chain: pkijs.Certificate[]; essSigningCertificate: pkijs.Attribute }>();

/**
 * The signer's certificates parsed (pkijs, about a third of building a CMS) once per signer: an
 * installation signs everything with one identity, and signerFromP12 hands out the same object.
 * Read only here: SignedData serialises them, nothing changes them.
 */
function parsedSigner(signer: CmsSigner) {
  let parsed = parsedCertificates.get(signer);
  if (!parsed) {
    const certificate = parseCertificate(signer.certificate);
    parsed = {
      certificate,
      chain: signer.chain.filter((c) => !c.equals(signer.certificate)).map(parseCertificate),
      essSigningCertificate: signingCertificateV2(certificate, signer.certificate),
    };
    parsedCertificates.set(signer, parsed);
  }
  return parsed;
}

/** ContentInfo(SignedData), DER. */
export async function buildSignedData(input: SignedDataInput): Promise<Buffer> {
  const { signer, contentDigest } = input;
  const contentType = input.contentType ?? OID.data;
  const { certificate, chain, essSigningCertificate } = parsedSigner(signer);

  const signedAttrs = derOrdered([
    new pkijs.Attribute({ type: OID.contentType, values: [new asn1js.ObjectIdentifier({ value: contentType })] }),
    new pkijs.Attribute({ type: OID.messageDigest, values: [new asn1js.OctetString({ valueHex: toArrayBuffer(contentDigest) })] }),
    essSigningCertificate,
  ]);
  const signedData = new pkijs.SignedData({
    // v3 when the content is not id-data (RFC 5652 §5.1).
    version: contentType === OID.data ? 1 : 3,
    encapContentInfo: new pkijs.EncapsulatedContentInfo({
      eContentType: contentType,
      ...(input.content ? { eContent: new asn1js.OctetString({ valueHex: toArrayBuffer(input.content) }) } : {}),
    }),
    certificates: [certificate, ...chain],
    signerInfos: [
      new pkijs.SignerInfo({
        version: 1,
        sid: new pkijs.IssuerAndSerialNumber({ issuer: certificate.issuer, serialNumber: certificate.serialNumber }),
        signedAttrs: new pkijs.SignedAndUnsignedAttributes({ type: 0, attributes: signedAttrs }),
      }),
    ],
  });
  await signedData.sign(await cryptoKeyOf(signer.privateKey), 0, 'SHA-256', undefined, cryptoEngine);

  const signerInfo = signedData.signerInfos[0];
  const unsigned = input.unsignedAttributes ? await input.unsignedAttributes(Buffer.from(signerInfo.signature.valueBlock.valueHexView)) : [];
  if (unsigned.length) signerInfo.unsignedAttrs = new pkijs.SignedAndUnsignedAttributes({ type: 1, attributes: unsigned });

  const contentInfo = new pkijs.ContentInfo({ contentType: OID.signedData, content: signedData.toSchema(true) });
  return Buffer.from(contentInfo.toSchema().toBER());
}

export function timestampTokenAttribute(token: Buffer): pkijs.Attribute {
  return new pkijs.Attribute({ type: OID.signatureTimeStampToken, values: [asn1js.fromBER(toArrayBuffer(token)).result] });
}

/** The SignedData inside a DER ContentInfo (a PDF's /Contents, a timestamp token). */
export function readSignedData(der: Buffer): pkijs.SignedData {
  const contentInfo = pkijs.ContentInfo.fromBER(toArrayBuffer(der));
  if (contentInfo.contentType !== OID.signedData) throw new Error('CMS: not SignedData');
  return new pkijs.SignedData({ schema: contentInfo.content });
}
