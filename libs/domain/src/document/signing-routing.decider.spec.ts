import { DeciderSpecification } from '../shared/decider.spec-helpers';
import { documentDecider } from './document.decider';
import { AddParticipants, DelegateSigning, DocumentCommand, SignDocument, UploadAttachment } from './document.commands';
import { DocumentEvent, Field, ParticipantSetup } from './document.events';
import { planSigningNotifications } from './signing-notifications.process';
import { DocumentState, activeParticipants } from './document.state';

/**
 * Routing (issue 21 item 6): signing groups, parallel orders, reviewers, delegation; and the
 * attachment field's uploads and values (items 1–3).
 */
const spec = DeciderSpecification.for(documentDecider);

const DOC = '3f2b8c1e-7a4d-4e59-9c0b-1d2e3f4a5b6c';
const KIM = 'a0000001-0000-4000-8000-000000000001';
const LEE = 'a0000002-0000-4000-8000-000000000002';
const PARK = 'a0000003-0000-4000-8000-000000000003';
const HAN = 'a0000005-0000-4000-8000-000000000005';
const CHOI = 'a0000004-0000-4000-8000-000000000004';
const T0 = '2024-05-01T09:00:00.000Z';
const T1 = '2024-05-01T10:00:00.000Z';
const T2 = '2024-05-01T11:00:00.000Z';
const HASH = (c: string) => c.repeat(64);
const SIG = { sha256: HASH('s'), byte_size: 9 };

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
const field = (id: string, participant_id: string, o: Partial<Field> = {}): Field => ({
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
  ...o,
});

function documentWith(people: ParticipantSetup[], fields: Field[]): DocumentEvent[] {
  return [
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
    ...people.map((participant): DocumentEvent => ({ type: 'ParticipantAdded', data: { participant, added_at: T0 } })),
    { type: 'FieldsReplaced', data: { fields, replaced_at: T0 } },
    {
      type: 'DocumentSent',
      data: {
        sent_at: T1,
        expires_at: null,
        message: null,
        page_count: 1,
        original_pdf: null,
        links: people.map((p, i) => ({ participant_id: p.id, token_hash: HASH(String(i + 1)) })),
      },
    },
  ];
}

const sign = (participant_id: string, o: Partial<SignDocument> = {}): SignDocument => ({
  type: 'SignDocument',
  participant_id,
  consent: true,
  signature: SIG,
  seal: null,
  ip: null,
  user_agent: null,
  final_pdf: null,
  now: T2,
  ...o,
});
const signed = (participant_id: string, o: Record<string, unknown> = {}): DocumentEvent => ({
  type: 'ParticipantSigned',
  data: { participant_id, signed_at: T2, signature: SIG, seal: null, auth_method: 'none', auth_phone_masked: null, ip: null, user_agent: null, ...o },
});
const completed: DocumentEvent = { type: 'DocumentCompleted', data: { completed_at: T2, original_sha256: null, final_pdf: null } };
const fold = (events: DocumentEvent[]): DocumentState => events.reduce(documentDecider.evolve, documentDecider.initialState());

