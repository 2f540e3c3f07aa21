import { StoredEvent } from '@dojang/event-store';
import { ProjectionSpecification } from './testing';
import { AUDIT_ENTRIES, auditTrailProjection } from './audit-trail.projection';
import { actorsOf } from './event-actor';

/** Issue 32 item 7: one actor per event in /audit, /history and the certificate. */
const DOC = '00000000-0000-4000-8000-000000000001';
const P = 'a0000001-0000-4000-8000-000000000001';
const T0 = '2027-01-04T01:00:00.000Z';
const at = (type: string, actor: string, data: Record<string, unknown>) => ({ type, stream_id: `document-${DOC}`, data, metadata: { actor, occurred_at: T0 } });
const history = [
  at('ParticipantAdded', 'key_live1', { participant: { id: P, name: '김지원', phone: '01012345678', email: null, role: 'signer' }, added_at: T0 }),
  at('SigningLinkOpened', `participant:${P}`, { participant_id: P, ip: null, user_agent: null, opened_at: T0 }),
  at('ParticipantCorrected', 'key_live1', { participant_id: P, changes: { phone: '01099998888' }, corrected_at: T0 }),
  at('ParticipantDelegated', `participant:${P}`, { participant_id: P, to: { name: '이대리', phone: null, email: 'lee@example.com' }, ip: null, user_agent: null, delegated_at: T0 }),
  at('ParticipantSigned', `participant:${P}`, { participant_id: P, signed_at: T0, ip: null, user_agent: null }),
  at('DocumentExpired', 'system', { expired_at: T0 }),
];

describe('the actor of an event', () => {
  it('is the participant by name as it was then, a key by its id (a correction names the key), else system', () => {
    expect(actorsOf(history as unknown as StoredEvent[])).toEqual(['key_live1', '김지원', 'key_live1', '김지원', '이대리', 'system']);
  });

  it('is the same in the audit trail', () => {
    ProjectionSpecification.for(auditTrailProjection)
      .given([history[0]])
      .when(history.slice(1))
      .then((rows) => {
        const entries = rows.all(AUDIT_ENTRIES).sort((a, b) => Number(a.seq) - Number(b.seq));
        expect(entries.map((e) => e.actor)).toEqual(actorsOf(history as unknown as StoredEvent[]).slice(1));
      });
  });
});
