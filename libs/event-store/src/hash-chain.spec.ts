import { createHash } from 'crypto';
import { GENESIS_HASH, HashableEvent, canonicalJson, eventHash, verifyChain } from './hash-chain';

const STREAM = 'document-3f2b8c1e-7a4d-4e59-9c0b-1d2e3f4a5b6c';
const EVENT_ID = (n: number) => `e0000000-0000-4000-8000-${String(n).padStart(12, '0')}`;

/** Unchained events of one stream, revisions 0..n-1. */
function rawEvents(): HashableEvent[] {
  return [
    { type: 'DocumentCreated', data: { document_id: 'doc-1', title: 'Service agreement', metadata: { order: 'A-1' } } },
    { type: 'ParticipantAdded', data: { participant: { id: 'p-1', name: 'Kim Minji', phone: '01012345678' } } },
    { type: 'DocumentSent', data: { sent_at: '2024-05-01T10:00:00.000Z', links: [{ participant_id: 'p-1', token_hash: 'c'.repeat(64) }] } },
    { type: 'SigningLinkOpened', data: { participant_id: 'p-1', opened_at: '2024-05-02T08:00:00.000Z', ip: '203.0.113.7' } },
  ].map((e, i) => ({
    event_id: EVENT_ID(i + 1),
    stream_id: STREAM,
    stream_revision: i,
    type: e.type,
    data: e.data,
    metadata: { occurred_at: `2024-05-0${i + 1}T09:00:00.000Z`, actor: 'system', schema_version: 1 },
  }));
}

/** Fills in prev_hash and hash as the store does at append. */
function chain(events: HashableEvent[]): HashableEvent[] {
  let prev = GENESIS_HASH;
  return events.map((e) => {
    const hash = eventHash(e, prev);
    const chained = { ...e, metadata: { ...e.metadata, prev_hash: prev, hash } };
    prev = hash;
    return chained;
  });
}

const clone = <T>(v: T): T => structuredClone(v);

describe('canonicalJson', () => {
  it('sorts object keys at every level, whatever the insertion order', () => {
    expect(canonicalJson({ b: 1, a: { d: [{ z: 1, y: 2 }], c: 2 } })).toBe('{"a":{"c":2,"d":[{"y":2,"z":1}]},"b":1}');
    expect(canonicalJson({ x: 1, y: { p: 1, q: 2 } })).toBe(canonicalJson({ y: { q: 2, p: 1 }, x: 1 }));
  });

  it('keeps array order', () => {
    expect(canonicalJson([3, 1, 2])).toBe('[3,1,2]');
    expect(canonicalJson([3, 1, 2])).not.toBe(canonicalJson([1, 2, 3]));
  });

  it('drops undefined properties, as JSON.stringify does, but keeps null', () => {
    expect(canonicalJson({ a: undefined, b: null })).toBe('{"b":null}');
  });

  it('passes scalars through', () => {
    expect(canonicalJson('a"b')).toBe('"a\\"b"');
    expect(canonicalJson(42)).toBe('42');
    expect(canonicalJson(null)).toBe('null');
    expect(canonicalJson(true)).toBe('true');
  });

  it('hashes a Date as the ISO string it is stored as (toJSON)', () => {
    const at = new Date('2024-05-01T10:00:00.000Z');
    expect(canonicalJson({ at })).toBe('{"at":"2024-05-01T10:00:00.000Z"}');
    expect(canonicalJson({ at })).toBe(canonicalJson(JSON.parse(JSON.stringify({ at }))));
  });
});

