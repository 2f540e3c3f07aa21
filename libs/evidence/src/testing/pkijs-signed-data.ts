import { webcrypto } from 'node:crypto';
import * as asn1js from 'asn1js';
import * as pkijs from 'pkijs';
import { OID, parseCertificate, type SignedDataInput } from '../cades-cms';

/** Node's WebCrypto behind pkijs; passed explicitly so no process-wide engine is set. */
const cryptoEngine = new pkijs.CryptoEngine({ name: 'node', crypto: webcrypto as unknown as Crypto });

const toArrayBuffer = (buf: Buffer | Uint8Array): ArrayBuffer => new Uint8Array(buf).buffer as ArrayBuffer;

/**
 * The CMS SignedData as pkijs builds it (how cades-cms.ts built it before it wrote the DER
 * itself): the reference the hand-written encoding must match byte for byte.
 */
export async function pkijsSignedData(input: SignedDataInput): Promise<Buffer> {
  const { signer, contentDigest } = input;
  const contentType = input.contentType ?? OID.data;
  const certificate = parseCertificate(signer.certificate);
  const chain = signer.chain.filter((c) => !c.equals(signer.certificate)).map(parseCertificate);
  const issuerSerial = new asn1js.Sequence({
    value: [new asn1js.Sequence({ value: [new pkijs.GeneralName({ type: 4, value: certificate.issuer }).toSchema()] }), certificate.serialNumber],
  });
  const essCertIdV2 = new asn1js.Sequence({
    value: [new asn1js.OctetString({ valueHex: toArrayBuffer(Buffer.from(await webcrypto.subtle.digest('SHA-256', signer.certificate))) }), issuerSerial],
  });
  const ess = new pkijs.Attribute({ type: OID.signingCertificateV2, values: [new asn1js.Sequence({ value: [new asn1js.Sequence({ value: [essCertIdV2] })] })] });
  const signedAttrs = [
    new pkijs.Attribute({ type: OID.contentType, values: [new asn1js.ObjectIdentifier({ value: contentType })] }),
    new pkijs.Attribute({ type: OID.messageDigest, values: [new asn1js.OctetString({ valueHex: toArrayBuffer(contentDigest) })] }),
    ess,
  ]
    .map((attribute) => ({ attribute, der: Buffer.from(attribute.toSchema().toBER()) }))
    .sort((a, b) => Buffer.compare(a.der, b.der))
    .map(({ attribute }) => attribute);
  const signedData = new pkijs.SignedData({
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
  const pkcs8 = signer.privateKey!.export({ format: 'der', type: 'pkcs8' });
  const key = await webcrypto.subtle.importKey('pkcs8', pkcs8, { name: 'RSASSA-PKCS1-v1_5', hash: 'SHA-256' }, false, ['sign']);
  await signedData.sign(key as unknown as CryptoKey, 0, 'SHA-256', undefined, cryptoEngine);
  const signerInfo = signedData.signerInfos[0];
  const unsigned = input.unsignedAttributes ? await input.unsignedAttributes(Buffer.from(signerInfo.signature.valueBlock.valueHexView)) : [];
  if (unsigned.length) signerInfo.unsignedAttrs = new pkijs.SignedAndUnsignedAttributes({ type: 1, attributes: unsigned });
  const contentInfo = new pkijs.ContentInfo({ contentType: OID.signedData, content: signedData.toSchema(true) });
  return Buffer.from(contentInfo.toSchema().toBER());
}
