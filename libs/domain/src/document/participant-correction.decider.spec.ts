import { DeciderSpecification } from '../shared/decider.spec-helpers';
import { documentDecider } from './document.decider';
import { CancelDocument, CorrectParticipant, ResendSigningRequest } from './document.commands';
import { DocumentEvent, Field, ParticipantSetup } from './document.events';
import { RESEND_COOLDOWN_SECONDS } from './participant-correction.decider';
import { planSigningNotifications } from './signing-notifications.process';

/** Corrections after send, resending one participant's request, and cancel reasons (issue 21 item 7). */
const spec = DeciderSpecification.for(documentDecider);

const DOC = '3f2b8c1e-7a4d-4e59-9c0b-1d2e3f4a5b6c';
const KIM = 'a0000001-0000-4000-8000-000000000001'; // signer, order 1, sms_pin
const LEE = 'a0000002-0000-4000-8000-000000000002'; // signer, order 2
const CHOI = 'a0000004-0000-4000-8000-000000000004'; // cc
const T0 = '2024-05-01T09:00:00.000Z';
const T_SEND = '2024-05-01T10:00:00.000Z';
const T_FIX = '2024-05-01T11:00:00.000Z';
const T_LATER = '2024-05-01T11:10:00.000Z';
const HASH = (c: string) => c.repeat(64);

const person = (id: string, o: Partial<ParticipantSetup>): ParticipantSetup => ({
  id,
  name: 'Someone',
  phone: null,
  email: null,
  role: 'signer',
  signing_order: 1,
  auth: 'none',
  ...o,
});
const kim = person(KIM, { name: 'Kim', phone: '01012345678', email: 'kim@example.com', auth: 'sms_pin' });
const lee = person(LEE, { name: 'Lee', email: 'lee@example.com', signing_order: 2 });
const choi = person(CHOI, { name: 'Choi', role: 'cc', email: 'choi@example.com' });
const sig = (id: string, participant_id: string): Field => ({
  id,
  participant_id,
  type: 'signature',
  page: 1,
  x: 10,
  y: 70,
  width: 30,
  height: 10,
  required: true,
  upload_only: false,
});

const draft: DocumentEvent[] = [
  {
    type: 'DocumentCreated',
    data: {
      document_id: DOC,
      organization_id: 'org',
      livemode: false,
      title: '근로계약서',
      content_blob: { sha256: HASH('b'), byte_size: 10 },
      content_format: 'html',
      file: null,
      author_name: 'Acme',
      metadata: {},
      from_template: null,
      duplicated_from: null,
      created_at: T0,
    },
  },
  ...[kim, lee, choi].map((participant): DocumentEvent => ({ type: 'ParticipantAdded', data: { participant, added_at: T0 } })),
  { type: 'FieldsReplaced', data: { fields: [sig('f1', KIM), sig('f2', LEE)], replaced_at: T0 } },
];
const sentEv: DocumentEvent = {
  type: 'DocumentSent',
  data: {
    sent_at: T_SEND,
    expires_at: '2024-05-15T10:00:00.000Z',
    message: null,
    page_count: 1,
    original_pdf: null,
    links: [
      { participant_id: KIM, token_hash: HASH('1') },
      { participant_id: LEE, token_hash: HASH('2') },
      { participant_id: CHOI, token_hash: HASH('3') },
    ],
  },
};
const sent = [...draft, sentEv];
const opened: DocumentEvent = { type: 'SigningLinkOpened', data: { participant_id: KIM, opened_at: T_SEND, ip: null, user_agent: null } };
const pinIssued: DocumentEvent = {
  type: 'PinIssued',
  data: { participant_id: KIM, pin_hash: HASH('p'), issued_at: T_SEND, expires_at: T_FIX, phone_masked: '010-****-5678' },
};
const kimSigned: DocumentEvent = {
  type: 'ParticipantSigned',
  data: { participant_id: KIM, signed_at: T_FIX, signature: { sha256: HASH('s'), byte_size: 9 }, seal: null, auth_method: 'sms_pin', auth_phone_masked: '010-****-5678', ip: null, user_agent: null },
};

const correct = (changes: CorrectParticipant['changes'], o: Partial<CorrectParticipant> = {}): CorrectParticipant => ({
  type: 'CorrectParticipant',
  participant_id: KIM,
  changes,
  link: { version: 1, token_hash: HASH('9') },
  now: T_FIX,
  ...o,
});
const resend = (participant_id: string, now = T_FIX): ResendSigningRequest => ({
  type: 'ResendSigningRequest',
  participant_id,
  cooldown_seconds: RESEND_COOLDOWN_SECONDS,
  now,
});

