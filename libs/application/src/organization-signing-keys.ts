import { createCipheriv, createDecipheriv, randomBytes } from 'crypto';
import { BlobStore } from '@dojang/blob-store';
import { signingCertificateValidityAt, type OrganizationState } from '@dojang/domain';
import type { SigningKeySpec } from '@dojang/evidence';
import { ORGANIZATIONS, type OrganizationRow } from '@dojang/projections';
import type { Infrastructure } from './runtime/infrastructure';
import { Secrets } from './runtime/secrets';
import { SigningCertificateInvalidError } from './signing-unavailable.error';

/** What an organization can do about its own key that cannot sign: said in every such 503. */
export const ORGANIZATION_CERTIFICATE_REMEDY =
  'upload a valid certificate (PUT /v1/organization/signing_certificate) or remove it (DELETE /v1/organization/signing_certificate) to sign with the platform key';

/** Envelope magic and version: a later format (another cipher, a key id) gets another. */
const MAGIC = Buffer.from('DJK1', 'ascii');
const IV_BYTES = 12;
const TAG_BYTES = 16;
/** Bound into the ciphertext (GCM additional data): an envelope cannot pass for another kind of blob. */
const AAD = Buffer.from('dojang organization signing key v1', 'ascii');
export const KEY_ENCRYPTION_PURPOSE = 'organization-signing-keys';

/** The key that encrypts organizations' keys: KEY_ENCRYPTION_KEY when configured, else derived from the server secret. */
export function keyEncryptionKey(configured: string | null, secrets: Secrets): Buffer {
  if (configured) {
    const key = Buffer.from(configured, 'base64');
    if (key.length !== 32) throw new Error('KEY_ENCRYPTION_KEY must be 32 bytes, base64 (e.g. `openssl rand -base64 32`)');
    return key;
  }
  return secrets.derivedKey(KEY_ENCRYPTION_PURPOSE);
}

/**
 * The .p12 and its password as stored: AES-256-GCM under the key-encryption key, with a fresh IV,
 * so the blob store (and any copy of it) holds neither the key nor the password in clear.
 */
export function sealSigningP12(kek: Buffer, p12: Buffer, password: string): Buffer {
  const iv = randomBytes(IV_BYTES);
  const cipher = createCipheriv('aes-256-gcm', kek, iv);
  cipher.setAAD(AAD);
  const plain = Buffer.from(JSON.stringify({ p12: p12.toString('base64'), password }), 'utf8');
  const body = Buffer.concat([cipher.update(plain), cipher.final()]);
  return Buffer.concat([MAGIC, iv, cipher.getAuthTag(), body]);
}

/** An envelope that does not open under the key-encryption key (or is not one): KEY_ENCRYPTION_KEY is the remedy. */
export class SigningKeyEnvelopeError extends Error {}

/** Opens an envelope; a wrong key-encryption key or an altered blob fails (GCM tag), never yields garbage. */
export function openSigningP12(kek: Buffer, envelope: Buffer): { p12: Buffer; password: string } {
  if (envelope.length < MAGIC.length + IV_BYTES + TAG_BYTES || !envelope.subarray(0, MAGIC.length).equals(MAGIC)) {
    throw new SigningKeyEnvelopeError('not an organization signing-key envelope');
  }
  const iv = envelope.subarray(MAGIC.length, MAGIC.length + IV_BYTES);
  const tag = envelope.subarray(MAGIC.length + IV_BYTES, MAGIC.length + IV_BYTES + TAG_BYTES);
  const decipher = createDecipheriv('aes-256-gcm', kek, iv);
  decipher.setAAD(AAD);
  decipher.setAuthTag(tag);
  let plain: Buffer;
  try {
    plain = Buffer.concat([decipher.update(envelope.subarray(MAGIC.length + IV_BYTES + TAG_BYTES)), decipher.final()]);
  } catch {
    throw new SigningKeyEnvelopeError('the organization signing key cannot be decrypted: KEY_ENCRYPTION_KEY (or the server secret) differs from the one it was stored with, or the blob was altered');
  }
  const parsed = JSON.parse(plain.toString('utf8')) as { p12: string; password: string };
  return { p12: Buffer.from(parsed.p12, 'base64'), password: parsed.password };
}

