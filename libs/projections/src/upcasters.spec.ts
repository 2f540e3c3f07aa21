import { createHash } from 'crypto';
import { StoredEvent } from '@dojang/event-store';
import { upcast } from './upcasters';

const stored = (type: string, data: Record<string, unknown>, schema_version: number): StoredEvent => ({
  event_id: 'e1',
  stream_id: 'document-x',
  stream_revision: 0,
  global_position: 1,
  type,
  data,
  metadata: { occurred_at: '2026-01-01T00:00:00Z', actor: 'test', schema_version, prev_hash: '0', hash: '1' },
});

describe('upcast', () => {
  it('lifts a pre-release ParticipantAdded (no auth) to the current shape', () => {
    const old = stored('ParticipantAdded', { participant: { id: 'p', name: 'A', phone: '010' } }, 0);
    const now = upcast(old);
    expect(now.data).toEqual({ participant: { auth: 'sms_pin', id: 'p', name: 'A', phone: '010' } });
    expect(now.metadata.schema_version).toBe(1);
    // The stored event itself is never changed.
    expect(old.data).toEqual({ participant: { id: 'p', name: 'A', phone: '010' } });
  });

  it('leaves current events untouched', () => {
    const e = stored('DocumentCreated', { title: 'x', content_blob: { sha256: 'a'.repeat(64), byte_size: 3 } }, 2);
    expect(upcast(e)).toBe(e);
    const other = stored('ParticipantAdded', { participant: { id: 'p', auth: 'none' } }, 1);
    expect(upcast(other)).toBe(other);
  });

  // Version 1 carried bodies inline; they were never put in the blob store, so the ref keeps the text.
  describe('bodies recorded inline (schema_version 1)', () => {
    const body = '<p>갑과 을은 계약한다.</p>';
    const sha = createHash('sha256').update(Buffer.from(body, 'utf8')).digest('hex');
    const ref = { sha256: sha, byte_size: Buffer.byteLength(body, 'utf8'), inline: body };

    it.each(['DocumentCreated', 'DocumentUpdated', 'TemplateCreated'])('%s: content becomes content_blob with the text inline', (type) => {
      const old = stored(type, { title: 'x', content: body }, 1);
      const now = upcast(old);
      expect(now.data).toEqual({ title: 'x', content_blob: ref });
      expect(now.metadata.schema_version).toBe(2);
      expect(old.data).toEqual({ title: 'x', content: body });
    });

    it('an uploaded PDF (content null) has no body ref', () => {
      expect(upcast(stored('DocumentCreated', { title: 'x', content: null }, 1)).data).toEqual({ title: 'x', content_blob: null });
    });

    it('an update that left the body alone stays without one', () => {
      expect(upcast(stored('DocumentUpdated', { title: 'y', updated_at: 't' }, 1)).data).toEqual({ title: 'y', updated_at: 't' });
    });
  });

  // Recorded before names were decoded by their ASN.1 types (issue 31, item 4).
  describe('SigningCertificateUploaded with a mis-decoded name', () => {
    // A certificate made with `openssl req -utf8 -subj '/O=주식회사 한빛소프트/CN=홍길동'`.
    const PEM = `-----BEGIN CERTIFICATE-----
MIIDVzCCAj+gAwIBAgIUbbbMQAVkJtBpbtS0A10LPSVudVgwDQYJKoZIhvcNAQEL
BQAwOzElMCMGA1UECgwc7KO87Iud7ZqM7IKsIO2VnOu5m+yGjO2UhO2KuDESMBAG
A1UEAwwJ7ZmN6ri464+ZMB4XDTI2MTEyODA3MzAzMFoXDTI2MTIyODA3MzAzMFow
OzElMCMGA1UECgwc7KO87Iud7ZqM7IKsIO2VnOu5m+yGjO2UhO2KuDESMBAGA1UE
AwwJ7ZmN6ri464+ZMIIBIjANBgkqhkiG9w0BAQEFAAOCAQ8AMIIBCgKCAQEA2N17
SDQNAUMuo82Pb39tjwI3mCSpS8Qf6hVe9aXe6Z/VULdYeYeauFT0bbY+Z5ERyuT5
5+mlv4pf+ZWAk2p8oLiTZVmScCMK4/EIEv2wH28cEKJ4F8O9omw0X02HvBw4bOx+
uhUESWsKNVpyA6aI4ljPS01CwQe0Hfwqgpr7xSl4fj8Zd01cgPmVpYGx46A+WL0r
y0JsyyvkSaXig+RfmzsYxQS+YUfWDcY6Y/hQiuq12G22bCVryKw9rEbHtKQFCvvE
2WFFf+oQ8n5SDwJUiOyz6+LygJy7K8yl3VtiN8QEhCBcRA1l8CwZnUdydTB6JF9W
WASW3Uc1PIxyYuee/wIDAQABo1MwUTAdBgNVHQ4EFgQUiJ+8S7SXwzYEmjWw+q7V
H9vbeZswHwYDVR0jBBgwFoAUiJ+8S7SXwzYEmjWw+q7VH9vbeZswDwYDVR0TAQH/
BAUwAwEB/zANBgkqhkiG9w0BAQsFAAOCAQEAXI7afEyRkF0EZng3gappRf+Pa0nR
ZXSmPKU/6flcAaej/tbH/cWBcI0ATYhSQRmfaIYY8ZG8jAClkE2yW7vi73ivjWYF
02B+QtG5AqwPhYUwXrxz/a/8x8BPtVD/ADvqDK53WHDwcuCTmQeT6/TumdpAcJBh
Q7MUFCQefqURg4E1JO9D4L3Jgpnw5bdj0JrGNAEkkokcqFmgbD8hCea7oRX7yAF+
2KMZpVqLrgZu4SKEm0IbO4o4E/XXYtF3ypmwEgT2+Kh+4i8CsT7wxtrwSS0VIrlr
EAz47h5KND7RKDy4jyirYNHw2OxVM/GUB3PdrqpDNHRBBJ4lY9M+WjUznA==
-----END CERTIFICATE-----\n`;
    // What was recorded: the UTF-8 bytes of the name read one byte a character.
    const garbled = (s: string) => Buffer.from(s, 'utf8').toString('latin1');
    const certificate = { subject: garbled('O=주식회사 한빛소프트, CN=홍길동'), issuer: garbled('O=주식회사 한빛소프트, CN=홍길동'), sha256_fingerprint: 'f'.repeat(64), chain_pem: [PEM] };

    it.each([1, 2])('reads the names again from the certificate it carries (schema_version %i)', (version) => {
      const old = stored('SigningCertificateUploaded', { certificate, key_blob: 'b', uploaded_at: '2026-01-01T00:00:00Z' }, version);
      const now = upcast(old);
      expect(now.data.certificate).toEqual({ ...certificate, subject: 'O=주식회사 한빛소프트, CN=홍길동', issuer: 'O=주식회사 한빛소프트, CN=홍길동' });
      expect(now.metadata.schema_version).toBe(3);
      // The log is append-only: the stored event keeps what it recorded.
      expect((old.data.certificate as { subject: string }).subject).toBe(certificate.subject);
    });

    it('keeps the recorded names when the event holds no readable certificate', () => {
      const old = stored('SigningCertificateUploaded', { certificate: { ...certificate, chain_pem: ['not a certificate'] } }, 2);
      expect((upcast(old).data.certificate as { subject: string }).subject).toBe(certificate.subject);
    });
  });

  // Called a seal until issue 35: the stored type and bytes stay (they are inside the hash chain);
  // readers get the certification.
  it.each([1, 2])('reads a DocumentSealed stored at schema_version %s as a DocumentCertified, leaving the stored event alone', (version) => {
    const proof = { head: { revision: 7, hash: 'a'.repeat(64), event_count: 8 }, facts: { status: 'completed' }, sealed_at: '2026-01-01T00:00:00Z' };
    const old = stored('DocumentSealed', { seal: proof }, version);
    const now = upcast(old);
    expect(now.type).toBe('DocumentCertified');
    expect(now.data).toEqual({ certification: proof });
    expect(now.metadata).toEqual(old.metadata);
    expect(old.type).toBe('DocumentSealed');
    expect(old.data).toEqual({ seal: proof });
    const current = stored('DocumentCertified', { certification: proof }, 2);
    expect(upcast(current)).toBe(current);
  });
});