describe('CorrectParticipant', () => {
  describe('in a draft: an ordinary edit', () => {
    it('records only what changed, with no link', () => {
      const state = spec
        .given(draft)
        .when(correct({ name: 'Kim', phone: '01099998888' }, { link: null }))
        .then([{ type: 'ParticipantCorrected', data: { participant_id: KIM, changes: { phone: '01099998888' }, corrected_at: T_FIX, link: null } }]);
      expect(state.participants.find((p) => p.id === KIM)).toMatchObject({ phone: '01099998888', token_hash: null });
    });

    it('nothing different: no event', () => {
      spec.given(draft).when(correct({ email: 'kim@example.com' }, { link: null })).thenNothing();
    });

    it('is refused while the draft is edit-locked', () => {
      spec.given([...draft, { type: 'DocumentEditLockChanged', data: { locked: true, at: T0 } }]).when(correct({ name: 'K' }, { link: null })).thenThrows('document_edit_locked', 'conflict');
    });

    it('validates the result like a new participant: sms_pin without a phone, a bad phone, a blank name', () => {
      spec.given(draft).when(correct({ phone: null }, { link: null })).thenThrows('missing_phone', { kind: 'invalid', param: 'phone' });
      spec.given(draft).when(correct({ phone: '12ab' }, { link: null })).thenThrows('invalid_parameter', { kind: 'invalid', param: 'phone' });
      spec.given(draft).when(correct({ name: '  ' }, { link: null })).thenThrows('missing_parameter', { kind: 'invalid', param: 'name' });
    });

    it('needs something to change', () => {
      spec.given(draft).when(correct({}, { link: null })).thenThrows('missing_parameter', 'invalid');
    });
  });

  describe('after send', () => {
    it('an unsigned participant: the change and a new link; the old token, PIN and view are void', () => {
      const state = spec
        .given([...sent, opened, pinIssued])
        .when(correct({ phone: '01099998888' }))
        .then([
          {
            type: 'ParticipantCorrected',
            data: { participant_id: KIM, changes: { phone: '01099998888' }, corrected_at: T_FIX, link: { version: 1, token_hash: HASH('9') } },
          },
        ]);
      expect(state.status).toBe('sent');
      expect(state.participants.find((p) => p.id === KIM)).toMatchObject({
        phone: '01099998888',
        token_hash: HASH('9'),
        link_version: 1,
        status: 'pending',
        viewed_at: null,
        pin: null,
      });
      // Nobody else's link moves.
      expect(state.participants.find((p) => p.id === LEE)?.token_hash).toBe(HASH('2'));
    });

    it('with nothing changed it still replaces the link (revoking one that reached the wrong person)', () => {
      spec
        .given(sent)
        .when(correct({ email: 'kim@example.com' }))
        .then([{ type: 'ParticipantCorrected', data: { participant_id: KIM, changes: {}, corrected_at: T_FIX, link: { version: 1, token_hash: HASH('9') } } }]);
    });

    it('a second correction moves the version on again', () => {
      const first: DocumentEvent = { type: 'ParticipantCorrected', data: { participant_id: KIM, changes: { name: 'K' }, corrected_at: T_FIX, link: { version: 1, token_hash: HASH('9') } } };
      const state = spec.given([...sent, first]).when(correct({ name: 'Kim' }, { link: { version: 2, token_hash: HASH('8') } })).thenEvents((events) => expect(events).toHaveLength(1));
      expect(state.participants[0].link_version).toBe(2);
      expect(() => documentDecider.decide(correct({ name: 'X' }, { link: { version: 1, token_hash: HASH('7') } }), [...sent, first].reduce(documentDecider.evolve, documentDecider.initialState()))).toThrow(
        /move the link version forward/,
      );
    });

    it('a signed participant: 409 participant_already_signed, nothing recorded', () => {
      spec.given([...sent, kimSigned]).when(correct({ phone: '01099998888' })).thenThrows('participant_already_signed', 'conflict');
    });

    it('a cc can be corrected (new address for the completed copy)', () => {
      spec
        .given(sent)
        .when(correct({ email: 'choi@example.org' }, { participant_id: CHOI }))
        .thenEvents((events) => expect(events[0]).toMatchObject({ type: 'ParticipantCorrected', data: { participant_id: CHOI, changes: { email: 'choi@example.org' } } }));
    });

    it('an ended document is not corrected; an unknown participant is 404', () => {
      spec.given([...sent, { type: 'DocumentCanceled', data: { canceled_at: T_FIX } }]).when(correct({ name: 'X' })).thenThrows('document_not_editable', 'conflict');
      spec.given(sent).when(correct({ name: 'X' }, { participant_id: 'nobody' })).thenThrows('participant_not_found', 'not_found');
    });

    it('the participant whose turn it is gets a new signing request; one not yet asked waits for their turn', () => {
      const before = sent.reduce(documentDecider.evolve, documentDecider.initialState());
      const kimFix: DocumentEvent = { type: 'ParticipantCorrected', data: { participant_id: KIM, changes: {}, corrected_at: T_FIX, link: { version: 1, token_hash: HASH('9') } } };
      expect(planSigningNotifications(kimFix, before, documentDecider.evolve(before, kimFix))).toEqual([{ kind: 'signing_request', participant_id: KIM, channels: ['email', 'sms'] }]);
      const leeFix: DocumentEvent = { type: 'ParticipantCorrected', data: { participant_id: LEE, changes: {}, corrected_at: T_FIX, link: { version: 1, token_hash: HASH('8') } } };
      expect(planSigningNotifications(leeFix, before, documentDecider.evolve(before, leeFix))).toEqual([]);
    });
  });
});

