import { createHash, createPrivateKey, generateKeyPairSync, KeyObject, randomBytes } from 'node:crypto';
import { chmod, mkdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import forge from 'node-forge';
import type { CmsSigner } from './cades-cms';

export interface SigningIdentity {
  p12: Buffer;
  passphrase: string;
  certificatePem: string;
}

export interface SigningIdentityOptions {
  /** DATA_DIR; a generated identity lives in `<dataDir>/signing/`. */
  dataDir: string;
  /** SIGNING_P12: an operator-provided PKCS#12 file, used instead of generating one. */
  p12Path?: string;
  p12Password?: string;
}

export const GENERATED_CERTIFICATE_CN = 'Dojang Document Signing';
const P12_FILE = 'dojang-signing.p12';
const PASSPHRASE_FILE = 'dojang-signing.passphrase';

const toBinary = (buf: Buffer) => buf.toString('binary');
const fromBinary = (s: string) => Buffer.from(s, 'binary');

interface OpenedP12 {
  certificate: forge.pki.Certificate;
  chain: forge.pki.Certificate[];
  privateKey: forge.pki.rsa.PrivateKey;
}

function openP12(p12: Buffer, passphrase: string): OpenedP12 {
  let store: forge.pkcs12.Pkcs12Pfx;
  try {
    store = forge.pkcs12.pkcs12FromAsn1(forge.asn1.fromDer(toBinary(p12)), false, passphrase);
  } catch (error) {
    throw new Error(`signing: cannot open PKCS#12 (wrong password or not a .p12): ${(error as Error).message}`);
  }
  const keyBags = [
    ...(store.getBags({ bagType: forge.pki.oids.pkcs8ShroudedKeyBag })[forge.pki.oids.pkcs8ShroudedKeyBag] ?? []),
    ...(store.getBags({ bagType: forge.pki.oids.keyBag })[forge.pki.oids.keyBag] ?? []),
  ];
  const privateKey = keyBags.find((bag) => bag.key)?.key as forge.pki.rsa.PrivateKey | undefined;
  if (!privateKey) throw new Error('signing: PKCS#12 holds no (RSA) private key');
  const certs = (store.getBags({ bagType: forge.pki.oids.certBag })[forge.pki.oids.certBag] ?? [])
    .map((bag) => bag.cert)
    .filter((cert): cert is forge.pki.Certificate => !!cert);
  // The signing certificate is the one whose public key matches the private key.
  const certificate = certs.find((cert) => {
    const key = cert.publicKey as forge.pki.rsa.PublicKey;
    return key.n?.equals(privateKey.n) && key.e?.equals(privateKey.e);
  });
  if (!certificate) throw new Error('signing: no certificate in the PKCS#12 matches its private key');
  return { certificate, chain: certs.filter((c) => c !== certificate), privateKey };
}

const certificateDer = (cert: forge.pki.Certificate) =>
  fromBinary(forge.asn1.toDer(forge.pki.certificateToAsn1(cert)).getBytes());

const openedSigners = new Map<string, CmsSigner>();
const MAX_CACHED_SIGNERS = 8;

/**
 * Turns a PKCS#12 into what the CMS builder needs; the key goes to Node's
 * crypto (fast RSA). Opening a .p12 runs forge's PBKDF2 in JavaScript (tens
 * of ms), and an installation signs every document with the same identity,
 * so opened identities are kept in memory.
 */
/**
 * A certificate serial from random bytes, as node-forge writes it verbatim into the DER INTEGER:
 * the first byte 0x01–0x7f, so the number is positive and minimally encoded. (A "0" first nibble
 * alone left the first byte 0x00 1 time in 32, a padded INTEGER that OpenSSL refuses to parse.)
 */
export function certificateSerialHex(random: Buffer): string {
  const bytes = Buffer.from(random);
  bytes[0] = bytes[0] & 0x7f || 0x01;
  return bytes.toString('hex');
}

export function signerFromP12(p12: Buffer, passphrase: string): CmsSigner {
  const cacheKey = createHash('sha256').update(p12).update('\0').update(passphrase, 'utf8').digest('hex');
  const cached = openedSigners.get(cacheKey);
  if (cached) return cached;
  const { certificate, chain, privateKey } = openP12(p12, passphrase);
  const key: KeyObject = createPrivateKey(forge.pki.privateKeyToPem(privateKey));
  const signer = { certificate: certificateDer(certificate), chain: chain.map(certificateDer), privateKey: key };
  if (openedSigners.size >= MAX_CACHED_SIGNERS) openedSigners.delete(openedSigners.keys().next().value as string);
  openedSigners.set(cacheKey, signer);
  return signer;
}

function createSelfSignedP12(passphrase: string): Buffer {
  // Node generates RSA keys natively, in milliseconds; forge's JS keygen takes seconds.
  const { privateKey: privatePem, publicKey: publicPem } = generateKeyPairSync('rsa', {
    modulusLength: 2048,
    publicKeyEncoding: { type: 'spki', format: 'pem' },
    privateKeyEncoding: { type: 'pkcs8', format: 'pem' },
  });
  const privateKey = forge.pki.privateKeyFromPem(privatePem);
  const cert = forge.pki.createCertificate();
  cert.publicKey = forge.pki.publicKeyFromPem(publicPem);
  cert.serialNumber = certificateSerialHex(randomBytes(16));
  const now = new Date();
  cert.validity.notBefore = new Date(now.getTime() - 60_000);
  cert.validity.notAfter = new Date(now.getTime() + 10 * 365 * 24 * 3600 * 1000);
  const name = [
    { name: 'countryName', value: 'KR' },
    { name: 'organizationName', value: 'Dojang' },
    { name: 'commonName', value: GENERATED_CERTIFICATE_CN },
  ];
  cert.setSubject(name);
  cert.setIssuer(name);
  cert.setExtensions([
    { name: 'basicConstraints', cA: false, critical: true },
    { name: 'keyUsage', digitalSignature: true, nonRepudiation: true, critical: true },
    { name: 'subjectKeyIdentifier' },
  ]);
  cert.sign(privateKey, forge.md.sha256.create());
  const asn1 = forge.pkcs12.toPkcs12Asn1(privateKey, [cert], passphrase, {
    algorithm: 'aes256',
    friendlyName: GENERATED_CERTIFICATE_CN,
  });
  return fromBinary(forge.asn1.toDer(asn1).getBytes());
}

function identity(p12: Buffer, passphrase: string): SigningIdentity {
  const { certificate } = openP12(p12, passphrase);
  return { p12, passphrase, certificatePem: forge.pki.certificateToPem(certificate) };
}

async function readGenerated(dir: string): Promise<SigningIdentity | undefined> {
  try {
    const [p12, passphrase] = await Promise.all([readFile(join(dir, P12_FILE)), readFile(join(dir, PASSPHRASE_FILE), 'utf8')]);
    return identity(p12, passphrase.trim());
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
}

/** The key and certificate that sign evidence other than PDFs (a document's chain head). */
export function evidenceKeyOf(identity: SigningIdentity): { privateKey: KeyObject; certificate: Buffer } {
  const { privateKey, certificate } = signerFromP12(identity.p12, identity.passphrase);
  return { privateKey: privateKey as KeyObject, certificate };
}

/**
 * The installation's identity if it has one, never a new one: a verifier that generated a key
 * would only prove the log disagrees with a stranger.
 */
export async function loadSigningIdentity(opts: SigningIdentityOptions): Promise<SigningIdentity | undefined> {
  if (opts.p12Path) return identity(await readFile(opts.p12Path), opts.p12Password ?? '');
  return readGenerated(join(opts.dataDir, 'signing'));
}

/**
 * The document-signing identity: the operator's SIGNING_P12 when configured,
 * otherwise a self-signed certificate generated once per DATA_DIR and kept,
 * so every PDF of an installation is signed by the same key.
 */
export async function loadOrCreateSigningIdentity(opts: SigningIdentityOptions): Promise<SigningIdentity> {
  if (opts.p12Path) {
    return identity(await readFile(opts.p12Path), opts.p12Password ?? '');
  }
  const dir = join(opts.dataDir, 'signing');
  const existing = await readGenerated(dir);
  if (existing) return existing;

  // API, worker and CLI may share a DATA_DIR and start together. Build the
  // identity in a private directory and publish it with one rename: the
  // first process wins and the others read the winner's files, so no two
  // keys ever sign for the same installation.
  await mkdir(opts.dataDir, { recursive: true });
  const staging = join(opts.dataDir, `.signing-${process.pid}-${randomBytes(6).toString('hex')}`);
  await mkdir(staging, { mode: 0o700 });
  try {
    const passphrase = randomBytes(24).toString('base64url');
    await writeFile(join(staging, P12_FILE), createSelfSignedP12(passphrase), { mode: 0o600 });
    await writeFile(join(staging, PASSPHRASE_FILE), `${passphrase}\n`, { mode: 0o600 });
    try {
      await rename(staging, dir);
      await chmod(dir, 0o700);
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code !== 'EEXIST' && code !== 'ENOTEMPTY') throw error;
    }
  } finally {
    await rm(staging, { recursive: true, force: true });
  }
  const published = await readGenerated(dir);
  if (!published) throw new Error(`signing: ${dir} exists but holds no ${P12_FILE}`);
  return published;
}
