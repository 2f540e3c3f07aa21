import { StoredEvent } from '@dojang/event-store';
import { GENESIS_HASH } from '@dojang/event-store';
import { diffStates, replayStream } from './stream-replay';
import { maskEventData, REDACTED } from './history-masking';
import { parseInstant } from './document-history';

const DOC = 'd0000000-0000-4000-8000-000000000001';
const P1 = 'p0000000-0000-4000-8000-000000000001';
const P2 = 'p0000000-0000-4000-8000-000000000002';

let revision = 0;
const stored = (type: string, data: Record<string, unknown>, at: string, schema_version = 1): StoredEvent => ({
  event_id: `e-${revision}`,
  stream_id: `document-${DOC}`,
  stream_revision: revision++,
  global_position: revision,
  type,
  data,
  metadata: { occurred_at: at, actor: 'key_1', schema_version, prev_hash: GENESIS_HASH, hash: GENESIS_HASH },
});

const participant = (id: string, name: string) => ({ id, name, phone: '01012345678', email: null, role: 'signer', signing_order: 1, auth: 'none' });

describe('replayStream / diffStates', () => {
  revision = 0;
  const events = [
    stored('DocumentCreated', { document_id: DOC, organization_id: 'org_1', livemode: false, title: 'NDA', content: '<p>x</p>', content_format: 'html', file: null, author_name: 'Acme', metadata: {}, from_template: null, created_at: '2026-03-02T09:00:00.000Z' }, '2026-03-02T09:00:00.000Z'),
    stored('ParticipantAdded', { participant: participant(P1, '김철수'), added_at: '2026-03-02T09:01:00.000Z' }, '2026-03-02T09:01:00.000Z'),
    // Stored before participants had `auth`: folded only after the upcaster adds it.
    stored('ParticipantAdded', { participant: { id: P2, name: '이영희', phone: null, email: null, role: 'signer', signing_order: 1 }, added_at: '2026-03-02T09:02:00.000Z' }, '2026-03-02T09:02:00.000Z', 0),
    stored('ParticipantRemoved', { participant_id: P1, removed_at: '2026-03-02T09:03:00.000Z' }, '2026-03-02T09:03:00.000Z'),
    stored('DocumentUpdated', { title: 'NDA v2', updated_at: '2026-03-02T09:04:00.000Z' }, '2026-03-02T09:04:00.000Z'),
  ];

  it('reports per event only what changed, matching array elements by id', () => {
    const replay = replayStream(`document-${DOC}`, events, null)!;
    expect(replay.steps.map((s) => s.event.type)).toEqual(events.map((e) => e.type));
    expect(replay.steps[3].changes).toEqual([{ path: `participants[id=${P1}]`, from: expect.objectContaining({ id: P1, name: '김철수' }) }]);
    expect(replay.steps[4].changes).toEqual([{ path: 'title', from: 'NDA', to: 'NDA v2' }]);
    expect(replay.steps[2].changes).toEqual([{ path: `participants[id=${P2}]`, to: expect.objectContaining({ id: P2, auth: 'sms_pin', status: 'pending' }) }]);
    expect(replay.state).toMatchObject({ title: 'NDA v2', participants: [expect.objectContaining({ id: P2 })] });
  });

  it('folds only the events up to as_of', () => {
    const replay = replayStream(`document-${DOC}`, events, Date.parse('2026-03-02T09:01:30Z'))!;
    expect(replay.steps).toHaveLength(2);
    expect(replay.state).toMatchObject({ title: 'NDA', participants: [expect.objectContaining({ id: P1 })] });
  });

  it('has no fold for an unknown stream kind', () => {
    expect(replayStream('nonsense-1', events, null)).toBeNull();
  });

  it('diffs nested values to the smallest changed path', () => {
    expect(diffStates({ a: { b: 1, c: [1, 2] } }, { a: { b: 2, c: [1, 2] }, d: true })).toEqual([
      { path: 'a.b', from: 1, to: 2 },
      { path: 'd', to: true },
    ]);
    expect(diffStates({ x: 1 }, { x: 1 })).toEqual([]);
  });
});

describe('maskEventData', () => {
  it('masks contacts as the audit trail does and redacts every secret hash', () => {
    const masked = maskEventData({
      participant: { name: '김철수', phone: '01012345678', email: 'kim.chulsoo@example.com' },
      links: [{ participant_id: P1, token_hash: 'f'.repeat(64) }],
      pin_hash: 'a'.repeat(64),
      key_hash: 'b'.repeat(64),
      secret_ciphertext: 'c2VjcmV0',
      reason: '연락은 010-9876-5432 또는 lee@example.com 으로',
      final_pdf: { sha256: 'e'.repeat(64) },
      phone_masked: '010-****-5678',
    });
    expect(masked).toEqual({
      participant: { name: '김철수', phone: '010-****-5678', email: 'k**********@example.com' },
      links: [{ participant_id: P1, token_hash: REDACTED }],
      pin_hash: REDACTED,
      key_hash: REDACTED,
      secret_ciphertext: REDACTED,
      reason: '연락은 010-****-5432 또는 l**@example.com 으로',
      final_pdf: { sha256: 'e'.repeat(64) },
      phone_masked: '010-****-5678',
    });
  });
});

describe('parseInstant', () => {
  it.each(['2026-03-02', '2026-03-02T09:00Z', '2026-03-02T09:00:00Z', '2026-03-02T18:00:00.123+09:00', '2026-03-02T18:00:00+0900'])('accepts %s', (s) => {
    expect(parseInstant(s)).not.toBeNull();
  });
  it.each(['', 'now', '2026-03-02T09:00:00', '2026-02-30T00:00:00Z', '2026-13-01', '1700000000', ['2026-03-02'], null])('refuses %p', (s) => {
    expect(parseInstant(s)).toBeNull();
  });
  it('reads an offset as the same instant', () => {
    expect(parseInstant('2026-03-02T18:00:00+09:00')).toBe(Date.parse('2026-03-02T09:00:00Z'));
  });
});
