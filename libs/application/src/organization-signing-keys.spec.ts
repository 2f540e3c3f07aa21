import { createHash, randomBytes } from 'crypto';
import { keyEncryptionKey, openSigningP12, OrganizationSigningKeys, sealSigningP12 } from './organization-signing-keys';
import { Secrets } from './runtime/secrets';
import { SigningCertificateInvalidError } from './signing-unavailable.error';

/** Organizations' uploaded keys at rest: encrypted, authenticated, and opened only with the right key. */
describe('organization signing keys at rest', () => {
  const kek = randomBytes(32);
  const p12 = randomBytes(2500);
  const password = 'hunter2-p12';

  it('round-trips the file and its password, and holds neither in clear', () => {
    const envelope = sealSigningP12(kek, p12, password);
    expect(envelope.includes(Buffer.from(password))).toBe(false);
    expect(envelope.includes(p12.subarray(0, 32))).toBe(false);
    expect(envelope.toString('latin1')).not.toContain(p12.toString('base64').slice(0, 32));
    const opened = openSigningP12(kek, envelope);
    expect(opened.password).toBe(password);
    expect(opened.p12.equals(p12)).toBe(true);
    // A fresh IV each time: the same upload twice is two different blobs.
    expect(sealSigningP12(kek, p12, password).equals(envelope)).toBe(false);
  });

  it('refuses another key-encryption key and an altered envelope', () => {
    const envelope = sealSigningP12(kek, p12, password);
    expect(() => openSigningP12(randomBytes(32), envelope)).toThrow(/cannot be decrypted/);
    const altered = Buffer.from(envelope);
    altered[altered.length - 5] ^= 1;
    expect(() => openSigningP12(kek, altered)).toThrow(/cannot be decrypted/);
    expect(() => openSigningP12(kek, Buffer.from('not an envelope at all, just text'))).toThrow(/not an organization signing-key envelope/);
  });

  it('takes KEY_ENCRYPTION_KEY when configured (32 bytes), else derives one from the server secret', () => {
    const secrets = new Secrets(Buffer.from('server secret'));
    const configured = randomBytes(32);
    expect(keyEncryptionKey(configured.toString('base64'), secrets).equals(configured)).toBe(true);
    expect(() => keyEncryptionKey(randomBytes(16).toString('base64'), secrets)).toThrow(/32 bytes/);
    const derived = keyEncryptionKey(null, secrets);
    expect(derived).toHaveLength(32);
    expect(derived.equals(keyEncryptionKey(null, new Secrets(Buffer.from('server secret'))))).toBe(true);
    expect(derived.equals(keyEncryptionKey(null, new Secrets(Buffer.from('another secret'))))).toBe(false);
  });

  it("answers an organization's key as a file spec, and none for an organization without one", async () => {
    const stored = new Map<string, Buffer>();
    const blobs = {
      put: async (b: Buffer) => {
        const sha256 = createHash('sha256').update(b).digest('hex');
        stored.set(sha256, b);
        return { sha256, byte_size: b.length };
      },
      get: async (sha: string) => stored.get(sha) ?? null,
    };
    let blob = '';
    const keys = new OrganizationSigningKeys(blobs as never, kek, async (id) =>
      id === 'org_a' ? ({ key_blob: blob, sha256_fingerprint: 'ab'.repeat(32), not_before: '2026-01-01T00:00:00.000Z', not_after: '2027-01-01T00:00:00.000Z' } as never) : null,
    );
    blob = await keys.store(p12, password);
    const key = await keys.keyFor('org_a', new Date('2026-06-01T00:00:00.000Z'));
    expect(key?.sha256_fingerprint).toBe('ab'.repeat(32));
    expect(key?.spec).toMatchObject({ kind: 'file', passphrase: password });
    expect(Buffer.from((key?.spec as { p12: Uint8Array }).p12).equals(p12)).toBe(true);
    expect(await keys.keyFor('org_b', new Date('2026-06-01T00:00:00.000Z'))).toBeNull();
  });

  it('refuses to sign with a certificate outside its validity at the signing time: signing_certificate_invalid (issue 31 item 1), naming what to do', async () => {
    const blobs = { put: async () => ({ sha256: 'c'.repeat(64), byte_size: 1 }), get: async () => sealSigningP12(kek, p12, password) };
    const keys = new OrganizationSigningKeys(blobs as never, kek, async () =>
      ({ key_blob: 'c'.repeat(64), sha256_fingerprint: 'ab'.repeat(32), not_before: '2026-01-01T00:00:00.000Z', not_after: '2027-01-01T00:00:00.000Z' }) as never,
    );
    const expired = keys.keyFor('org_a', new Date('2027-01-01T00:00:01.000Z'));
    await expect(expired).rejects.toBeInstanceOf(SigningCertificateInvalidError);
    await expect(expired).rejects.toThrow(/expired on 2027-01-01T00:00:00\.000Z; upload a valid certificate .* or remove it \(DELETE \/v1\/organization\/signing_certificate\) to sign with the platform key/);
    const early = keys.keyFor('org_a', new Date('2025-12-31T23:59:59.000Z'));
    await expect(early).rejects.toBeInstanceOf(SigningCertificateInvalidError);
    await expect(early).rejects.toThrow(/is not yet valid: valid from 2026-01-01/);
    // At its last valid instant it still signs.
    expect((await keys.keyFor('org_a', new Date('2027-01-01T00:00:00.000Z')))?.sha256_fingerprint).toBe('ab'.repeat(32));
  });
});
