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
    const e = stored('DocumentCreated', { title: 'x' }, 1);
    expect(upcast(e)).toBe(e);
  });
});