describe('eventHash', () => {
  const base = rawEvents()[1];

  it('is the SHA-256 hex of the canonical body, and deterministic', () => {
    const h = eventHash(base, GENESIS_HASH);
    expect(h).toMatch(/^[0-9a-f]{64}$/);
    expect(eventHash(clone(base), GENESIS_HASH)).toBe(h);
    const body = canonicalJson({ ...base, metadata: base.metadata, prev_hash: GENESIS_HASH });
    expect(h).toBe(createHash('sha256').update(body).digest('hex'));
  });

  it('does not depend on key order', () => {
    const reordered: HashableEvent = {
      metadata: { schema_version: 1, actor: 'system', occurred_at: base.metadata.occurred_at },
      data: { participant: { phone: '01012345678', name: 'Kim Minji', id: 'p-1' } },
      type: base.type,
      stream_revision: base.stream_revision,
      stream_id: base.stream_id,
      event_id: base.event_id,
    };
    expect(eventHash(reordered, GENESIS_HASH)).toBe(eventHash(base, GENESIS_HASH));
  });

  const changes: Array<[string, (e: HashableEvent) => void]> = [
    ['event_id', (e) => (e.event_id = EVENT_ID(99))],
    ['stream_id', (e) => (e.stream_id = 'document-other')],
    ['stream_revision', (e) => (e.stream_revision = 5)],
    ['type', (e) => (e.type = 'ParticipantRemoved')],
    ['data (nested value)', (e) => ((e.data as { participant: { phone: string } }).participant.phone = '01099999999')],
    ['data (added key)', (e) => ((e.data as Record<string, unknown>).extra = true)],
    ['metadata', (e) => (e.metadata.actor = 'participant:p-1')],
    ['metadata (added key)', (e) => (e.metadata.ip = '198.51.100.1')],
  ];

  it.each(changes)('changes when %s changes', (_what, change) => {
    const altered = clone(base);
    change(altered);
    expect(eventHash(altered, GENESIS_HASH)).not.toBe(eventHash(base, GENESIS_HASH));
  });

  it('changes with the previous hash', () => {
    expect(eventHash(base, 'f'.repeat(64))).not.toBe(eventHash(base, GENESIS_HASH));
  });

  it('ignores the hash and prev_hash already in the metadata', () => {
    const withHashes = clone(base);
    withHashes.metadata.prev_hash = '1'.repeat(64);
    withHashes.metadata.hash = '2'.repeat(64);
    expect(eventHash(withHashes, GENESIS_HASH)).toBe(eventHash(base, GENESIS_HASH));
  });
});

describe('verifyChain', () => {
  it('an empty stream is intact, at the genesis hash', () => {
    expect(verifyChain([])).toEqual({ intact: true, events: 0, head_hash: GENESIS_HASH });
  });

  it('an untouched stream is intact, its head the last hash', () => {
    const events = chain(rawEvents());
    expect(verifyChain(events)).toEqual({ intact: true, events: 4, head_hash: events[3].metadata.hash });
    expect(events[0].metadata.prev_hash).toBe(GENESIS_HASH);
    expect(events[2].metadata.prev_hash).toBe(events[1].metadata.hash);
  });

  it('survives a JSON round trip (what the stores do)', () => {
    const events = JSON.parse(JSON.stringify(chain(rawEvents()))) as HashableEvent[];
    expect(verifyChain(events).intact).toBe(true);
  });

  it('detects altered data', () => {
    const events = chain(rawEvents());
    (events[2].data as { sent_at: string }).sent_at = '2024-04-01T10:00:00.000Z';
    expect(verifyChain(events)).toEqual({ intact: false, events: 4, broken_at_revision: 2, reason: expect.stringMatching(/altered/) });
  });

  it('detects altered metadata and an altered type', () => {
    const meta = chain(rawEvents());
    meta[1].metadata.actor = 'admin';
    expect(verifyChain(meta)).toMatchObject({ intact: false, broken_at_revision: 1 });
    const type = chain(rawEvents());
    type[3].type = 'ParticipantSigned';
    expect(verifyChain(type)).toMatchObject({ intact: false, broken_at_revision: 3 });
  });

  it('detects an altered event whose own hash was recomputed (the next link breaks)', () => {
    const events = chain(rawEvents());
    (events[1].data as { participant: { name: string } }).participant.name = 'Mallory';
    events[1].metadata.hash = eventHash(events[1], events[1].metadata.prev_hash as string);
    expect(verifyChain(events)).toEqual({ intact: false, events: 4, broken_at_revision: 2, reason: expect.stringMatching(/prev_hash/) });
  });

  it('detects reordered events', () => {
    const events = chain(rawEvents());
    [events[1], events[2]] = [events[2], events[1]];
    expect(verifyChain(events)).toEqual({ intact: false, events: 4, broken_at_revision: 1, reason: expect.stringMatching(/reordered/) });
  });

  it('detects reordered events even when their revisions were renumbered', () => {
    const events = chain(rawEvents());
    [events[1], events[2]] = [events[2], events[1]];
    events[1].stream_revision = 1;
    events[2].stream_revision = 2;
    expect(verifyChain(events)).toMatchObject({ intact: false, broken_at_revision: 1 });
  });

  it('detects a missing event', () => {
    const events = chain(rawEvents());
    events.splice(1, 1);
    expect(verifyChain(events)).toEqual({ intact: false, events: 3, broken_at_revision: 1, reason: expect.stringMatching(/missing/) });
  });

  it('detects a missing first event', () => {
    expect(verifyChain(chain(rawEvents()).slice(1))).toMatchObject({ intact: false, broken_at_revision: 0 });
  });

  it('detects a first event that does not chain from genesis', () => {
    const events = chain(rawEvents());
    events[0].metadata.prev_hash = 'f'.repeat(64);
    expect(verifyChain(events)).toEqual({ intact: false, events: 4, broken_at_revision: 0, reason: expect.stringMatching(/prev_hash/) });
  });

  it('a cut tail still verifies, but its head no longer matches the recorded head', () => {
    const full = verifyChain(chain(rawEvents()));
    const cut = verifyChain(chain(rawEvents()).slice(0, 3));
    expect(cut.intact).toBe(true);
    expect(cut).not.toEqual(full);
    if (cut.intact && full.intact) expect(cut.head_hash).not.toBe(full.head_hash);
  });
});