describe('ResendSigningRequest', () => {
  it('resends to the participant whose turn it is', () => {
    const state = spec.given(sent).when(resend(KIM)).then([{ type: 'SigningRequestResent', data: { participant_id: KIM, resent_at: T_FIX } }]);
    const resent: DocumentEvent = { type: 'SigningRequestResent', data: { participant_id: KIM, resent_at: T_FIX } };
    expect(planSigningNotifications(resent, state, documentDecider.evolve(state, resent))).toEqual([{ kind: 'signing_request', participant_id: KIM, channels: ['email', 'sms'] }]);
  });

  it('not twice within the cooldown (429 resend_cooldown with the wait)', () => {
    const resent: DocumentEvent = { type: 'SigningRequestResent', data: { participant_id: KIM, resent_at: T_FIX } };
    const err = spec.given([...sent, resent]).when(resend(KIM, T_LATER.replace('11:10', '11:01'))).thenThrows('resend_cooldown', 'too_many');
    expect(err.retryAfterSeconds).toBe(RESEND_COOLDOWN_SECONDS - 60);
    spec.given([...sent, resent]).when(resend(KIM, T_LATER)).thenEvents((events) => expect(events).toHaveLength(1));
  });

  it('refuses a participant not yet asked, a cc, a signer who signed, and a document not out for signature', () => {
    spec.given(sent).when(resend(LEE)).thenThrows('not_your_turn', 'conflict');
    spec.given(sent).when(resend(CHOI)).thenThrows('participant_cannot_sign', 'conflict');
    spec.given([...sent, kimSigned]).when(resend(KIM)).thenThrows('participant_already_signed', 'conflict');
    spec.given(draft).when(resend(KIM)).thenThrows('document_not_signable', 'conflict');
  });
});

describe('CancelDocument with a reason', () => {
  const cancel = (reason?: string | null): CancelDocument => ({ type: 'CancelDocument', now: T_FIX, ...(reason !== undefined ? { reason } : {}) });

  it('records the reason, trimmed; the state keeps it for the participants', () => {
    const state = spec.given(sent).when(cancel('  계약 조건 변경 / terms changed ')).then([{ type: 'DocumentCanceled', data: { canceled_at: T_FIX, reason: '계약 조건 변경 / terms changed' } }]);
    expect(state.canceled_reason).toBe('계약 조건 변경 / terms changed');
  });

  it('without a reason (or a blank one) the event is as before', () => {
    spec.given(sent).when(cancel()).then([{ type: 'DocumentCanceled', data: { canceled_at: T_FIX } }]);
    spec.given(sent).when(cancel('   ')).then([{ type: 'DocumentCanceled', data: { canceled_at: T_FIX } }]);
  });

  it('refuses a reason over 1000 characters', () => {
    spec.given(sent).when(cancel('가'.repeat(1001))).thenThrows('invalid_parameter', { kind: 'invalid', param: 'reason' });
  });
});
