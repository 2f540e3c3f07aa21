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
});