describe('signing groups', () => {
  // 인사팀 (HR): Kim or Lee signs for the company; then Park (order 2).
  const kim = person(KIM, { name: 'Kim', group: '인사팀', email: 'kim@example.com', phone: '01012345678', auth: 'sms_pin' });
  const lee = person(LEE, { name: 'Lee', group: '인사팀', email: 'lee@example.com' });
  const park = person(PARK, { name: 'Park', signing_order: 2, email: 'park@example.com' });
  // The group's signature field is placed on one member; whoever signs fills it.
  const sent = documentWith([kim, lee, park], [field('g1', KIM), field('p1', PARK)]);

  it('both members are asked at once; the other member, placed no field, is still a signer of the group', () => {
    expect(activeParticipants(fold(sent)).map((p) => p.id)).toEqual([KIM, LEE]);
  });

  it('when any member signs, the group is satisfied: the others are released and the next order is asked', () => {
    const state = spec
      .given(sent)
      .when(sign(LEE))
      .then([signed(LEE), { type: 'SigningGroupSatisfied', data: { group: '인사팀', signed_by: LEE, released: [KIM], satisfied_at: T2 } }]);
    expect(state.participants.find((p) => p.id === KIM)).toMatchObject({ status: 'pending', group_signed_by: LEE });
    expect(activeParticipants(state).map((p) => p.id)).toEqual([PARK]);
    const before = fold([...sent, signed(LEE)]);
    const plan = planSigningNotifications({ type: 'SigningGroupSatisfied', data: { group: '인사팀', signed_by: LEE, released: [KIM], satisfied_at: T2 } }, before, state);
    expect(plan).toEqual([{ kind: 'signing_request', participant_id: PARK, channels: ['email'] }]);
  });

  it('a released member can neither sign nor decline: 409 group_already_signed', () => {
    const after = [...sent, signed(LEE), { type: 'SigningGroupSatisfied', data: { group: '인사팀', signed_by: LEE, released: [KIM], satisfied_at: T2 } } as DocumentEvent];
    spec.given(after).when(sign(KIM)).thenThrows('group_already_signed', 'conflict');
    spec.given(after).when({ type: 'DeclineDocument', participant_id: KIM, reason: 'no', ip: null, user_agent: null, now: T2 }).thenThrows('group_already_signed', 'conflict');
    spec.given(after).when({ type: 'IssuePin', participant_id: KIM, pin_hash: HASH('p'), ttl_seconds: 600, cooldown_seconds: 60, now: T2 }).thenThrows('group_already_signed', 'conflict');
  });

  it('the last group signing completes the document without the other members', () => {
    const solo = documentWith([kim, lee], [field('g1', KIM)]);
    spec
      .given(solo)
      .when(sign(LEE))
      .then([signed(LEE), { type: 'SigningGroupSatisfied', data: { group: '인사팀', signed_by: LEE, released: [KIM], satisfied_at: T2 } }, completed]);
  });

  it('a group needs one required field among its members at send, not one each', () => {
    const draft = documentWith([kim, lee], [field('g1', KIM)]).slice(0, -1);
    const state = fold(draft);
    expect(state.status).toBe('draft');
    spec
      .given(draft)
      .when({ type: 'SendDocument', expires_at: null, message: null, page_count: 1, original_pdf: null, links: [], now: T1 })
      .then([{ type: 'DocumentSent', data: { sent_at: T1, expires_at: null, message: null, page_count: 1, original_pdf: null, links: [] } }]);
  });

  it('members share role and signing_order; a cc cannot be in a group', () => {
    const created = documentWith([kim], []).slice(0, 2);
    const add = (participants: ParticipantSetup[]): AddParticipants => ({ type: 'AddParticipants', participants, now: T1 });
    spec.given(created).when(add([person(LEE, { group: '인사팀', signing_order: 2 })])).thenThrows('invalid_parameter', { kind: 'invalid', param: 'group' });
    spec.given(created).when(add([person(LEE, { group: '인사팀', role: 'reviewer' })])).thenThrows('invalid_parameter', { kind: 'invalid', param: 'group' });
    spec.given(created).when(add([person(LEE, { group: '참조', role: 'cc' })])).thenThrows('invalid_parameter', { kind: 'invalid', param: 'group' });
    spec.given(created).when(add([person(LEE, { group: '   ' })])).thenThrows('invalid_parameter', { kind: 'invalid', param: 'group' });
    spec.given(created).when(add([person(LEE, { group: '인사팀' }), person(PARK, { group: '인사팀', signing_order: 3 })])).thenThrows('invalid_parameter', { kind: 'invalid', param: 'participants[1].group' });
  });
});

describe('parallel order, reviewer and cc', () => {
  const kim = person(KIM, { name: 'Kim' });
  const lee = person(LEE, { name: 'Lee' });
  const rev = person(PARK, { name: 'Park', role: 'reviewer', signing_order: 2 });
  const cc = person(CHOI, { name: 'Choi', role: 'cc' });
  const sent = documentWith([kim, lee, rev, cc], [field('k1', KIM), field('l1', LEE)]);

  it('participants at one order sign in any order; the next order waits for all of them', () => {
    const afterLee = spec.given(sent).when(sign(LEE)).then([signed(LEE)]);
    expect(activeParticipants(afterLee).map((p) => p.id)).toEqual([KIM]);
    spec.given(sent).when(sign(PARK, { signature: null })).thenThrows('not_your_turn', 'conflict');
  });

  it('a reviewer approves with consent alone (no signature) or declines; a cc never acts', () => {
    const both = [...sent, signed(LEE), signed(KIM)];
    spec.given(both).when(sign(PARK, { signature: null })).then([signed(PARK, { signature: null }), completed]);
    spec.given(both).when(sign(PARK, { signature: SIG })).thenThrows('invalid_parameter', { kind: 'invalid', param: 'signature' });
    spec
      .given(both)
      .when({ type: 'DeclineDocument', participant_id: PARK, reason: '조건 불일치', ip: null, user_agent: null, now: T2 })
      .then([
        { type: 'ParticipantDeclined', data: { participant_id: PARK, declined_at: T2, reason: '조건 불일치', ip: null, user_agent: null } },
        { type: 'DocumentDeclined', data: { declined_at: T2, participant_id: PARK } },
      ]);
    spec.given(both).when(sign(CHOI, { signature: null })).thenThrows('participant_cannot_sign', 'conflict');
  });

  it('a cc needs no phone and no PIN', () => {
    const created = documentWith([kim], []).slice(0, 2);
    spec
      .given(created)
      .when({ type: 'AddParticipants', participants: [cc], now: T1 })
      .then([{ type: 'ParticipantAdded', data: { participant: cc, added_at: T1 } }]);
  });
});