type OrganizationCertificate = NonNullable<OrganizationState['signing_certificate']>;

/**
 * Which key signs an organization's final PDFs: its own uploaded certificate when it has one
 * (SigningCertificateUploaded), else null and the platform's key signs. The envelope is read and
 * decrypted once per uploaded key and kept in memory as a file-adapter spec for the pool.
 */
export class OrganizationSigningKeys {
  private readonly opened = new Map<string, SigningKeySpec>();

  constructor(
    private readonly blobs: BlobStore,
    private readonly kek: Buffer,
    /** The organization's current certificate (its state or projected row); null: none uploaded. */
    private readonly certificateOf: (organizationId: string) => Promise<OrganizationCertificate | null>,
  ) {}

  /** Encrypts and stores an uploaded .p12; answers the blob that SigningCertificateUploaded points to. */
  async store(p12: Buffer, password: string): Promise<string> {
    return (await this.blobs.put(sealSigningP12(this.kek, p12, password))).sha256;
  }

  async certificate(organizationId: string): Promise<OrganizationCertificate | null> {
    return (await this.certificateOf(organizationId)) ?? null;
  }

  /**
   * The organization's key as a file-adapter spec with its certificate's fingerprint, to sign at
   * `at`; null: the platform's. A certificate not valid at `at` (it expired after the upload)
   * throws SigningCertificateInvalidError (503 signing_certificate_invalid, logged and counted as a
   * revoked one is: issue 31 item 1 makes expired and not yet valid the same refusal as revoked):
   * a signature it made would not verify, and signing with the platform key instead would go
   * against what the organization chose.
   */
  async keyFor(organizationId: string, at: Date): Promise<{ spec: SigningKeySpec; sha256_fingerprint: string } | null> {
    const certificate = await this.certificate(organizationId);
    if (!certificate) return null;
    const validity = signingCertificateValidityAt(certificate, at);
    if (validity !== 'valid') {
      const when = validity === 'expired' ? `expired on ${certificate.not_after}` : `is not yet valid: valid from ${certificate.not_before}`;
      throw new SigningCertificateInvalidError(`the organization's signing certificate (SHA-256 ${certificate.sha256_fingerprint}) ${when}; ${ORGANIZATION_CERTIFICATE_REMEDY}`);
    }
    let spec = this.opened.get(certificate.key_blob);
    if (!spec) {
      const envelope = await this.blobs.get(certificate.key_blob, { fresh: true });
      if (!envelope) throw new Error(`organization ${organizationId}: signing-key blob ${certificate.key_blob} is missing from the blob store`);
      const { p12, password } = openSigningP12(this.kek, envelope);
      spec = { kind: 'file', p12, passphrase: password };
      this.opened.set(certificate.key_blob, spec);
    }
    return { spec, sha256_fingerprint: certificate.sha256_fingerprint };
  }
}

/** The organization signing keys of an installation: the current certificate read from the organizations projection. */
export function organizationSigningKeysOf(infra: Pick<Infrastructure, 'blobs' | 'reads' | 'secrets' | 'config'>): OrganizationSigningKeys {
  return new OrganizationSigningKeys(infra.blobs, keyEncryptionKey(infra.config.keyEncryptionKey, infra.secrets), async (organizationId) => {
    const row = await infra.reads.get<OrganizationRow>(ORGANIZATIONS, organizationId);
    return row?.signing_certificate ?? null;
  });
}

/** `pdf` signing each organization's documents with its own key when it uploaded one. */
export function withOrganizationKeys<T extends { organizationKeys: OrganizationSigningKeys | null }>(pdf: T, infra: Pick<Infrastructure, 'blobs' | 'reads' | 'secrets' | 'config'>): T {
  pdf.organizationKeys = organizationSigningKeysOf(infra);
  return pdf;
}
