import { createHash, KeyObject, sign } from 'node:crypto';
import * as asn1js from 'asn1js';
import * as pkijs from 'pkijs';

/**
 * CMS SignedData in the CAdES-BES shape that PAdES baseline B-B asks for:
 * signed attributes content-type, message-digest and ESS
 * signing-certificate-v2, and *no* signing-time (PAdES carries the claimed
 * time in the signature dictionary's /M; ETSI EN 319 142-1 forbids the
 * attribute). The DER is written here (buildSignedData); pkijs + asn1js
 * parse the certificate and encode its issuer and the ESSCertIDv2 once per
 * signer, and read CMS back (timestamps, tests).
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

export interface CmsSigner {
  /** DER of the signing certificate. */
  certificate: Buffer;
  /** Further certificates to ship (intermediates), DER. */
  chain: Buffer[];
  /** The key in memory (the file adapter)… */
  privateKey?: KeyObject;
  /**
   * …or a key elsewhere (a PKCS#11 token, a remote signer): RSA PKCS #1 v1.5 over the SHA-256
   * `digest` of the DER signed attributes, computed outside and signed where the key lives.
   */
  signDigest?: (digest: Buffer) => Promise<Buffer>;
}

export const sha256 = (data: Buffer | Uint8Array): Buffer => createHash('sha256').update(data).digest();

const toArrayBuffer = (buf: Buffer | Uint8Array): ArrayBuffer => new Uint8Array(buf).buffer as ArrayBuffer;

export function parseCertificate(der: Buffer): pkijs.Certificate {
  return pkijs.Certificate.fromBER(toArrayBuffer(der));
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

// DER, written directly: tag, definite length, contents.
function derLength(n: number): Buffer {
  if (n < 0x80) return Buffer.from([n]);
  const bytes: number[] = [];
  for (let v = n; v > 0; v = Math.floor(v / 256)) bytes.unshift(v & 0xff);
  return Buffer.from([0x80 | bytes.length, ...bytes]);
}
function tlv(tag: number, ...contents: Buffer[]): Buffer {
  const body = Buffer.concat(contents);
  return Buffer.concat([Buffer.from([tag]), derLength(body.length), body]);
}
const sequence = (...contents: Buffer[]) => tlv(0x30, ...contents);
const set = (...contents: Buffer[]) => tlv(0x31, ...contents);
const octetString = (value: Buffer | Uint8Array) => tlv(0x04, Buffer.from(value.buffer, value.byteOffset, value.byteLength));
const smallInteger = (n: number) => tlv(0x02, Buffer.from([n]));
const NULL = Buffer.from([0x05, 0x00]);
const oidCache = new Map<string, Buffer>();
function objectIdentifier(dotted: string): Buffer {
  let der = oidCache.get(dotted);
  if (!der) {
    const arcs = dotted.split('.').map(Number);
    const body: number[] = [arcs[0] * 40 + arcs[1]];
    for (const arc of arcs.slice(2)) {
      const base128: number[] = [];
      for (let v = arc; ; v = Math.floor(v / 128)) {
        base128.unshift((v & 0x7f) | (base128.length ? 0x80 : 0));
        if (v < 128) break;
      }
      body.push(...base128);
    }
    oidCache.set(dotted, (der = tlv(0x06, Buffer.from(body))));
  }
  return der;
}
const SHA256_WITH_RSA = '1.2.840.113549.1.1.11';

/** eContent as a constructed OCTET STRING of 64 KiB pieces (the form pkijs writes, BER-valid in CMS). */
function constructedOctets(content: Buffer): Buffer {
  const pieces: Buffer[] = [];
  for (let offset = 0; offset < content.length; offset += 65536) pieces.push(octetString(content.subarray(offset, offset + 65536)));
  return tlv(0x24, ...pieces);
}

interface PreparedSigner {
  certificates: Buffer[];
  issuerAndSerialNumber: Buffer;
  essSigningCertificate: Buffer;
}
const preparedSigners = new WeakMap<CmsSigner, PreparedSigner>();

/**
 * What every signature by this signer repeats, encoded once: its certificates, its
 * IssuerAndSerialNumber and the ESS signing-certificate-v2 attribute. An installation signs
 * everything with one identity, and signerFromP12 hands out the same object.
 */
function prepared(signer: CmsSigner): PreparedSigner {
  let p = preparedSigners.get(signer);
  if (!p) {
    const certificate = parseCertificate(signer.certificate);
    const chain = signer.chain.filter((c) => !c.equals(signer.certificate));
    p = {
      certificates: [signer.certificate, ...chain],
      issuerAndSerialNumber: sequence(Buffer.from(certificate.issuer.toSchema().toBER()), Buffer.from(certificate.serialNumber.toBER())),
      essSigningCertificate: Buffer.from(signingCertificateV2(certificate, signer.certificate).toSchema().toBER()),
    };
    preparedSigners.set(signer, p);
  }
  return p;
}

/**
 * ContentInfo(SignedData), DER. Written directly rather than through pkijs's object model, which
 * cost about 1 ms per signature (and a WebCrypto round trip through libuv's pool); the bytes are
 * those pkijs wrote (testing/pkijs-signed-data.ts is the reference a test compares with). RSA
 * PKCS #1 v1.5 with SHA-256 over the DER SET OF signed attributes, as RFC 5652 §5.4 says.
 */
export async function buildSignedData(input: SignedDataInput): Promise<Buffer> {
  const { signer, contentDigest } = input;
  const contentType = input.contentType ?? OID.data;
  const { certificates, issuerAndSerialNumber, essSigningCertificate } = prepared(signer);
  const digestAlgorithm = sequence(objectIdentifier(OID.sha256), NULL);

  // DER orders a SET OF by the members' encodings, and the signature covers the SET as encoded.
  const attributes = [
    sequence(objectIdentifier(OID.contentType), set(objectIdentifier(contentType))),
    sequence(objectIdentifier(OID.messageDigest), set(octetString(contentDigest))),
    essSigningCertificate,
  ].sort(Buffer.compare);
  const signedAttributes = set(...attributes);
  const signatureValue = signer.signDigest
    ? await signer.signDigest(sha256(signedAttributes))
    : sign('sha256', signedAttributes, signer.privateKey as KeyObject);
  const unsigned = input.unsignedAttributes ? await input.unsignedAttributes(signatureValue) : [];

  const signerInfo = sequence(
    smallInteger(1),
    issuerAndSerialNumber,
    digestAlgorithm,
    tlv(0xa0, ...attributes),
    sequence(objectIdentifier(SHA256_WITH_RSA)),
    octetString(signatureValue),
    ...(unsigned.length ? [tlv(0xa1, ...unsigned.map((a) => Buffer.from(a.toSchema().toBER())))] : []),
  );
  const signedData = sequence(
    // v3 when the content is not id-data (RFC 5652 §5.1).
    smallInteger(contentType === OID.data ? 1 : 3),
    set(digestAlgorithm),
    sequence(objectIdentifier(contentType), ...(input.content ? [tlv(0xa0, constructedOctets(input.content))] : [])),
    tlv(0xa0, ...certificates),
    set(signerInfo),
  );
  return sequence(objectIdentifier(OID.signedData), tlv(0xa0, signedData));
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