describe('DelegateSigning', () => {
  const kim = person(KIM, { name: 'Kim', phone: '01012345678', auth: 'sms_pin', allow_delegation: true });
  const lee = person(LEE, { name: 'Lee', email: 'lee@example.com' });
  const sent = documentWith([kim, lee], [field('k1', KIM), field('l1', LEE)]);
  const pinVerified: DocumentEvent[] = [
    { type: 'PinIssued', data: { participant_id: KIM, pin_hash: HASH('p'), issued_at: T1, expires_at: T2, phone_masked: '010-****-5678' } },
    { type: 'PinVerified', data: { participant_id: KIM, verified_at: T1, ip: null } },
  ];
  const T_DELEGATE = '2024-05-01T10:05:00.000Z';
  const delegate = (o: Partial<DelegateSigning> = {}): DelegateSigning => ({
    type: 'DelegateSigning',
    participant_id: KIM,
    delegate: { name: '박대리', phone: '01099998888', email: null },
    link: { version: 1, token_hash: HASH('9') },
    ip: '203.0.113.9',
    user_agent: 'UA',
    now: T_DELEGATE,
    ...o,
  });
  const delegated: DocumentEvent = {
    type: 'ParticipantDelegated',
    data: {
      participant_id: KIM,
      delegated_at: T_DELEGATE,
      from: { name: 'Kim', phone: '01012345678', email: null },
      to: { name: '박대리', phone: '01099998888', email: null },
      link: { version: 1, token_hash: HASH('9') },
      ip: '203.0.113.9',
      user_agent: 'UA',
    },
  };

  it('records the delegate and a new link; the participant starts over as the delegate, who cannot delegate again', () => {
    const state = spec.given([...sent, ...pinVerified]).when(delegate()).then([delegated]);
    expect(state.participants.find((p) => p.id === KIM)).toMatchObject({
      name: '박대리',
      phone: '01099998888',
      token_hash: HASH('9'),
      link_version: 1,
      pin: null,
      allow_delegation: false,
      delegated_from: [{ name: 'Kim', delegated_at: T_DELEGATE }],
    });
    spec.given([...sent, ...pinVerified, delegated]).when(delegate({ link: { version: 2, token_hash: HASH('8') } })).thenThrows('delegation_not_allowed', 'conflict');
    // The delegate is asked at once: it is their turn.
    expect(planSigningNotifications(delegated, fold([...sent, ...pinVerified]), state)).toEqual([{ kind: 'signing_request', participant_id: KIM, channels: ['sms'] }]);
  });

  it('only when the sender allowed it', () => {
    spec.given(sent).when(delegate({ participant_id: LEE, delegate: { name: 'X', phone: null, email: 'x@example.com' } })).thenThrows('delegation_not_allowed', 'conflict');
  });

  it('an sms_pin participant verifies their PIN first', () => {
    spec.given(sent).when(delegate()).thenThrows('pin_verification_required', 'conflict');
  });

  it('the delegate passes the checks of a new participant and must be reachable', () => {
    const given = [...sent, ...pinVerified];
    spec.given(given).when(delegate({ delegate: { name: '박대리', phone: null, email: 'park@example.com' } })).thenThrows('missing_phone', { kind: 'invalid', param: 'phone' });
    spec.given(given).when(delegate({ delegate: { name: '박대리', phone: '12ab', email: null } })).thenThrows('invalid_parameter', { kind: 'invalid', param: 'phone' });
    spec.given(given).when(delegate({ delegate: { name: ' ', phone: '01099998888', email: null } })).thenThrows('missing_parameter', { kind: 'invalid', param: 'name' });
    spec.given(given).when(delegate({ delegate: { name: 'Kim', phone: '01012345678', email: null } })).thenThrows('invalid_parameter', { kind: 'invalid', param: 'name' });
  });

  it('not after signing, declining or the end of the request', () => {
    const signedKim = signed(KIM, { auth_method: 'sms_pin' });
    spec.given([...sent, ...pinVerified, signedKim]).when(delegate()).thenThrows('participant_already_signed', 'conflict');
    spec.given([...sent, { type: 'DocumentCanceled', data: { canceled_at: T1 } }]).when(delegate()).thenThrows('document_not_signable', 'conflict');
  });
});

