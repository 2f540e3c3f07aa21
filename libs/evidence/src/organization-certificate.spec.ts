import { execFileSync } from 'node:child_process';
import { createHash, generateKeyPairSync } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import forge from 'node-forge';
import { inspectSigningP12, SigningP12Error } from './organization-certificate';
import inspectSigningP12Job from '../../pdf/src/pool/inspect-signing-p12.handler';

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

/**
 * A .p12 made by OpenSSL as Korean CAs and companies make them: `-utf8` names, encoded as
 * UTF8String (string_mask utf8only, the default) or as BMPString (string_mask default).
 */
function opensslP12(subject: string, stringMask: 'utf8only' | 'default'): Buffer {
  const dir = mkdtempSync(join(tmpdir(), 'dojang-dn-'));
  try {
    writeFileSync(join(dir, 'req.cnf'), `[req]\ndistinguished_name=dn\nstring_mask=${stringMask}\n[dn]\n`);
    execFileSync('openssl', ['req', '-config', join(dir, 'req.cnf'), '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', join(dir, 'k.pem'), '-out', join(dir, 'c.pem'), '-days', '30', '-utf8', '-subj', subject], { stdio: 'ignore' });
    execFileSync('openssl', ['pkcs12', '-export', '-inkey', join(dir, 'k.pem'), '-in', join(dir, 'c.pem'), '-out', join(dir, 'a.p12'), '-passout', 'pass:pw'], { stdio: 'ignore' });
    return readFileSync(join(dir, 'a.p12'));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

describe('inspectSigningP12 with Korean names (issue 31, item 4)', () => {
  it.each([
    ['UTF8String', 'utf8only'],
    ['BMPString', 'default'],
  ] as const)('decodes a %s subject as the certificate holds it', (_type, mask) => {
    const summary = inspectSigningP12(opensslP12('/O=주식회사 한빛소프트/CN=홍길동', mask), 'pw');
    expect(summary.subject).toBe('O=주식회사 한빛소프트, CN=홍길동');
    expect(summary.issuer).toBe('O=주식회사 한빛소프트, CN=홍길동');
  });

  it('shows control and bidi characters escaped, and a 4 KB subject whole', () => {
    // 70 units of 20 syllables (60 UTF-8 bytes each: an attribute holds at most 64 characters).
    const units = Array.from({ length: 70 }, (_, i) => `${String(i).padStart(2, '0')}${'가'.repeat(18)}`);
    const summary = inspectSigningP12(opensslP12(`/O=evil\u202egnp${units.map((u) => `/OU=${u}`).join('')}`, 'utf8only'), 'pw');
    expect(Buffer.byteLength(summary.subject)).toBeGreaterThan(4096);
    expect(summary.subject).toBe(`O=evil\\E2\\80\\AEgnp, ${units.map((u) => `OU=${u}`).join(', ')}`);
  });
});
