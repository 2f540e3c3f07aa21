import { createHash, X509Certificate } from 'node:crypto';
import forge from 'node-forge';
// Relative, as audit-certificate.ts takes zoned-time.ts: a pure module that imports nothing.
import { oneLineDistinguishedName } from '../../domain/src/shared/distinguished-name';

/** Why an uploaded signing certificate is refused (the API answers 400 with this code). */
export type SigningP12Problem = 'unsupported_format' | 'wrong_password' | 'no_private_key' | 'key_mismatch' | 'certificate_expired' | 'certificate_not_yet_valid';

export class SigningP12Error extends Error {
  readonly name = 'SigningP12Error';
  constructor(
    readonly code: SigningP12Problem,
    message: string,
  ) {
    super(message);
  }
}

/** What an organization's own signing certificate is, as `GET /v1/organization/signing_certificate` shows it. */
export interface SigningCertificateSummary {
  subject: string;
  issuer: string;
  not_before: string;
  not_after: string;
  serial_number: string;
  /** SHA-256 of the certificate's DER, lower-case hex. */
  sha256_fingerprint: string;
  /** The signing certificate, then the rest of the chain the file carries, PEM. */
  chain_pem: string[];
}

const toBinary = (buf: Buffer) => buf.toString('binary');
const derOf = (cert: forge.pki.Certificate) => Buffer.from(forge.asn1.toDer(forge.pki.certificateToAsn1(cert)).getBytes(), 'binary');

/**
 * Opens an uploaded PKCS#12 (.p12/.pfx) with its password and checks it can sign documents now:
 * a readable PKCS#12 (node-forge, as the installation's own identity is read), the right password
 * (the file's MAC), an RSA private key, a certificate for that key, valid at `now`. Each failure is
 * a SigningP12Error naming the problem, so the API answers a 400 that says what to fix. CPU-bound
 * (PBKDF2 in JavaScript): run it in the PDF pool.
 */
export function inspectSigningP12(p12: Buffer, password: string, now: Date = new Date()): SigningCertificateSummary {
  let asn1: forge.asn1.Asn1;
  try {
    asn1 = forge.asn1.fromDer(toBinary(p12));
  } catch {
    throw new SigningP12Error('unsupported_format', 'The file is not a PKCS#12 (.p12 or .pfx) in DER form.');
  }
  let store: forge.pkcs12.Pkcs12Pfx;
  try {
    store = forge.pkcs12.pkcs12FromAsn1(asn1, false, password);
  } catch (error) {
    const message = (error as Error).message ?? '';
    if (/MAC could not be verified|Invalid password/i.test(message)) throw new SigningP12Error('wrong_password', 'The password does not open this PKCS#12 file.');
    throw new SigningP12Error('unsupported_format', `The PKCS#12 file cannot be read: ${message}`);
  }
  let keyBags: forge.pkcs12.Bag[];
  try {
    keyBags = [
      ...(store.getBags({ bagType: forge.pki.oids.pkcs8ShroudedKeyBag })[forge.pki.oids.pkcs8ShroudedKeyBag] ?? []),
      ...(store.getBags({ bagType: forge.pki.oids.keyBag })[forge.pki.oids.keyBag] ?? []),
    ];
  } catch (error) {
    throw new SigningP12Error('unsupported_format', `The PKCS#12 file's key cannot be read: ${(error as Error).message}`);
  }
  const privateKey = keyBags.find((bag) => bag.key)?.key as forge.pki.rsa.PrivateKey | undefined;
  if (!privateKey) {
    throw new SigningP12Error(keyBags.length ? 'unsupported_format' : 'no_private_key', keyBags.length ? 'Only RSA private keys are supported.' : 'The PKCS#12 file holds no private key.');
  }
  const certs = (store.getBags({ bagType: forge.pki.oids.certBag })[forge.pki.oids.certBag] ?? []).map((bag) => bag.cert).filter((c): c is forge.pki.Certificate => !!c);
  const certificate = certs.find((cert) => {
    const key = cert.publicKey as forge.pki.rsa.PublicKey;
    return !!key.n && key.n.equals(privateKey.n) && key.e.equals(privateKey.e);
  });
  if (!certificate) throw new SigningP12Error('key_mismatch', 'No certificate in the PKCS#12 file matches its private key.');
  const { notBefore, notAfter } = certificate.validity;
  if (now < notBefore) throw new SigningP12Error('certificate_not_yet_valid', `The certificate is valid only from ${notBefore.toISOString()}.`);
  if (now > notAfter) throw new SigningP12Error('certificate_expired', `The certificate expired on ${notAfter.toISOString()}.`);
  // The names through OpenSSL (Node's X509Certificate), which decodes each value as its ASN.1
  // string type says: forge hands UTF8String and BMPString values back as raw bytes, and
  // `O=Acme 주식회사` was shown, and recorded in SigningCertificateUploaded, as `O=Acme ì£¼ìíì¬`.
  const x509 = new X509Certificate(derOf(certificate));
  return {
    subject: oneLineDistinguishedName(x509.subject),
    issuer: oneLineDistinguishedName(x509.issuer),
    not_before: notBefore.toISOString(),
    not_after: notAfter.toISOString(),
    serial_number: certificate.serialNumber,
    sha256_fingerprint: createHash('sha256').update(derOf(certificate)).digest('hex'),
    chain_pem: [certificate, ...certs.filter((c) => c !== certificate)].map((c) => forge.pki.certificateToPem(c)),
  };
}