describe('the frozen hash format', () => {
  // Recomputed independently: Python's json.dumps(sort_keys=True, separators=(',', ':'), ensure_ascii=False) + SHA-256.
  const GOLDEN_HASH_0 = 'ef1a305c1b5336e886c1710fcbd632da8c4fd746ef0f82a7ba296cf7655212b9';
  const GOLDEN_HASH_1 = '5a2da2a0b59b8533466774d554701c7276a51861faa77ceecc3f0faadd69c3d4';
  /**
   * Literal vectors for offline verifiers (and for every store adapter): if one of these changes,
   * every chain ever written stops verifying. Change the format only with a new, versioned one.
   */
  const GOLDEN: HashableEvent = {
    event_id: 'e0000000-0000-4000-8000-000000000001',
    stream_id: 'document-3f2b8c1e-7a4d-4e59-9c0b-1d2e3f4a5b6c',
    stream_revision: 0,
    type: 'DocumentCreated',
    data: { title: '근로계약서', metadata: { b: 2, a: 1 }, file: null },
    metadata: { occurred_at: '2024-05-01T09:00:00.000Z', actor: 'system', schema_version: 1, prev_hash: 'ignored', hash: 'ignored' },
  };

  it('hashes the canonical JSON of the event and the previous hash', () => {
    expect(canonicalJson({ ...GOLDEN, metadata: { occurred_at: GOLDEN.metadata.occurred_at, actor: 'system', schema_version: 1 }, prev_hash: GENESIS_HASH })).toBe(
      '{"data":{"file":null,"metadata":{"a":1,"b":2},"title":"근로계약서"},"event_id":"e0000000-0000-4000-8000-000000000001","metadata":{"actor":"system","occurred_at":"2024-05-01T09:00:00.000Z","schema_version":1},"prev_hash":"0000000000000000000000000000000000000000000000000000000000000000","stream_id":"document-3f2b8c1e-7a4d-4e59-9c0b-1d2e3f4a5b6c","stream_revision":0,"type":"DocumentCreated"}',
    );
    expect(eventHash(GOLDEN, GENESIS_HASH)).toBe(GOLDEN_HASH_0);
    expect(eventHash({ ...GOLDEN, stream_revision: 1 }, GOLDEN_HASH_0)).toBe(GOLDEN_HASH_1);
  });
});
