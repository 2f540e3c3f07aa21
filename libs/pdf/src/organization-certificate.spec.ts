import { createHash, generateKeyPairSync } from 'node:crypto';
import forge from 'node-forge';
import { inspectSigningP12, SigningP12Error } from './organization-certificate';
import inspectSigningP12Job from './pool/inspect-signing-p12.handler';

const DAY = 86_400_000;
const NOW = new Date('2026-11-26T12:00:00.000Z');

function rsaKey(): forge.pki.rsa.PrivateKey {
  const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048, privateKeyEncoding: { type: 'pkcs8', format: 'pem' }, publicKeyEncoding: { type: 'spki', format: 'pem' } });
  return forge.pki.privateKeyFromPem(privateKey) as forge.pki.rsa.PrivateKey;
}

function certificate(key: forge.pki.rsa.PrivateKey, subject: string, notBefore: Date, notAfter: Date, issuer?: { key: forge.pki.rsa.PrivateKey; name: string }): forge.pki.Certificate {
  const cert = forge.pki.createCertificate();
  cert.publicKey = forge.pki.setRsaPublicKey(key.n, key.e);
  cert.serialNumber = '01a2b3';
  cert.validity.notBefore = notBefore;
  cert.validity.notAfter = notAfter;
  cert.setSubject([{ name: 'commonName', value: subject }, { name: 'organizationName', value: 'Dojang Test Org' }]);
  cert.setIssuer([{ name: 'commonName', value: issuer?.name ?? subject }]);
  cert.sign(issuer?.key ?? key, forge.md.sha256.create());
  return cert;
}

const p12Of = (key: forge.pki.rsa.PrivateKey, certs: forge.pki.Certificate[], password: string) =>
  Buffer.from(forge.asn1.toDer(forge.pkcs12.toPkcs12Asn1(key, certs, password, { algorithm: 'aes256' })).getBytes(), 'binary');

const problem = (fn: () => unknown) => {
  try {
    fn();
  } catch (error) {
    expect(error).toBeInstanceOf(SigningP12Error);
    return (error as SigningP12Error).code;
  }
  throw new Error('accepted');
};

/** An organization's own .p12: what is shown of it, and a clear refusal for each way it cannot sign. */
describe('inspectSigningP12', () => {
  const caKey = rsaKey();
  const key = rsaKey();
  const ca = certificate(caKey, 'Org Test CA', new Date(NOW.getTime() - 30 * DAY), new Date(NOW.getTime() + 3650 * DAY));
  const valid = certificate(key, 'Org Document Signing', new Date(NOW.getTime() - DAY), new Date(NOW.getTime() + 365 * DAY), { key: caKey, name: 'Org Test CA' });

  it('shows subject, issuer, validity, SHA-256 fingerprint and the chain (signing certificate first)', () => {
    const summary = inspectSigningP12(p12Of(key, [ca, valid], 'pw'), 'pw', NOW);
    const der = Buffer.from(forge.asn1.toDer(forge.pki.certificateToAsn1(valid)).getBytes(), 'binary');
    expect(summary).toEqual({
      subject: 'CN=Org Document Signing, O=Dojang Test Org',
      issuer: 'CN=Org Test CA',
      not_before: valid.validity.notBefore.toISOString(),
      not_after: valid.validity.notAfter.toISOString(),
      serial_number: '01a2b3',
      sha256_fingerprint: createHash('sha256').update(der).digest('hex'),
      chain_pem: [forge.pki.certificateToPem(valid), forge.pki.certificateToPem(ca)],
    });
  });

  it('refuses a wrong password, a file that is not a PKCS#12, and a PKCS#12 without a key', () => {
    expect(problem(() => inspectSigningP12(p12Of(key, [valid], 'pw'), 'other', NOW))).toBe('wrong_password');
    expect(problem(() => inspectSigningP12(Buffer.from(forge.pki.certificateToPem(valid)), 'pw', NOW))).toBe('unsupported_format');
    const certOnly = Buffer.from(forge.asn1.toDer(forge.pkcs12.toPkcs12Asn1(null, [valid], 'pw', { algorithm: 'aes256' })).getBytes(), 'binary');
    expect(problem(() => inspectSigningP12(certOnly, 'pw', NOW))).toBe('no_private_key');
  });

  it('refuses a key that does not match its certificate', () => {
    expect(problem(() => inspectSigningP12(p12Of(rsaKey(), [valid], 'pw'), 'pw', NOW))).toBe('key_mismatch');
  });

  it('refuses an expired or a not-yet-valid certificate', () => {
    const expired = certificate(key, 'old', new Date(NOW.getTime() - 400 * DAY), new Date(NOW.getTime() - DAY));
    const future = certificate(key, 'future', new Date(NOW.getTime() + DAY), new Date(NOW.getTime() + 400 * DAY));
    expect(problem(() => inspectSigningP12(p12Of(key, [expired], 'pw'), 'pw', NOW))).toBe('certificate_expired');
    expect(problem(() => inspectSigningP12(p12Of(key, [future], 'pw'), 'pw', NOW))).toBe('certificate_not_yet_valid');
  });

  it('the pool job answers a refusal as data (a class does not cross the thread boundary)', async () => {
    const p12 = p12Of(key, [ca, valid], 'pw');
    await expect(inspectSigningP12Job({ p12, password: 'pw', now: NOW.toISOString() })).resolves.toMatchObject({ ok: true, certificate: { issuer: 'CN=Org Test CA' } });
    await expect(inspectSigningP12Job({ p12, password: 'nope', now: NOW.toISOString() })).resolves.toEqual({ ok: false, code: 'wrong_password', message: 'The password does not open this PKCS#12 file.' });
  });
});