describe('attachment fields', () => {
  const kim = person(KIM, { name: 'Kim' });
  const lee = person(LEE, { name: 'Lee', signing_order: 2 });
  const idCard = field('a1', KIM, { type: 'attachment', label: '신분증 사본', accept: ['jpeg', 'png'], max_bytes: 1000 });
  const sent = documentWith([kim, lee], [field('k1', KIM), idCard, field('l1', LEE), field('a2', LEE, { type: 'attachment', required: false })]);
  const upload = (o: Partial<UploadAttachment> = {}): UploadAttachment => ({
    type: 'UploadAttachment',
    participant_id: KIM,
    field_id: 'a1',
    attachment_id: 'att_1',
    filename: 'id.png',
    kind: 'png',
    blob: { sha256: HASH('f'), byte_size: 500 },
    ip: null,
    now: T1,
    ...o,
  });
  const uploaded: DocumentEvent = {
    type: 'AttachmentUploaded',
    data: { attachment_id: 'att_1', participant_id: KIM, field_id: 'a1', filename: 'id.png', content_type: 'image/png', blob: { sha256: HASH('f'), byte_size: 500 }, uploaded_at: T1, ip: null },
  };
  const file = { attachment_id: 'att_1', filename: 'id.png', content_type: 'image/png', sha256: HASH('f'), byte_size: 500 };

  it('an upload for the participant\'s own attachment field is recorded', () => {
    const state = spec.given(sent).when(upload()).then([uploaded]);
    expect(state.attachments).toEqual([{ ...file, participant_id: KIM, field_id: 'a1' }]);
  });

  it('refuses another field, a field not theirs, an oversized file, out of turn', () => {
    spec.given(sent).when(upload({ field_id: 'k1' })).thenThrows('invalid_parameter', { kind: 'invalid', param: 'field_id' });
    spec.given(sent).when(upload({ field_id: 'a2' })).thenThrows('invalid_parameter', { kind: 'invalid', param: 'field_id' });
    spec.given(sent).when(upload({ blob: { sha256: HASH('f'), byte_size: 1001 } })).thenThrows('file_too_large', { kind: 'too_large', param: 'file' });
    spec.given(sent).when(upload({ participant_id: LEE, field_id: 'a2' })).thenThrows('not_your_turn', 'conflict');
  });

  it('the signature names the upload: its value records the file and its hash', () => {
    spec
      .given([...sent, uploaded])
      .when(sign(KIM, { values: { a1: 'att_1' } }))
      .then([signed(KIM, { values: [{ field_id: 'a1', type: 'attachment', label: '신분증 사본', value: 'att_1', attachment: file }] })]);
  });

  it('a required attachment must be given, and only as one of the participant\'s uploads for that field', () => {
    spec.given([...sent, uploaded]).when(sign(KIM)).thenThrows('field_value_required', { kind: 'invalid', param: 'values.a1' });
    spec.given([...sent, uploaded]).when(sign(KIM, { values: { a1: 'att_other' } })).thenThrows('field_value_invalid', { kind: 'invalid', param: 'values.a1' });
    const othersUpload: DocumentEvent = { ...uploaded, data: { ...(uploaded.data as object), participant_id: LEE } } as DocumentEvent;
    spec.given([...sent, othersUpload]).when(sign(KIM, { values: { a1: 'att_1' } })).thenThrows('field_value_invalid', { kind: 'invalid', param: 'values.a1' });
  });

  it('PUT /fields checks accept and max_bytes, and an attachment takes no prefill', () => {
    const draft = documentWith([kim], []).slice(0, 2);
    const put = (f: Partial<Field>): DocumentCommand => ({ type: 'ReplaceFields', fields: [field('k1', KIM), field('a1', KIM, { type: 'attachment', y: 40, ...f })], now: T1 });
    spec.given(draft).when(put({ accept: [] })).thenThrows('invalid_parameter', { kind: 'invalid', param: 'fields[1].accept' });
    spec.given(draft).when(put({ accept: ['gif' as 'png'] })).thenThrows('invalid_parameter', { kind: 'invalid', param: 'fields[1].accept[0]' });
    spec.given(draft).when(put({ accept: ['pdf', 'pdf'] })).thenThrows('invalid_parameter', { kind: 'invalid', param: 'fields[1].accept[1]' });
    spec.given(draft).when(put({ max_bytes: 25 * 1024 * 1024 + 1 })).thenThrows('invalid_parameter', { kind: 'invalid', param: 'fields[1].max_bytes' });
    spec.given(draft).when(put({ value: 'att_1' })).thenThrows('invalid_parameter', { kind: 'invalid', param: 'fields[1].value' });
    spec.given(draft).when(put({ accept: ['pdf'], max_bytes: 5 })).then([
      { type: 'FieldsReplaced', data: { fields: [field('k1', KIM), field('a1', KIM, { type: 'attachment', y: 40, accept: ['pdf'], max_bytes: 5 })], replaced_at: T1 } },
    ]);
    spec
      .given(draft)
      .when({ type: 'ReplaceFields', fields: [field('k1', KIM, { accept: ['pdf'] })], now: T1 })
      .thenThrows('invalid_parameter', { kind: 'invalid', param: 'fields[0].accept' });
  });
});
