import { createHash, KeyObject, sign as rsaSign } from 'node:crypto';
import { children, contextTag, decode, integer, nullValue, octetString, oid, seq, set, TAG } from './der';

/**
 * CMS SignedData in the CAdES-BES shape that PAdES baseline B-B asks for:
 * signed attributes content-type, message-digest and ESS
 * signing-certificate-v2, and *no* signing-time (PAdES carries the claimed
 * time in the signature dictionary's /M; ETSI EN 319 142-1 forbids the
 * attribute). node-forge's PKCS#7 signer always adds signing-time and cannot
 * add signing-certificate-v2, hence our own builder.
 */

export const OID = {
  data: '1.2.840.113549.1.7.1',
  signedData: '1.2.840.113549.1.7.2',
  tstInfo: '1.2.840.113549.1.9.16.1.4',
  contentType: '1.2.840.113549.1.9.3',
  messageDigest: '1.2.840.113549.1.9.4',
  signingCertificateV2: '1.2.840.113549.1.9.16.2.47',
  signatureTimeStampToken: '1.2.840.113549.1.9.16.2.14',
  sha256: '2.16.840.1.101.3.4.2.1',
  rsaEncryption: '1.2.840.113549.1.1.1',
} as const;

export interface CmsSigner {
  /** DER of the signing certificate. */
  certificate: Buffer;
  /** Further certificates to ship (intermediates), DER. */
  chain: Buffer[];
  privateKey: KeyObject;
}

export const sha256 = (data: Buffer): Buffer => createHash('sha256').update(data).digest();

const sha256AlgorithmId = () => seq(oid(OID.sha256));

function attribute(type: string, ...values: Buffer[]): Buffer {
  return seq(oid(type), set(...values));
}

/** Issuer Name and serial INTEGER, copied byte for byte from the certificate. */
export function issuerAndSerial(certificateDer: Buffer): { issuer: Buffer; serial: Buffer } {
  const tbs = children(decode(certificateDer))[0];
  const fields = children(tbs);
  // tbsCertificate starts with an optional [0] version.
  const i = fields[0].tag === 0xa0 ? 1 : 0;
  if (fields[i].tag !== TAG.INTEGER) throw new Error('certificate: unexpected TBSCertificate layout');
  return { serial: fields[i].raw, issuer: fields[i + 2].raw };
}

function signingCertificateV2(certificateDer: Buffer): Buffer {
  const { issuer, serial } = issuerAndSerial(certificateDer);
  // ESSCertIDv2 with the default hash (SHA-256) omitted, as DER requires.
  const issuerSerial = seq(seq(contextTag(4, issuer)), serial);
  const essCertId = seq(octetString(sha256(certificateDer)), issuerSerial);
  return attribute(OID.signingCertificateV2, seq(seq(essCertId)));
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
   * Called with the signature value before assembly; whatever attributes it
   * returns go into unsignedAttrs (used for the RFC 3161 timestamp token).
   */
  unsignedAttributes?: (signatureValue: Buffer) => Promise<Buffer[]>;
}

export async function buildSignedData(input: SignedDataInput): Promise<Buffer> {
  const { signer, contentDigest } = input;
  const contentType = input.contentType ?? OID.data;

  const signedAttrs = [
    attribute(OID.contentType, oid(contentType)),
    attribute(OID.messageDigest, octetString(contentDigest)),
    signingCertificateV2(signer.certificate),
  ];
  // RFC 5652 §5.4: the signature covers the attributes encoded as a SET OF,
  // while the SignerInfo stores them under an IMPLICIT [0] tag.
  const signedAttrsSet = set(...signedAttrs);
  const signatureValue = rsaSign('sha256', signedAttrsSet, signer.privateKey);
  const unsigned = input.unsignedAttributes ? await input.unsignedAttributes(signatureValue) : [];

  const { issuer, serial } = issuerAndSerial(signer.certificate);
  const signerInfo = seq(
    integer(1),
    seq(issuer, serial),
    sha256AlgorithmId(),
    contextTag(0, decode(signedAttrsSet).content),
    seq(oid(OID.rsaEncryption), nullValue()),
    octetString(signatureValue),
    ...(unsigned.length ? [contextTag(1, decode(set(...unsigned)).content)] : []),
  );

  const encapContentInfo = seq(oid(contentType), ...(input.content ? [contextTag(0, octetString(input.content))] : []));
  const certificates = [signer.certificate, ...signer.chain.filter((c) => !c.equals(signer.certificate))];
  const signedData = seq(
    // v3 when the content is not id-data (RFC 5652 §5.1).
    integer(contentType === OID.data ? 1 : 3),
    set(sha256AlgorithmId()),
    encapContentInfo,
    contextTag(0, Buffer.concat(certificates)),
    set(signerInfo),
  );
  return seq(oid(OID.signedData), contextTag(0, signedData));
}

export function timestampTokenAttribute(token: Buffer): Buffer {
  return attribute(OID.signatureTimeStampToken, token);
}
