import { DeciderSpecification } from '../shared/decider.spec-helpers';
import { MAX_METADATA_KEYS, MAX_PARTICIPANTS_PER_BATCH, MAX_PARTICIPANTS_PER_DOCUMENT, MIN_FIELD_SIZE_PERCENT, documentDecider } from './document.decider';
import { MAX_PIN_LOCKOUTS, signingLinkLocked } from './document.state';
import {
  CancelDocument,
  CreateDocument,
  DeclineDocument,
  ExpireDocument,
  IssuePin,
  OpenSigningLink,
  RemindParticipants,
  SendDocument,
  SignDocument,
  UpdateDocument,
  VerifyPin,
} from './document.commands';
import { BlobPointer, ChainHeadProof, DocumentEvent, Field, FileRef, ParticipantSetup } from './document.events';

const spec = DeciderSpecification.for(documentDecider);

type DataOf<T extends DocumentEvent['type']> = Extract<DocumentEvent, { type: T }>['data'];

// ---------------------------------------------------------------------------------------------
// Fixed ids and times
// ---------------------------------------------------------------------------------------------

const DOC = '3f2b8c1e-7a4d-4e59-9c0b-1d2e3f4a5b6c';
const SOURCE_DOC = '5d6e7f80-1a2b-4c3d-8e4f-5a6b7c8d9e0f';
const ORG = '9a8b7c6d-5e4f-4a3b-8c2d-1e0f9a8b7c6d';

const KIM = 'a0000001-0000-4000-8000-000000000001'; // signer, order 1, sms_pin
const LEE = 'a0000002-0000-4000-8000-000000000002'; // signer, order 2, auth none
const PARK = 'a0000003-0000-4000-8000-000000000003'; // reviewer
const CHOI = 'a0000004-0000-4000-8000-000000000004'; // cc
const HAN = 'a0000005-0000-4000-8000-000000000005'; // another signer
const UNKNOWN = 'a0000099-0000-4000-8000-000000000099';

const F_KIM = 'f0000001-0000-4000-8000-000000000001';
const F_LEE = 'f0000002-0000-4000-8000-000000000002';
const F_SEAL = 'f0000003-0000-4000-8000-000000000003';
const F_HAN = 'f0000005-0000-4000-8000-000000000005';

const T_CREATE = '2024-05-01T09:00:00.000Z';
const T_EDIT = '2024-05-01T09:30:00.000Z';
const T_SEND = '2024-05-01T10:00:00.000Z';
const T_EXPIRES = '2024-05-15T10:00:00.000Z';
const T_OPEN = '2024-05-02T08:00:00.000Z';
const T_PIN = '2024-05-02T08:01:00.000Z';
const T_PIN_EXPIRES = '2024-05-02T08:06:00.000Z'; // T_PIN + 300 s
const T_VERIFY = '2024-05-02T08:02:00.000Z';
const T_SIGN = '2024-05-02T08:03:00.000Z';
const T_LATER = '2024-05-03T12:00:00.000Z';

const PIN_HASH = '8d969eef6ecad3c29a3a629280e686cf0c3f5d5a86aff3ca12020c923adc6c92';
const WRONG_PIN_HASH = '481f6cc0511143ccdd7e2d1b1b94faf0a700a8b49cd13922a70b5ae28acaa8c5';
const TOKEN = (n: number) => `${String(n).repeat(2)}${'c'.repeat(62)}`;

const SIGNATURE: BlobPointer = { sha256: 'b'.repeat(64), byte_size: 4120 };
const SEAL_IMAGE: BlobPointer = { sha256: 'e'.repeat(64), byte_size: 8800 };
const FINAL_PDF: BlobPointer = { sha256: 'd'.repeat(64), byte_size: 182_044 };
const ORIGINAL_SHA = '0'.repeat(63) + '1';
/** Bodies travel as blob refs: the shell stores the text first (SHA-256 and size of its UTF-8 bytes). */
const BODY: BlobPointer = { sha256: 'b'.repeat(64), byte_size: 26 };
const NEW_BODY: BlobPointer = { sha256: 'c'.repeat(64), byte_size: 10 };
const PDF_FILE: FileRef = { file_id: 'file_7f3a9c2e', sha256: '9'.repeat(64), byte_size: 120_000, page_count: 2 };
const IP = '203.0.113.7';
const UA = 'Mozilla/5.0 (jest)';

// ---------------------------------------------------------------------------------------------
// Participants and fields
// ---------------------------------------------------------------------------------------------

const person = (id: string, o: Partial<ParticipantSetup> = {}): ParticipantSetup => ({
  id,
  name: 'Someone',
  phone: null,
  email: null,
  role: 'signer',
  signing_order: 1,
  auth: 'none',
  ...o,
});
const kim = person(KIM, { name: 'Kim Minji', phone: '01012345678', email: 'kim@example.com', auth: 'sms_pin' });
const lee = person(LEE, { name: 'Lee Jun', email: 'lee@example.com', signing_order: 2 });
const park = person(PARK, { name: 'Park Reviewer', role: 'reviewer' });
const choi = person(CHOI, { name: 'Choi Copy', role: 'cc', email: 'choi@example.com' });
const han = person(HAN, { name: 'Han Parallel' });

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

// ---------------------------------------------------------------------------------------------
// Events
// ---------------------------------------------------------------------------------------------

const created = (o: Partial<DataOf<'DocumentCreated'>> = {}): DocumentEvent => ({
  type: 'DocumentCreated',
  data: {
    document_id: DOC,
    organization_id: ORG,
    livemode: true,
    title: 'Service agreement',
    content_blob: BODY,
    content_format: 'html',
    file: null,
    author_name: 'Acme Corp',
    metadata: {},
    from_template: null,
    duplicated_from: null,
    created_at: T_CREATE,
    ...o,
  },
});
const createdPdf = () => created({ content_blob: null, content_format: 'pdf', file: PDF_FILE });
const added = (participant: ParticipantSetup, at = T_EDIT): DocumentEvent => ({ type: 'ParticipantAdded', data: { participant, added_at: at } });
const fieldsSet = (fields: Field[], at = T_EDIT): DocumentEvent => ({ type: 'FieldsReplaced', data: { fields, replaced_at: at } });
const lockChanged = (locked: boolean): DocumentEvent => ({ type: 'DocumentEditLockChanged', data: { locked, at: T_EDIT } });
const trashed = (): DocumentEvent => ({ type: 'DocumentTrashed', data: { trashed_at: T_EDIT } });
const sent = (ids: string[], o: Partial<DataOf<'DocumentSent'>> = {}): DocumentEvent => ({
  type: 'DocumentSent',
  data: {
    sent_at: T_SEND,
    expires_at: T_EXPIRES,
    message: null,
    page_count: 1,
    original_pdf: null,
    links: ids.map((participant_id, i) => ({ participant_id, token_hash: TOKEN(i + 1) })),
    ...o,
  },
});
const opened = (participant_id: string, at = T_OPEN): DocumentEvent => ({
  type: 'SigningLinkOpened',
  data: { participant_id, opened_at: at, ip: IP, user_agent: UA },
});
const pinIssued = (participant_id: string, at = T_PIN, expires_at = T_PIN_EXPIRES): DocumentEvent => ({
  type: 'PinIssued',
  data: { participant_id, pin_hash: PIN_HASH, issued_at: at, expires_at, phone_masked: '010-****-5678' },
});
const pinFailed = (
  participant_id: string,
  failed_attempts: number,
  locked = false,
  reason: 'wrong' | 'locked' | 'expired' = 'wrong',
  failed_at = T_VERIFY,
): DocumentEvent => ({
  type: 'PinVerificationFailed',
  data: { participant_id, failed_at, failed_attempts, locked, ip: IP, reason },
});
const pinVerified = (participant_id: string): DocumentEvent => ({
  type: 'PinVerified',
  data: { participant_id, verified_at: T_VERIFY, ip: IP },
});
const signedEv = (participant_id: string, o: Partial<DataOf<'ParticipantSigned'>> = {}): DocumentEvent => ({
  type: 'ParticipantSigned',
  data: {
    participant_id,
    signed_at: T_SIGN,
    signature: SIGNATURE,
    seal: null,
    auth_method: 'none',
    auth_phone_masked: null,
    ip: IP,
    user_agent: UA,
    ...o,
  },
});
const participantDeclined = (participant_id: string): DocumentEvent => ({
  type: 'ParticipantDeclined',
  data: { participant_id, declined_at: T_SIGN, reason: 'Wrong amount', ip: IP, user_agent: UA },
});
const documentDeclined = (participant_id: string): DocumentEvent => ({ type: 'DocumentDeclined', data: { declined_at: T_SIGN, participant_id } });
const completed = (): DocumentEvent => ({ type: 'DocumentCompleted', data: { completed_at: T_SIGN, original_sha256: null, final_pdf: FINAL_PDF } });
const canceled = (): DocumentEvent => ({ type: 'DocumentCanceled', data: { canceled_at: T_LATER } });
const expired = (): DocumentEvent => ({ type: 'DocumentExpired', data: { expired_at: T_EXPIRES } });
const reminded = (participant_ids: string[], at: string): DocumentEvent => ({
  type: 'ReminderSent',
  data: { participant_ids, reminded_at: at, automatic: false },
});

/** A draft with these participants and fields. */
const draftWith = (participants: ParticipantSetup[], fields: Field[] = []): DocumentEvent[] => [
  created(),
  ...participants.map((p) => added(p)),
  ...(fields.length ? [fieldsSet(fields)] : []),
];
/** The same, sent. */
const sentWith = (participants: ParticipantSetup[], fields: Field[], o: Partial<DataOf<'DocumentSent'>> = {}): DocumentEvent[] => [
  ...draftWith(participants, fields),
  sent(
    participants.map((p) => p.id),
    o,
  ),
];
/** Kim (sms_pin, order 1) and Lee (none, order 2), each with one required signature field. */
const twoSignersFields = [field(F_KIM, KIM), field(F_LEE, LEE, { y: 50 })];
const twoSignersSent = () => sentWith([kim, lee], twoSignersFields);
/** Kim with a PIN issued and verified. */
const kimVerified = () => [pinIssued(KIM), pinVerified(KIM)];

// ---------------------------------------------------------------------------------------------
// Commands
// ---------------------------------------------------------------------------------------------

const create = (o: Partial<CreateDocument> = {}): CreateDocument => ({
  type: 'CreateDocument',
  now: T_CREATE,
  document_id: DOC,
  organization_id: ORG,
  livemode: true,
  title: 'Service agreement',
  content_blob: BODY,
  content_format: 'html',
  file: null,
  author_name: 'Acme Corp',
  metadata: {},
  from_template: null,
  ...o,
});
const update = (o: Omit<Partial<UpdateDocument>, 'type'>): UpdateDocument => ({ type: 'UpdateDocument', now: T_EDIT, ...o });
const send = (o: Partial<SendDocument> = {}, ids: string[] = [KIM, LEE]): SendDocument => ({
  type: 'SendDocument',
  now: T_SEND,
  expires_at: T_EXPIRES,
  message: 'Please sign by Friday.',
  page_count: 1,
  original_pdf: null,
  links: ids.map((participant_id, i) => ({ participant_id, token_hash: TOKEN(i + 1) })),
  ...o,
});
const open = (participant_id: string, now = T_OPEN): OpenSigningLink => ({ type: 'OpenSigningLink', now, participant_id, ip: IP, user_agent: UA });
const issuePin = (participant_id: string, now = T_PIN): IssuePin => ({
  type: 'IssuePin',
  now,
  participant_id,
  pin_hash: PIN_HASH,
  ttl_seconds: 300,
  cooldown_seconds: 60,
});
const verifyPin = (participant_id: string, pin_hash = PIN_HASH, now = T_VERIFY): VerifyPin => ({
  type: 'VerifyPin',
  now,
  participant_id,
  pin_hash,
  max_attempts: 5,
  ip: IP,
});
const sign = (participant_id: string, o: Partial<SignDocument> = {}): SignDocument => ({
  type: 'SignDocument',
  now: T_SIGN,
  participant_id,
  consent: true,
  signature: SIGNATURE,
  seal: null,
  ip: IP,
  user_agent: UA,
  final_pdf: null,
  ...o,
});
const decline = (participant_id: string, reason = 'The amount is wrong.'): DeclineDocument => ({
  type: 'DeclineDocument',
  now: T_SIGN,
  participant_id,
  reason,
  ip: IP,
  user_agent: UA,
});
const cancel = (): CancelDocument => ({ type: 'CancelDocument', now: T_LATER });
const expire = (now: string): ExpireDocument => ({ type: 'ExpireDocument', now });
const remind = (now = T_LATER, cooldown_seconds = 3600): RemindParticipants => ({ type: 'RemindParticipants', now, automatic: false, cooldown_seconds });


// ---------------------------------------------------------------------------------------------

describe('documentDecider', () => {
  describe('CreateDocument', () => {
    it('creates a draft', () => {
      const state = spec.given([]).when(create()).then([created()]);
      expect(state).toMatchObject({ exists: true, id: DOC, status: 'draft', title: 'Service agreement', page_count: null, participants: [], fields: [] });
    });

    it('records show_title only when the heading is left out (the default event is unchanged)', () => {
      expect(spec.given([]).when(create()).then([created()]).show_title).toBe(true);
      const state = spec.given([]).when(create({ show_title: false })).then([created({ show_title: false })]);
      expect(state.show_title).toBe(false);
    });

    it('creates from an uploaded PDF, taking its page count', () => {
      const state = spec
        .given([])
        .when(create({ content_blob: null, content_format: 'pdf', file: PDF_FILE }))
        .then([createdPdf()]);
      expect(state.page_count).toBe(2);
    });

    it(`accepts exactly ${MAX_METADATA_KEYS} metadata keys`, () => {
      const metadata = Object.fromEntries(Array.from({ length: MAX_METADATA_KEYS }, (_, i) => [`k${i}`, `v${i}`]));
      spec.given([]).when(create({ metadata })).then([created({ metadata })]);
    });

    it(`refuses more than ${MAX_METADATA_KEYS} metadata keys`, () => {
      const metadata = Object.fromEntries(Array.from({ length: MAX_METADATA_KEYS + 1 }, (_, i) => [`k${i}`, `v${i}`]));
      // Named by the first key over the limit (issue 32 item 3).
      spec.given([]).when(create({ metadata })).thenThrows('invalid_parameter', { kind: 'invalid', param: 'metadata.k20' });
    });

    it.each([
      ['a key over 40 characters', { ['가'.repeat(41)]: 'v' }, `metadata.${'가'.repeat(41)}`],
      ['a value over 500 characters', { 사번: 'E'.repeat(501) }, 'metadata.사번'],
      ['a value that is not a string', { 사번: 7 as unknown as string }, 'metadata.사번'],
    ])('refuses metadata with %s, naming the key', (_what, metadata, param) => {
      spec.given([]).when(create({ metadata })).thenThrows('invalid_parameter', { kind: 'invalid', param });
    });

    it('keeps an external_id, refusing a blank or over-long one', () => {
      spec.given([]).when(create({ external_id: 'HR-2027-0001' })).then([created({ external_id: 'HR-2027-0001' })]);
      spec.given([]).when(create({ external_id: ' ' })).thenThrows('invalid_parameter', { param: 'external_id' });
      spec.given([]).when(create({ external_id: 'x'.repeat(201) })).thenThrows('invalid_parameter', { param: 'external_id' });
    });

    it.each(['', '   '])('refuses an empty title (%j)', (title) => {
      spec.given([]).when(create({ title })).thenThrows('missing_parameter', { kind: 'invalid', param: 'title' });
    });

    // SPEC.md Errors: missing_parameter when "neither content nor file_url".
    it('refuses a document with neither content nor a file', () => {
      spec.given([]).when(create({ content_blob: null, file: null })).thenThrows('missing_parameter', 'invalid');
    });

    it('refuses an empty body (a blob of zero bytes)', () => {
      spec.given([]).when(create({ content_blob: { sha256: 'e'.repeat(64), byte_size: 0 } })).thenThrows('missing_parameter', { kind: 'invalid', param: 'content' });
    });

    it('records only the hash and size of the body, never text that came with the ref', () => {
      // A duplicate of a document recorded with an inline body hands its ref back (issue 10 §3.4).
      spec.given([]).when(create({ content_blob: { ...BODY, inline: '<p>The parties agree.</p>' } as BlobPointer })).then([created()]);
    });

    it('duplicates: copies the participant set-up and the fields, with no signing records', () => {
      const fields = [field(F_KIM, KIM), field(F_LEE, LEE)];
      const state = spec
        .given([])
        .when(create({ duplicate_of: { document_id: SOURCE_DOC, participants: [kim, lee], fields } }))
        .then([created({ duplicated_from: SOURCE_DOC }), added(kim, T_CREATE), added(lee, T_CREATE), fieldsSet(fields, T_CREATE)]);
      expect(state.status).toBe('draft');
      expect(state.fields).toEqual(fields);
      expect(state.participants.map((p) => [p.id, p.status, p.token_hash, p.signed_at, p.pin])).toEqual([
        [KIM, 'pending', null, null, null],
        [LEE, 'pending', null, null, null],
      ]);
    });

    it('duplicates a source without fields: no FieldsReplaced event', () => {
      spec
        .given([])
        .when(create({ duplicate_of: { document_id: SOURCE_DOC, participants: [lee], fields: [] } }))
        .then([created({ duplicated_from: SOURCE_DOC }), added(lee, T_CREATE)]);
    });

    it('refuses an id that already exists (even trashed)', () => {
      spec.given([created()]).when(create()).thenThrows('document_exists', 'conflict');
      spec.given([created(), trashed()]).when(create()).thenThrows('document_exists', 'conflict');
    });
  });

  describe('UpdateDocument', () => {
    const withMeta = (metadata: Record<string, string>) => [created({ metadata })];

    it('an update that names nothing to change appends nothing (PATCH with an empty body is a no-op)', () => {
      spec.given([created()]).when(update({})).thenNothing();
      // Still refused where no update is allowed: the answer must not depend on the body being empty.
      spec.given(twoSignersSent()).when(update({})).thenThrows('document_not_editable', 'conflict');
    });

    it('changes title, content and author name, naming only what changed', () => {
      const state = spec
        .given([created()])
        .when(update({ title: 'Lease', content_blob: NEW_BODY, author_name: 'Acme Legal' }))
        .then([{ type: 'DocumentUpdated', data: { title: 'Lease', content_blob: NEW_BODY, author_name: 'Acme Legal', updated_at: T_EDIT } }]);
      expect(state).toMatchObject({ title: 'Lease', content_blob: NEW_BODY, author_name: 'Acme Legal' });
      spec.given([created()]).when(update({ author_name: 'X' })).then([{ type: 'DocumentUpdated', data: { author_name: 'X', updated_at: T_EDIT } }]);
    });

    it('merges metadata with the existing values', () => {
      const state = spec
        .given(withMeta({ order: 'A-1', region: 'seoul' }))
        .when(update({ metadata: { region: 'busan', team: 'sales' } }))
        .then([{ type: 'DocumentUpdated', data: { metadata: { order: 'A-1', region: 'busan', team: 'sales' }, updated_at: T_EDIT } }]);
      expect(state.metadata).toEqual({ order: 'A-1', region: 'busan', team: 'sales' });
    });

    it('removes a key set to null (or to the empty string)', () => {
      spec
        .given(withMeta({ order: 'A-1', region: 'seoul', team: 'x' }))
        .when(update({ metadata: { region: null, team: '' } }))
        .then([{ type: 'DocumentUpdated', data: { metadata: { order: 'A-1' }, updated_at: T_EDIT } }]);
    });

    const twenty = Object.fromEntries(Array.from({ length: MAX_METADATA_KEYS }, (_, i) => [`k${i}`, `v${i}`]));

    it('refuses a 21st key', () => {
      spec.given(withMeta(twenty)).when(update({ metadata: { k20: 'one too many' } })).thenThrows('invalid_parameter', { kind: 'invalid', param: 'metadata.k20' });
    });

    it('accepts a change to one of 20 keys, and a new key once another is removed', () => {
      spec.given(withMeta(twenty)).when(update({ metadata: { k0: 'changed' } })).thenEvents((events) => {
        expect(Object.keys((events[0].data as DataOf<'DocumentUpdated'>).metadata ?? {})).toHaveLength(20);
      });
      spec.given(withMeta(twenty)).when(update({ metadata: { k0: null, k20: 'new' } })).thenEvents((events) => {
        const metadata = (events[0].data as DataOf<'DocumentUpdated'>).metadata ?? {};
        expect(Object.keys(metadata)).toHaveLength(20);
        expect(metadata).toMatchObject({ k20: 'new' });
        expect(metadata).not.toHaveProperty('k0');
      });
    });

    it('refuses a sent (or later) document: document_not_editable', () => {
      spec.given(twoSignersSent()).when(update({ title: 'Late' })).thenThrows('document_not_editable', 'conflict');
      spec.given([...twoSignersSent(), canceled()]).when(update({ title: 'Late' })).thenThrows('document_not_editable', 'conflict');
    });

    it('refuses an edit-locked draft: document_edit_locked', () => {
      spec.given([created(), lockChanged(true)]).when(update({ title: 'Locked' })).thenThrows('document_edit_locked', 'conflict');
    });

    it('refuses content for an uploaded PDF, but a title is fine', () => {
      spec.given([createdPdf()]).when(update({ content_blob: NEW_BODY })).thenThrows('invalid_parameter', { kind: 'invalid', param: 'content' });
      spec.given([createdPdf()]).when(update({ title: 'Scanned' })).then([{ type: 'DocumentUpdated', data: { title: 'Scanned', updated_at: T_EDIT } }]);
    });

    it.each(['', '  '])('refuses an empty title (%j)', (title) => {
      spec.given([created()]).when(update({ title })).thenThrows('invalid_parameter', { kind: 'invalid', param: 'title' });
    });

    it('refuses a missing or trashed document: document_not_found', () => {
      spec.given([]).when(update({ title: 'x' })).thenThrows('document_not_found', 'not_found');
      spec.given([created(), trashed()]).when(update({ title: 'x' })).thenThrows('document_not_found', 'not_found');
    });
  });

  describe('SetEditLock', () => {
    it('locks', () => {
      const state = spec
        .given([created()])
        .when({ type: 'SetEditLock', now: T_EDIT, locked: true })
        .then([lockChanged(true)]);
      expect(state.edit_locked).toBe(true);
    });

    it('unlocks', () => {
      const state = spec
        .given([created(), lockChanged(true)])
        .when({ type: 'SetEditLock', now: T_EDIT, locked: false })
        .then([lockChanged(false)]);
      expect(state.edit_locked).toBe(false);
    });

    it('does nothing when the lock is already as asked', () => {
      spec.given([created()]).when({ type: 'SetEditLock', now: T_EDIT, locked: false }).thenNothing();
      spec.given([created(), lockChanged(true)]).when({ type: 'SetEditLock', now: T_EDIT, locked: true }).thenNothing();
    });

    it('refuses a missing document', () => {
      spec.given([]).when({ type: 'SetEditLock', now: T_EDIT, locked: true }).thenThrows('document_not_found', 'not_found');
    });

    it('freezes participants and fields too, but not sending', () => {
      const locked = [...draftWith([lee], [field(F_LEE, LEE)]), lockChanged(true)];
      spec.given(locked).when({ type: 'AddParticipants', now: T_EDIT, participants: [han] }).thenThrows('document_edit_locked', 'conflict');
      spec.given(locked).when({ type: 'RemoveParticipant', now: T_EDIT, participant_id: LEE }).thenThrows('document_edit_locked', 'conflict');
      spec.given(locked).when({ type: 'ReplaceFields', now: T_EDIT, fields: [] }).thenThrows('document_edit_locked', 'conflict');
      spec
        .given(locked)
        .when(send({}, [LEE]))
        .then([sent([LEE], { message: 'Please sign by Friday.' })]);
    });
  });

  describe('TrashDocument', () => {
    it('moves the document to the trash', () => {
      const state = spec
        .given([created()])
        .when({ type: 'TrashDocument', now: T_EDIT })
        .then([trashed()]);
      expect(state).toMatchObject({ exists: true, trashed: true });
    });

    it('trashes a sent document too', () => {
      spec.given(twoSignersSent()).when({ type: 'TrashDocument', now: T_EDIT }).then([trashed()]);
    });

    it('a trashed document is not found any more', () => {
      const gone = [...twoSignersSent(), trashed()];
      spec.given(gone).when({ type: 'TrashDocument', now: T_LATER }).thenThrows('document_not_found', 'not_found');
      spec.given(gone).when(open(LEE)).thenThrows('document_not_found', 'not_found');
      spec.given(gone).when(cancel()).thenThrows('document_not_found', 'not_found');
      spec.given(gone).when(sign(LEE)).thenThrows('document_not_found', 'not_found');
      spec.given(gone).when({ type: 'SetEditLock', now: T_LATER, locked: true }).thenThrows('document_not_found', 'not_found');
    });

    it('refuses a missing document', () => {
      spec.given([]).when({ type: 'TrashDocument', now: T_EDIT }).thenThrows('document_not_found', 'not_found');
    });
  });

  describe('AddParticipants', () => {
    const add = (participants: ParticipantSetup[]) => ({ type: 'AddParticipants' as const, now: T_EDIT, participants });

    it('adds one participant, pending', () => {
      const state = spec.given([created()]).when(add([kim])).then([added(kim)]);
      expect(state.participants).toEqual([
        {
          ...kim,
          status: 'pending',
          token_hash: null,
          viewed_at: null,
          signed_at: null,
          declined_at: null,
          pin: null,
          last_pin_issued_at: null,
          pin_lockouts: 0,
          signature: null,
          seal: null,
        },
      ]);
    });

    it('records representative on the participant, and refuses it on a cc (who stamps nothing)', () => {
      const rep = { ...lee, representative: true };
      const state = spec.given([created()]).when(add([rep])).then([added(rep)]);
      expect(state.participants[0].representative).toBe(true);
      spec.given([created()]).when(add([{ ...choi, representative: true }])).thenThrows('invalid_parameter', { kind: 'invalid', param: 'representative' });
    });

    const many = (n: number) =>
      Array.from({ length: n }, (_, i) => person(`b0000000-0000-4000-8000-${String(i).padStart(12, '0')}`, { name: `Signer ${i}` }));

    it(`adds a batch of ${MAX_PARTICIPANTS_PER_BATCH}`, () => {
      const batch = many(MAX_PARTICIPANTS_PER_BATCH);
      const state = spec.given([created()]).when(add(batch)).then(batch.map((p) => added(p)));
      expect(state.participants).toHaveLength(50);
    });

    it(`refuses a batch of ${MAX_PARTICIPANTS_PER_BATCH + 1}`, () => {
      spec.given([created()]).when(add(many(51))).thenThrows('invalid_parameter', { kind: 'invalid', param: 'participants' });
    });

    it(`holds at most ${MAX_PARTICIPANTS_PER_DOCUMENT} participants per document, however they are added`, () => {
      const one = (i: number) => person(`c0000000-0000-4000-8000-${String(i).padStart(12, '0')}`, { name: `Signer ${i}` });
      const full = [created(), ...Array.from({ length: MAX_PARTICIPANTS_PER_DOCUMENT }, (_, i) => added(one(i)))];
      spec.given(full).when(add([one(100)])).thenThrows('participant_limit_exceeded', { kind: 'invalid', param: 'participants', message: /at most 50 participants/ });
      const almost = full.slice(0, -2);
      spec.given(almost).when(add([one(101), one(102), one(103)])).thenThrows('participant_limit_exceeded', { kind: 'invalid', message: /at most 2 more/ });
      spec.given(almost).when(add([one(101), one(102)])).then([added(one(101)), added(one(102))]);
      // Removing one makes room again.
      spec.given([...full, { type: 'ParticipantRemoved', data: { participant_id: one(0).id, removed_at: T_EDIT } }]).when(add([one(100)])).then([added(one(100))]);
    });

    it('refuses an empty list', () => {
      spec.given([created()]).when(add([])).thenThrows('missing_parameter', { kind: 'invalid', param: 'participants' });
    });

    it.each(['', '   '])('refuses a participant without a name (%j)', (name) => {
      spec.given([created()]).when(add([person(HAN, { name })])).thenThrows('missing_parameter', { kind: 'invalid', param: 'name' });
    });

    it('names the offending entry of a batch', () => {
      spec
        .given([created()])
        .when(add([lee, person(HAN, { name: '' })]))
        .thenThrows('missing_parameter', { param: 'participants[1].name' });
    });

    it.each(['010-1234-5678', '+821012345678', '12345', '1234567890123456', '010 1234 5678'])('refuses phone %j (digits only, 6 to 15)', (phone) => {
      spec.given([created()]).when(add([person(HAN, { phone })])).thenThrows('invalid_parameter', { kind: 'invalid', param: 'phone' });
    });

    it.each([
      ['021234567', 'phone_not_mobile'],
      ['15881234', 'phone_not_mobile'],
      ['07012345678', 'phone_not_mobile'],
      ['0101234567', 'phone_invalid'],
      ['+9991234567', 'phone_invalid'],
    ])('refuses the stored form %j, which no text message reaches, with %s', (phone, code) => {
      spec.given([created()]).when(add([person(HAN, { phone })])).thenThrows(code, { kind: 'invalid', param: 'phone' });
    });

    it('refuses sms_pin without a phone: missing_phone', () => {
      spec
        .given([created()])
        .when(add([person(HAN, { auth: 'sms_pin', phone: null })]))
        .thenThrows('missing_phone', { kind: 'invalid', param: 'phone' });
    });

    it('accepts auth none without a phone', () => {
      const p = person(HAN, { auth: 'none', phone: null });
      spec.given([created()]).when(add([p])).then([added(p)]);
    });

    it.each([0, -1, 1.5])('refuses signing_order %p', (signing_order) => {
      spec.given([created()]).when(add([person(HAN, { signing_order })])).thenThrows('invalid_parameter', { kind: 'invalid', param: 'signing_order' });
    });

    it('refuses a sent document: document_not_editable', () => {
      spec.given(twoSignersSent()).when(add([han])).thenThrows('document_not_editable', 'conflict');
    });

    it('refuses a missing document', () => {
      spec.given([]).when(add([han])).thenThrows('document_not_found', 'not_found');
    });
  });

  describe('RemoveParticipant', () => {
    const remove = (participant_id: string) => ({ type: 'RemoveParticipant' as const, now: T_EDIT, participant_id });

    it("removes the participant and, once folded, that participant's fields", () => {
      const state = spec
        .given(draftWith([kim, lee], [field(F_KIM, KIM), field(F_LEE, LEE), field(F_SEAL, KIM, { type: 'seal' })]))
        .when(remove(KIM))
        .then([{ type: 'ParticipantRemoved', data: { participant_id: KIM, removed_at: T_EDIT } }]);
      expect(state.participants.map((p) => p.id)).toEqual([LEE]);
      expect(state.fields.map((f) => f.id)).toEqual([F_LEE]);
    });

    it('refuses an unknown participant: participant_not_found', () => {
      spec.given(draftWith([kim])).when(remove(UNKNOWN)).thenThrows('participant_not_found', 'not_found');
    });

    it('refuses a sent document: document_not_editable', () => {
      spec.given(twoSignersSent()).when(remove(LEE)).thenThrows('document_not_editable', 'conflict');
    });
  });

  describe('ReplaceFields', () => {
    const replace = (fields: Field[]) => ({ type: 'ReplaceFields' as const, now: T_EDIT, fields });
    const draft = () => draftWith([kim, lee]);

    it('replaces the fields', () => {
      const fields = [field(F_KIM, KIM), field(F_SEAL, KIM, { type: 'seal', upload_only: true, x: 60, width: 40, y: 0, height: 100 })];
      const state = spec.given(draft()).when(replace(fields)).then([fieldsSet(fields)]);
      expect(state.fields).toEqual(fields);
    });

    it('replaces with an empty list', () => {
      const state = spec.given(draftWith([kim], [field(F_KIM, KIM)])).when(replace([])).then([fieldsSet([])]);
      expect(state.fields).toEqual([]);
    });

    it('refuses a field of an unknown participant', () => {
      spec.given(draft()).when(replace([field(F_KIM, UNKNOWN)])).thenThrows('invalid_parameter', { kind: 'invalid', param: 'fields[0].participant_id' });
    });

    it.each([0, -1, 1.5])('refuses page %p', (page) => {
      spec.given(draft()).when(replace([field(F_KIM, KIM, { page })])).thenThrows('invalid_parameter', { param: 'fields[0].page' });
    });

    it.each([
      ['x', -1],
      ['x', 100.5],
      ['y', -0.01],
      ['y', 101],
      ['width', 101],
      ['height', -5],
      ['x', Number.NaN],
      ['width', Number.POSITIVE_INFINITY],
    ] as const)('refuses %s = %p (outside 0 to 100)', (k, v) => {
      spec
        .given(draft())
        .when(replace([field(F_KIM, KIM, { x: 0, y: 0, width: 10, height: 10, [k]: v })]))
        .thenThrows('invalid_parameter', { kind: 'invalid', param: `fields[0].${k}` });
    });

    it('refuses a field that extends past the edge (x + width or y + height above 100)', () => {
      spec.given(draft()).when(replace([field(F_KIM, KIM, { x: 80, width: 30 })])).thenThrows('invalid_parameter', { param: 'fields[0]' });
      spec.given(draft()).when(replace([field(F_KIM, KIM, { y: 95, height: 10 })])).thenThrows('invalid_parameter', { param: 'fields[0]' });
    });

    it('refuses a field covering more than half of another (issue 34), naming the later field and the one it covers', () => {
      const fields = [field(F_KIM, KIM), field(F_SEAL, LEE, { x: 15, y: 72 })];
      spec
        .given(draft())
        .when(replace(fields))
        .thenThrows('field_overlap', { kind: 'invalid', param: 'fields[1]', message: 'covers 67% of fields[0]' });
    });

    it('accepts touching fields and a seal stamped partly over its neighbour', () => {
      const fields = [field(F_KIM, KIM), field(F_SEAL, KIM, { type: 'seal', x: 35, y: 72, width: 12, height: 12 }), field('f3', LEE, { x: 10, y: 80 })];
      spec.given(draft()).when(replace(fields)).then([fieldsSet(fields)]);
    });

    it('accepts a field flush with the edges', () => {
      const f = field(F_KIM, KIM, { x: 70, width: 30, y: 0, height: 100 });
      spec.given(draft()).when(replace([f])).then([fieldsSet([f])]);
    });

    it('refuses a zero width or height', () => {
      spec.given(draft()).when(replace([field(F_KIM, KIM, { width: 0 })])).thenThrows('invalid_parameter', { param: 'fields[0].width' });
      spec.given(draft()).when(replace([field(F_KIM, KIM, { height: 0 })])).thenThrows('invalid_parameter', { param: 'fields[0].height' });
    });

    it('refuses a width or height under MIN_FIELD_SIZE_PERCENT: an invisible box cannot be signed knowingly', () => {
      expect(MIN_FIELD_SIZE_PERCENT).toBe(1);
      for (const width of [5e-324, 0.001, 0.99]) {
        spec.given(draft()).when(replace([field(F_KIM, KIM, { width })])).thenThrows('invalid_parameter', { param: 'fields[0].width', message: /at least 1 percent/ });
      }
      spec.given(draft()).when(replace([field(F_KIM, KIM, { height: 0.5 })])).thenThrows('invalid_parameter', { param: 'fields[0].height', message: /at least 1 percent/ });
      const smallest = field(F_KIM, KIM, { width: 1, height: 1 });
      spec.given(draft()).when(replace([smallest])).then([fieldsSet([smallest])]);
    });

    it('refuses upload_only on a signature field', () => {
      spec
        .given(draft())
        .when(replace([field(F_KIM, KIM), field(F_LEE, LEE, { upload_only: true })]))
        .thenThrows('invalid_parameter', { param: 'fields[1].upload_only' });
    });

    it('refuses a page past the page count of an uploaded PDF', () => {
      const pdf = [createdPdf(), added(kim)];
      spec.given(pdf).when(replace([field(F_KIM, KIM, { page: 2 }), field(F_SEAL, KIM, { page: 3, type: 'seal' })])).thenThrows('field_page_out_of_range', {
        param: 'fields[1].page',
        message: /page is 3 but the document has 2 pages/,
      });
      spec.given(pdf).when(replace([field(F_KIM, KIM, { page: 2 })])).then([fieldsSet([field(F_KIM, KIM, { page: 2 })])]);
    });

    it('does not know the page count of an HTML body yet (checked at send)', () => {
      spec.given(draft()).when(replace([field(F_KIM, KIM, { page: 7 })])).then([fieldsSet([field(F_KIM, KIM, { page: 7 })])]);
    });

    it('checks an HTML body against the page count of its render when the shell has it', () => {
      spec
        .given(draft())
        .when({ ...replace([field(F_KIM, KIM, { page: 3 })]), page_count: 1 })
        .thenThrows('field_page_out_of_range', { kind: 'invalid', param: 'fields[0].page', message: 'fields[0].page is 3 but the document has 1 page: place it on a page from 1 to 1.' });
      spec.given(draft()).when({ ...replace([field(F_KIM, KIM, { page: 1 })]), page_count: 1 }).then([fieldsSet([field(F_KIM, KIM, { page: 1 })])]);
    });

    it('refuses a sent document: document_not_editable', () => {
      spec.given(twoSignersSent()).when(replace([])).thenThrows('document_not_editable', 'conflict');
    });
  });

  describe('SendDocument', () => {
    const unmet = (message: string | RegExp) => ({ kind: 'precondition' as const, message });

    it('refuses a document without participants', () => {
      spec.given([created()]).when(send()).thenThrows('document_has_no_participants', unmet('the document has no participants: add one with POST /v1/documents/{id}/participants'));
    });

    it('refuses a document with cc participants only', () => {
      spec.given(draftWith([choi])).when(send({}, [CHOI])).thenThrows('document_has_no_signer', unmet(/no signer or reviewer/));
    });

    it('refuses a signer without a required field', () => {
      spec.given(draftWith([kim, lee], [field(F_KIM, KIM)])).when(send()).thenThrows('signer_without_required_field', unmet(`signer "Lee Jun" (${LEE}) has no required field placed: place one for them with PUT /v1/documents/{id}/fields`));
    });

    it('an optional field does not count as the required one', () => {
      spec
        .given(draftWith([lee], [field(F_LEE, LEE, { required: false })]))
        .when(send({}, [LEE]))
        .thenThrows('signer_without_required_field', unmet(/signer "Lee Jun".*has no required field/));
    });

    it('a reviewer (and a cc) needs no field', () => {
      spec
        .given(draftWith([park, choi]))
        .when(send({}, [PARK, CHOI]))
        .then([sent([PARK, CHOI], { message: 'Please sign by Friday.' })]);
    });

    it('refuses a field on a page beyond the page count', () => {
      spec
        .given(draftWith([lee], [field(F_LEE, LEE), field(F_HAN, LEE, { page: 3 })]))
        .when(send({ page_count: 2 }, [LEE]))
        .thenThrows('field_page_out_of_range', unmet('fields[1] is on page 3 but the document has 2 pages'));
      spec
        .given(draftWith([lee], [field(F_LEE, LEE, { page: 2 })]))
        .when(send({ page_count: 1 }, [LEE]))
        .thenThrows('field_page_out_of_range', unmet('fields[0] is on page 2 but the document has 1 page'));
    });

    it('refuses a participant recorded before the phone rule with a landline: phone_not_mobile, nothing is texted', () => {
      const landline = person(KIM, { name: 'Kim Minji', auth: 'sms_pin', phone: '021234567' });
      const error = spec
        .given(draftWith([landline], [field(F_KIM, KIM)]))
        .when(send({}, [KIM]))
        .thenThrows('phone_not_mobile', 'precondition');
      expect(error.message).toContain(`participant "Kim Minji" (${KIM}) has the phone 021-**-4567, which is a landline`);
    });

    it('names every unmet precondition in one message', () => {
      // A duplicate copies participants without re-validating them: the send check is the last line.
      const noPhone = person(KIM, { name: 'Kim Minji', auth: 'sms_pin', phone: null });
      const error = spec
        .given(draftWith([noPhone, lee], [field(F_KIM, KIM, { page: 4 })]))
        .when(send({ page_count: 1 }))
        // The first unmet condition's code; the message lists all three.
        .thenThrows('missing_phone', 'precondition');
      expect(error.message).toContain(`participant "Kim Minji" (${KIM}) uses sms_pin but has no phone`);
      expect(error.message).toContain(`signer "Lee Jun" (${LEE}) has no required field placed`);
      expect(error.message).toContain('fields[0] is on page 4 but the document has 1 page');
      expect(error.message.split(';')).toHaveLength(3);
    });

    it('sends: every participant gets a link, the document is sent', () => {
      const ORIGINAL_PDF: BlobPointer = { sha256: ORIGINAL_SHA, byte_size: 96_512 };
      const state = spec
        .given(draftWith([kim, lee, choi], twoSignersFields))
        .when(send({ original_pdf: ORIGINAL_PDF }, [KIM, LEE, CHOI]))
        .then([sent([KIM, LEE, CHOI], { message: 'Please sign by Friday.', original_pdf: ORIGINAL_PDF })]);
      expect(state).toMatchObject({ status: 'sent', sent_at: T_SEND, expires_at: T_EXPIRES, page_count: 1, original_pdf: ORIGINAL_PDF });
      expect(state.participants.map((p) => p.token_hash)).toEqual([TOKEN(1), TOKEN(2), TOKEN(3)]);
    });

    it('refuses to send again: document_not_editable', () => {
      spec.given(twoSignersSent()).when(send()).thenThrows('document_not_editable', 'conflict');
    });

    it('refuses a missing document', () => {
      spec.given([]).when(send()).thenThrows('document_not_found', 'not_found');
    });
  });

  describe('OpenSigningLink', () => {
    it('the first open is an event and makes the participant viewed', () => {
      const state = spec.given(twoSignersSent()).when(open(LEE)).then([opened(LEE)]);
      expect(state.participants.find((p) => p.id === LEE)).toMatchObject({ status: 'viewed', viewed_at: T_OPEN });
    });

    it('a second open is nothing', () => {
      spec
        .given([...twoSignersSent(), opened(LEE)])
        .when(open(LEE, T_LATER))
        .thenNothing();
    });

    it('before the document is sent, or after it ended, an open is nothing', () => {
      spec.given(draftWith([lee])).when(open(LEE)).thenNothing();
      spec.given([...twoSignersSent(), canceled()]).when(open(LEE)).thenNothing();
    });

    it('refuses an unknown participant', () => {
      spec.given(twoSignersSent()).when(open(UNKNOWN)).thenThrows('participant_not_found', 'not_found');
    });

    it('refuses a missing document', () => {
      spec.given([]).when(open(LEE)).thenThrows('document_not_found', 'not_found');
    });
  });

  describe('IssuePin', () => {
    it('issues a PIN that expires after the ttl, with the phone masked', () => {
      const state = spec.given(twoSignersSent()).when(issuePin(KIM)).then([pinIssued(KIM)]);
      expect(state.participants[0]).toMatchObject({
        last_pin_issued_at: T_PIN,
        pin: { pin_hash: PIN_HASH, expires_at: T_PIN_EXPIRES, failed_attempts: 0, locked: false, verified: false, used: false },
      });
    });

    it('refuses a resend within the cooldown: too_many / pin_resend_cooldown', () => {
      spec
        .given([...twoSignersSent(), pinIssued(KIM)])
        .when(issuePin(KIM, '2024-05-02T08:01:30.000Z'))
        .thenThrows('pin_resend_cooldown', { kind: 'too_many', message: /in 30 seconds/ });
    });

    it('issues a fresh PIN after the cooldown, resetting attempts and lock', () => {
      const at = '2024-05-02T08:02:00.000Z';
      const state = spec
        .given([...twoSignersSent(), pinIssued(KIM), pinFailed(KIM, 5, true)])
        .when(issuePin(KIM, at))
        .then([pinIssued(KIM, at, '2024-05-02T08:07:00.000Z')]);
      expect(state.participants[0].pin).toMatchObject({ failed_attempts: 0, locked: false });
    });

    it('refuses a participant who does not use sms_pin: pin_not_required', () => {
      spec.given(twoSignersSent()).when(issuePin(LEE)).thenThrows('pin_not_required', 'conflict');
    });

    it('refuses an sms_pin participant without a phone (only reachable through a duplicate): pin_not_required', () => {
      const noPhone = person(HAN, { auth: 'sms_pin', phone: null });
      spec.given(sentWith([noPhone], [field(F_HAN, HAN)])).when(issuePin(HAN)).thenThrows('pin_not_required', 'conflict');
    });

    it('refuses a participant who already signed', () => {
      spec
        .given([...sentWith([kim, han], [field(F_KIM, KIM), field(F_HAN, HAN)]), ...kimVerified(), signedEv(KIM, { auth_method: 'sms_pin' })])
        .when(issuePin(KIM, T_LATER))
        .thenThrows('participant_already_signed', 'conflict');
    });

    it('refuses a document that is not sent: document_not_signable', () => {
      spec.given(draftWith([kim])).when(issuePin(KIM)).thenThrows('document_not_signable', 'conflict');
    });

    it('refuses an unknown participant', () => {
      spec.given(twoSignersSent()).when(issuePin(UNKNOWN)).thenThrows('participant_not_found', 'not_found');
    });
  });

  describe('VerifyPin', () => {
    const withPin = () => [...twoSignersSent(), pinIssued(KIM)];

    it('verifies the right PIN', () => {
      const state = spec
        .given(withPin())
        .when(verifyPin(KIM))
        .then([{ type: 'PinVerified', data: { participant_id: KIM, verified_at: T_VERIFY, ip: IP } }]);
      expect(state.participants[0].pin).toMatchObject({ verified: true, used: false });
    });

    it('counts a wrong PIN', () => {
      spec.given(withPin()).when(verifyPin(KIM, WRONG_PIN_HASH)).then([pinFailed(KIM, 1)]);
      const state = spec
        .given([...withPin(), pinFailed(KIM, 1)])
        .when(verifyPin(KIM, WRONG_PIN_HASH))
        .then([pinFailed(KIM, 2)]);
      expect(state.participants[0].pin).toMatchObject({ failed_attempts: 2, locked: false });
    });

    it('locks on the 5th wrong PIN', () => {
      const state = spec
        .given([...withPin(), pinFailed(KIM, 1), pinFailed(KIM, 2), pinFailed(KIM, 3), pinFailed(KIM, 4)])
        .when(verifyPin(KIM, WRONG_PIN_HASH))
        .then([pinFailed(KIM, 5, true)]);
      expect(state.participants[0].pin).toMatchObject({ failed_attempts: 5, locked: true });
    });

    it('refuses a locked PIN, even the right one, without a new event: the lock is already on record', () => {
      spec.given([...withPin(), pinFailed(KIM, 5, true)]).when(verifyPin(KIM)).thenThrows('pin_locked', { kind: 'conflict', param: 'pin' });
      spec.given([...withPin(), pinFailed(KIM, 5, true)]).when(verifyPin(KIM, WRONG_PIN_HASH)).thenThrows('pin_locked', { kind: 'conflict', param: 'pin' });
    });

    it('still folds a locked-attempt event recorded before attempts on a locked PIN stopped being recorded', () => {
      spec.given([...withPin(), pinFailed(KIM, 5, true), pinFailed(KIM, 5, true, 'locked')]).when(verifyPin(KIM)).thenThrows('pin_locked', 'conflict');
    });

    it('refuses an expired PIN and records the first attempt (still valid at the expiry instant)', () => {
      spec
        .given(withPin())
        .when(verifyPin(KIM, PIN_HASH, '2024-05-02T08:06:00.001Z'))
        .then([pinFailed(KIM, 0, false, 'expired', '2024-05-02T08:06:00.001Z')]);
      spec.given(withPin()).when(verifyPin(KIM, PIN_HASH, T_PIN_EXPIRES)).then([{ type: 'PinVerified', data: { participant_id: KIM, verified_at: T_PIN_EXPIRES, ip: IP } }]);
    });

    it('refuses later attempts on an expired PIN without recording each of them', () => {
      const expiredOnce = [...withPin(), pinFailed(KIM, 0, false, 'expired', '2024-05-02T08:06:00.001Z')];
      spec.given(expiredOnce).when(verifyPin(KIM, WRONG_PIN_HASH, '2024-05-02T08:07:00.000Z')).thenThrows('pin_expired', { kind: 'conflict', param: 'pin' });
      // A new PIN starts a new record.
      const reissued = [...expiredOnce, pinIssued(KIM, '2024-05-02T08:08:00.000Z', '2024-05-02T08:13:00.000Z')];
      spec.given(reissued).when(verifyPin(KIM, PIN_HASH, '2024-05-02T08:14:00.000Z')).then([pinFailed(KIM, 0, false, 'expired', '2024-05-02T08:14:00.000Z')]);
    });

    it('refuses when no PIN was requested: pin_not_requested', () => {
      spec.given(twoSignersSent()).when(verifyPin(KIM)).thenThrows('pin_not_requested', 'conflict');
    });

    it('refuses a PIN already used by a signature: pin_not_requested', () => {
      spec
        .given([...sentWith([kim, han], [field(F_KIM, KIM), field(F_HAN, HAN)]), ...kimVerified(), signedEv(KIM, { auth_method: 'sms_pin' })])
        .when(verifyPin(KIM))
        .thenThrows('pin_not_requested', 'conflict');
    });

    it('an already verified PIN is nothing, whatever is sent', () => {
      spec
        .given([...withPin(), pinVerified(KIM)])
        .when(verifyPin(KIM, WRONG_PIN_HASH))
        .thenNothing();
    });

    it('refuses a document that is not sent', () => {
      spec.given(draftWith([kim])).when(verifyPin(KIM)).thenThrows('document_not_signable', 'conflict');
    });
  });

  describe('the signing link locks after MAX_PIN_LOCKOUTS locked PINs, until the sender reminds', () => {
    const at = (minutes: number) => new Date(Date.parse(T_PIN) + minutes * 60_000).toISOString();
    /** Kim's k-th PIN (k from 0), issued two minutes after the previous one and locked by its 5th wrong attempt. */
    const lockedPin = (k: number): DocumentEvent[] => [
      pinIssued(KIM, at(2 * k), at(2 * k + 5)),
      ...[1, 2, 3, 4].map((n) => pinFailed(KIM, n, false, 'wrong', at(2 * k))),
      pinFailed(KIM, 5, true, 'wrong', at(2 * k)),
    ];
    const lockouts = (n: number) => Array.from({ length: n }, (_, k) => lockedPin(k)).flat();
    const pinAt = (minutes: number): DocumentEvent => pinIssued(KIM, at(minutes), at(minutes + 5));

    it('is 3', () => {
      expect(MAX_PIN_LOCKOUTS).toBe(3);
    });

    it('issues a new PIN after fewer lockouts', () => {
      const state = spec.given([...twoSignersSent(), ...lockouts(2)]).when(issuePin(KIM, at(10))).then([pinAt(10)]);
      expect(state.participants[0]).toMatchObject({ pin_lockouts: 2 });
      expect(signingLinkLocked(state.participants[0])).toBe(false);
    });

    it('refuses a new PIN and any verification once the third PIN locked: signing_link_locked, without an event', () => {
      const given = [...twoSignersSent(), ...lockouts(3)];
      spec.given(given).when(issuePin(KIM, at(10))).thenThrows('signing_link_locked', { kind: 'conflict', message: /sender/ });
      spec.given(given).when(verifyPin(KIM, PIN_HASH, at(4))).thenThrows('signing_link_locked', { kind: 'conflict', param: 'pin' });
    });

    it('says so on the attempt that locks the third PIN (the event is the usual locked failure)', () => {
      const state = spec
        .given([...twoSignersSent(), ...lockouts(2), pinAt(4), ...[1, 2, 3, 4].map((n) => pinFailed(KIM, n, false, 'wrong', at(4)))])
        .when(verifyPin(KIM, WRONG_PIN_HASH, at(4)))
        .then([pinFailed(KIM, 5, true, 'wrong', at(4))]);
      expect(signingLinkLocked(state.participants[0])).toBe(true);
    });

    it('counts each locked PIN once: recorded attempts on an already locked PIN are no new lockout', () => {
      const state = spec
        .given([...twoSignersSent(), ...lockouts(1), pinFailed(KIM, 5, true, 'locked', at(1)), pinFailed(KIM, 5, true, 'locked', at(1))])
        .when(issuePin(KIM, at(10)))
        .then([pinAt(10)]);
      expect(state.participants[0]).toMatchObject({ pin_lockouts: 1 });
    });

    it("the sender's reminder unlocks the reminded participant's link: a new PIN, three more lockouts", () => {
      const unlocked = [...twoSignersSent(), ...lockouts(3), reminded([KIM], at(20))];
      const state = spec.given(unlocked).when(issuePin(KIM, at(21))).then([pinAt(21)]);
      expect(state.participants[0]).toMatchObject({ pin_lockouts: 0 });
    });

    it('an automatic reminder does not unlock: only the sender decides the link may be tried again', () => {
      const auto: DocumentEvent = { type: 'ReminderSent', data: { participant_ids: [KIM], reminded_at: at(20), automatic: true } };
      spec.given([...twoSignersSent(), ...lockouts(3), auto]).when(issuePin(KIM, at(21))).thenThrows('signing_link_locked', 'conflict');
    });

    it("locks only that participant's link", () => {
      const han2 = person(HAN, { name: 'Han Parallel', phone: '01099998888', auth: 'sms_pin' });
      spec
        .given([...sentWith([kim, han2], [field(F_KIM, KIM), field(F_HAN, HAN)]), ...lockouts(3)])
        .when(issuePin(HAN, at(10)))
        .then([{ type: 'PinIssued', data: { participant_id: HAN, pin_hash: PIN_HASH, issued_at: at(10), expires_at: at(15), phone_masked: '010-****-8888' } }]);
    });
  });

  describe('SignDocument', () => {
    it('refuses a document that is not sent: document_not_signable', () => {
      spec.given(draftWith([lee], [field(F_LEE, LEE)])).when(sign(LEE)).thenThrows('document_not_signable', 'conflict');
      spec.given([...twoSignersSent(), canceled()]).when(sign(LEE)).thenThrows('document_not_signable', 'conflict');
      spec.given([...twoSignersSent(), expired()]).when(sign(LEE)).thenThrows('document_not_signable', 'conflict');
    });

    it('refuses an unknown participant', () => {
      spec.given(twoSignersSent()).when(sign(UNKNOWN)).thenThrows('participant_not_found', 'not_found');
    });

    it('refuses a cc: participant_cannot_sign', () => {
      spec.given(sentWith([lee, choi], [field(F_LEE, LEE)])).when(sign(CHOI)).thenThrows('participant_cannot_sign', 'conflict');
    });

    it('refuses a participant who already signed', () => {
      spec
        .given([...sentWith([lee, han], [field(F_LEE, LEE), field(F_HAN, HAN)]), signedEv(HAN)])
        .when(sign(HAN))
        .thenThrows('participant_already_signed', 'conflict');
    });

    it('refuses a participant who declined', () => {
      // After a decline the whole document is declined; the participant check stands behind that.
      const base = sentWith([lee, han], [field(F_LEE, LEE), field(F_HAN, HAN)]);
      spec.given([...base, participantDeclined(HAN)]).when(sign(HAN)).thenThrows('participant_declined', 'conflict');
      spec.given([...base, participantDeclined(HAN), documentDeclined(HAN)]).when(sign(HAN)).thenThrows('document_not_signable', 'conflict');
    });

    it('refuses a participant whose signing_order has not come: not_your_turn', () => {
      spec.given([...twoSignersSent(), ...kimVerified()]).when(sign(LEE)).thenThrows('not_your_turn', 'conflict');
    });

    it('the next signing_order may sign once the lower one has', () => {
      spec
        .given([...twoSignersSent(), ...kimVerified(), signedEv(KIM, { auth_method: 'sms_pin' })])
        .when(sign(LEE, { final_pdf: FINAL_PDF }))
        .then([signedEv(LEE), completed()]);
    });

    it('equal signing_orders sign in parallel, in any order', () => {
      const base = sentWith([person(LEE, { name: 'Lee Jun' }), han], [field(F_LEE, LEE), field(F_HAN, HAN)]);
      spec.given(base).when(sign(HAN)).then([signedEv(HAN)]);
      spec.given(base).when(sign(LEE)).then([signedEv(LEE)]);
    });

    it('a reviewer with a lower order goes first too', () => {
      const base = sentWith([park, person(HAN, { signing_order: 2 })], [field(F_HAN, HAN)]);
      spec.given(base).when(sign(HAN)).thenThrows('not_your_turn', 'conflict');
    });

    it('requires a verified, unused PIN for sms_pin: pin_verification_required', () => {
      spec.given(twoSignersSent()).when(sign(KIM)).thenThrows('pin_verification_required', 'conflict');
      spec
        .given([...twoSignersSent(), pinIssued(KIM)])
        .when(sign(KIM))
        .thenThrows('pin_verification_required', 'conflict');
      spec
        .given([...twoSignersSent(), pinIssued(KIM), pinFailed(KIM, 1)])
        .when(sign(KIM))
        .thenThrows('pin_verification_required', 'conflict');
    });

    it('a verified PIN lets its participant sign for 30 minutes, then needs a new PIN', () => {
      const verifiedAt = Date.parse(T_VERIFY);
      const at = (seconds: number) => new Date(verifiedAt + seconds * 1000).toISOString();
      spec
        .given([...twoSignersSent(), ...kimVerified()])
        .when(sign(KIM, { now: at(30 * 60) }))
        .then([signedEv(KIM, { signed_at: at(30 * 60), auth_method: 'sms_pin', auth_phone_masked: '010-****-5678' })]);
      spec
        .given([...twoSignersSent(), ...kimVerified()])
        .when(sign(KIM, { now: at(30 * 60 + 1) }))
        .thenThrows('pin_verification_required', 'conflict');
      // Verifying the old PIN again changes nothing; a new PIN, verified, opens a new session.
      spec.given([...twoSignersSent(), ...kimVerified()]).when(verifyPin(KIM, PIN_HASH, at(30 * 60 + 1))).then([]);
      const renewed = [
        pinIssued(KIM, at(31 * 60), at(36 * 60)),
        { type: 'PinVerified', data: { participant_id: KIM, verified_at: at(32 * 60), ip: IP } } as DocumentEvent,
      ];
      spec
        .given([...twoSignersSent(), ...kimVerified(), ...renewed])
        .when(sign(KIM, { now: at(33 * 60) }))
        .then([signedEv(KIM, { signed_at: at(33 * 60), auth_method: 'sms_pin', auth_phone_masked: '010-****-5678' })]);
    });

    it('signs with a verified PIN, recording the masked phone, and consumes the PIN', () => {
      const state = spec
        .given([...twoSignersSent(), ...kimVerified()])
        .when(sign(KIM))
        .then([signedEv(KIM, { auth_method: 'sms_pin', auth_phone_masked: '010-****-5678' })]);
      const k = state.participants[0];
      expect(k).toMatchObject({ status: 'signed', signed_at: T_SIGN, signature: SIGNATURE, pin: { used: true } });
      expect(state.status).toBe('sent');
    });

    it('requires explicit consent: consent_required', () => {
      spec
        .given([...twoSignersSent(), ...kimVerified()])
        .when(sign(KIM, { consent: false }))
        .thenThrows('consent_required', { kind: 'invalid', param: 'consent' });
    });

    it('requires a signature for a required signature field', () => {
      spec
        .given([...twoSignersSent(), ...kimVerified()])
        .when(sign(KIM, { signature: null }))
        .thenThrows('missing_parameter', { kind: 'invalid', param: 'signature' });
    });

    it('an optional signature field may be left empty', () => {
      spec
        .given(sentWith([lee], [field(F_LEE, LEE, { required: false })]))
        .when(sign(LEE, { signature: null }))
        .then([signedEv(LEE, { signature: null }), { type: 'DocumentCompleted', data: { completed_at: T_SIGN, original_sha256: null, final_pdf: null } }]);
    });

    describe('seals', () => {
      const sealOnly = (o: Partial<Field> = {}) => sentWith([lee], [field(F_SEAL, LEE, { type: 'seal', ...o })]);
      const orgSeal = { seal_id: 'seal_c0ffee01', image: SEAL_IMAGE, uploaded: false };
      const uploadedSeal = { seal_id: null, image: SEAL_IMAGE, uploaded: true };

      it('requires a seal for a required seal field', () => {
        spec.given(sealOnly()).when(sign(LEE, { signature: null })).thenThrows('missing_parameter', { kind: 'invalid', param: 'seal_id' });
      });

      it('refuses a seal when the participant has no seal field', () => {
        spec
          .given(sentWith([lee], [field(F_LEE, LEE)]))
          .when(sign(LEE, { seal: orgSeal }))
          .thenThrows('invalid_parameter', { kind: 'invalid', param: 'seal_id' });
      });

      it('refuses an organization seal on an upload_only field: seal_upload_required', () => {
        spec
          .given(sealOnly({ upload_only: true }))
          .when(sign(LEE, { signature: null, seal: orgSeal }))
          .thenThrows('seal_upload_required', { kind: 'invalid', param: 'seal_image' });
      });

      it('accepts an uploaded seal on an upload_only field', () => {
        spec
          .given(sealOnly({ upload_only: true }))
          .when(sign(LEE, { signature: null, seal: uploadedSeal }))
          .then([
            signedEv(LEE, { signature: null, seal: { seal_id: null, image: SEAL_IMAGE } }),
            { type: 'DocumentCompleted', data: { completed_at: T_SIGN, original_sha256: null, final_pdf: null } },
          ]);
      });

      it('refuses an organization seal from a signer not marked representative: seal_representative_only', () => {
        spec
          .given(sealOnly())
          .when(sign(LEE, { signature: null, seal: { ...orgSeal, source: 'organization' } }))
          .thenThrows('seal_representative_only', { kind: 'invalid', param: 'seal_id' });
      });

      it('accepts an organization seal from a representative on a normal seal field', () => {
        const state = spec
          .given(sentWith([{ ...lee, representative: true }], [field(F_SEAL, LEE, { type: 'seal' })]))
          .when(sign(LEE, { signature: null, seal: orgSeal }))
          .then([
            signedEv(LEE, { signature: null, seal: { seal_id: 'seal_c0ffee01', image: SEAL_IMAGE } }),
            { type: 'DocumentCompleted', data: { completed_at: T_SIGN, original_sha256: null, final_pdf: null } },
          ]);
        expect(state.participants[0].seal).toEqual({ seal_id: 'seal_c0ffee01', image: SEAL_IMAGE });
      });

      it('records where the seal came from (a seal made from the name, on an upload_only field too)', () => {
        const state = spec
          .given(sealOnly({ upload_only: true }))
          .when(sign(LEE, { signature: null, seal: { ...uploadedSeal, source: 'made' } }))
          .then([
            signedEv(LEE, { signature: null, seal: { seal_id: null, image: SEAL_IMAGE, source: 'made' } }),
            { type: 'DocumentCompleted', data: { completed_at: T_SIGN, original_sha256: null, final_pdf: null } },
          ]);
        expect(state.participants[0].seal).toEqual({ seal_id: null, image: SEAL_IMAGE, source: 'made' });
      });

      it('refuses a source that does not match the seal: organization without seal_id, an image called organization', () => {
        spec
          .given(sealOnly())
          .when(sign(LEE, { signature: null, seal: { ...uploadedSeal, source: 'organization' } }))
          .thenThrows('invalid_parameter', { kind: 'invalid', param: 'seal_source' });
        spec
          .given(sealOnly())
          .when(sign(LEE, { signature: null, seal: { ...orgSeal, source: 'drawn' } }))
          .thenThrows('invalid_parameter', { kind: 'invalid', param: 'seal_source' });
      });
    });

    it('a reviewer signs without a signature', () => {
      spec
        .given(sentWith([park, lee], [field(F_LEE, LEE)]))
        .when(sign(PARK, { signature: null }))
        .then([signedEv(PARK, { signature: null })]);
    });

    it('the last signer completes the document, with the final PDF', () => {
      const state = spec
        .given([...twoSignersSent(), ...kimVerified(), signedEv(KIM, { auth_method: 'sms_pin' })])
        .when(sign(LEE, { final_pdf: FINAL_PDF }))
        .then([signedEv(LEE), completed()]);
      expect(state).toMatchObject({ status: 'completed', completed_at: T_SIGN, final_pdf: FINAL_PDF });
    });

    it('the completion records the original fixed at send, not whatever the command carries', () => {
      const original: BlobPointer = { sha256: ORIGINAL_SHA, byte_size: 96_512 };
      spec
        .given(sentWith([lee], [field(F_LEE, LEE)], { original_pdf: original }))
        .when(sign(LEE, { final_pdf: FINAL_PDF }))
        .then([signedEv(LEE), { type: 'DocumentCompleted', data: { completed_at: T_SIGN, original_sha256: ORIGINAL_SHA, final_pdf: FINAL_PDF } }]);
    });

    it('the completion carries the signed chain head the shell made', () => {
      const chain_head: ChainHeadProof = {
        revision: 6,
        hash: 'a'.repeat(64),
        event_count: 7,
        completed_event_count: 9,
        algorithm: 'RSA-SHA256',
        certificate_sha256: 'c'.repeat(64),
        signature: 'c2lnbmF0dXJl',
      };
      spec
        .given(sentWith([lee], [field(F_LEE, LEE)]))
        .when(sign(LEE, { final_pdf: FINAL_PDF, chain_head }))
        .then([signedEv(LEE), { type: 'DocumentCompleted', data: { completed_at: T_SIGN, original_sha256: null, final_pdf: FINAL_PDF, chain_head } }]);
    });

    it('a cc does not block completion', () => {
      const state = spec
        .given(sentWith([lee, choi], [field(F_LEE, LEE)]))
        .when(sign(LEE, { final_pdf: FINAL_PDF }))
        .then([signedEv(LEE), completed()]);
      expect(state.status).toBe('completed');
      expect(state.participants.find((p) => p.id === CHOI)?.status).toBe('pending');
    });

    it('refuses a completed document', () => {
      spec
        .given([...sentWith([lee], [field(F_LEE, LEE)]), signedEv(LEE), completed()])
        .when(sign(LEE))
        .thenThrows('document_not_signable', 'conflict');
    });
  });

  describe('DeclineDocument', () => {
    it('declines the participant and the whole document', () => {
      const state = spec
        .given([...twoSignersSent(), signedEv(KIM)])
        .when(decline(LEE))
        .then([
          { type: 'ParticipantDeclined', data: { participant_id: LEE, declined_at: T_SIGN, reason: 'The amount is wrong.', ip: IP, user_agent: UA } },
          { type: 'DocumentDeclined', data: { declined_at: T_SIGN, participant_id: LEE } },
        ]);
      expect(state.status).toBe('declined');
      expect(state.participants.find((p) => p.id === LEE)).toMatchObject({ status: 'declined', declined_at: T_SIGN });
    });

    it('needs the sms_pin participant to have verified a PIN within the last 30 minutes', () => {
      const late = new Date(Date.parse(T_VERIFY) + 30 * 60 * 1000 + 1000).toISOString();
      spec
        .given([...twoSignersSent(), ...kimVerified()])
        .when({ ...decline(KIM), now: late })
        .thenThrows('pin_verification_required', 'conflict');
      spec
        .given([...twoSignersSent(), ...kimVerified()])
        .when(decline(KIM))
        .then([
          { type: 'ParticipantDeclined', data: { participant_id: KIM, declined_at: T_SIGN, reason: 'The amount is wrong.', ip: IP, user_agent: UA } },
          { type: 'DocumentDeclined', data: { declined_at: T_SIGN, participant_id: KIM } },
        ]);
    });

    it('refuses a cc: participant_cannot_sign', () => {
      spec.given(sentWith([lee, choi], [field(F_LEE, LEE)])).when(decline(CHOI)).thenThrows('participant_cannot_sign', 'conflict');
    });

    it('refuses a participant who already signed', () => {
      spec
        .given([...sentWith([lee, han], [field(F_LEE, LEE), field(F_HAN, HAN)]), signedEv(HAN)])
        .when(decline(HAN))
        .thenThrows('participant_already_signed', 'conflict');
    });

    it.each(['', '  '])('refuses an empty reason (%j)', (reason) => {
      spec.given([...twoSignersSent(), signedEv(KIM)]).when(decline(LEE, reason)).thenThrows('missing_parameter', { kind: 'invalid', param: 'reason' });
    });

    it('refuses a participant whose turn has not come: not_your_turn', () => {
      spec.given(twoSignersSent()).when(decline(LEE)).thenThrows('not_your_turn', 'conflict');
    });

    it('refuses a document that is not sent, and an unknown participant', () => {
      spec.given(draftWith([lee])).when(decline(LEE)).thenThrows('document_not_signable', 'conflict');
      spec.given(twoSignersSent()).when(decline(UNKNOWN)).thenThrows('participant_not_found', 'not_found');
    });
  });

  describe('CertifyDocument', () => {
    const certification = {
      head: { revision: 9, hash: 'e'.repeat(64), event_count: 10 },
      facts: { status: 'canceled' },
      sealed_at: T_LATER,
      algorithm: 'RSA-SHA256' as const,
      certificate_sha256: 'c'.repeat(64),
      signature: 'c2ln',
      timestamp_token: null,
      timestamped_at: null,
    };
    const certifyDocument = () => ({ type: 'CertifyDocument' as const, now: T_LATER, certification });

    it('certifies a concluded document once: the second certification adds nothing', () => {
      const state = spec.given([...twoSignersSent(), canceled()]).when(certifyDocument()).then([{ type: 'DocumentCertified', data: { certification } }]);
      expect(state.certified).toBe(true);
      spec.given([...twoSignersSent(), canceled(), { type: 'DocumentCertified', data: { certification } }]).when(certifyDocument()).then([]);
      spec.given([...twoSignersSent(), expired()]).when(certifyDocument()).then([{ type: 'DocumentCertified', data: { certification } }]);
    });

    it('refuses a document that has not concluded: document_not_concluded', () => {
      spec.given(twoSignersSent()).when(certifyDocument()).thenThrows('document_not_concluded', 'conflict');
    });
  });

  describe('ArchiveTimestampDocument', () => {
    const ARCHIVED = { sha256: 'a'.repeat(64), byte_size: 4321 };
    const archive = (previous = FINAL_PDF.sha256, final_pdf = ARCHIVED) => ({
      type: 'ArchiveTimestampDocument' as const,
      now: T_LATER,
      previous_final_sha256: previous,
      final_pdf,
      timestamped_at: T_LATER,
      tsa_certificate_expires_at: '2036-01-01T00:00:00.000Z',
    });
    const archived = (): DocumentEvent => ({
      type: 'DocumentArchiveTimestamped',
      data: { final_pdf: ARCHIVED, previous_final_sha256: FINAL_PDF.sha256, timestamped_at: T_LATER, tsa_certificate_expires_at: '2036-01-01T00:00:00.000Z' },
    });
    const done = () => [...sentWith([lee], [field(F_LEE, LEE)]), signedEv(LEE), completed()];

    it('makes the re-timestamped file the final PDF', () => {
      const state = spec.given(done()).when(archive()).then([archived()]);
      expect(state.final_pdf).toEqual(ARCHIVED);
      expect(state.status).toBe('completed');
    });

    it('adds nothing when the final PDF moved on (a second worker, a replayed job) or the file is the same', () => {
      spec.given([...done(), archived()]).when(archive()).thenNothing();
      spec.given(done()).when(archive(FINAL_PDF.sha256, FINAL_PDF)).thenNothing();
    });

    it('extends the newest file next time', () => {
      const next = { sha256: 'b'.repeat(64), byte_size: 5000 };
      const state = spec.given([...done(), archived()]).when(archive(ARCHIVED.sha256, next)).thenEvents((events) => expect(events.map((e) => e.type)).toEqual(['DocumentArchiveTimestamped']));
      expect(state.final_pdf).toEqual(next);
    });

    it('refuses a document that is not completed: document_not_completed', () => {
      spec.given(twoSignersSent()).when(archive()).thenThrows('document_not_completed', 'conflict');
      spec.given([...twoSignersSent(), canceled()]).when(archive()).thenThrows('document_not_completed', 'conflict');
    });
  });

  describe('CancelDocument', () => {
    it('refuses a draft: document_not_sent', () => {
      spec.given([created()]).when(cancel()).thenThrows('document_not_sent', 'conflict');
    });

    it('refuses a completed document: document_already_completed (409)', () => {
      spec
        .given([...sentWith([lee], [field(F_LEE, LEE)]), signedEv(LEE), completed()])
        .when(cancel())
        .thenThrows('document_already_completed', 'conflict');
    });

    it('cancels a sent document; its links accept nothing more', () => {
      const state = spec.given(twoSignersSent()).when(cancel()).then([canceled()]);
      expect(state.status).toBe('canceled');
      spec
        .given([...twoSignersSent(), canceled()])
        .when(sign(LEE))
        .thenThrows('document_not_signable');
    });

    it('refuses a document already canceled, declined or expired: document_not_cancelable', () => {
      spec
        .given([...twoSignersSent(), canceled()])
        .when(cancel())
        .thenThrows('document_not_cancelable', { kind: 'conflict', message: /already canceled/ });
      spec
        .given([...twoSignersSent(), participantDeclined(LEE), documentDeclined(LEE)])
        .when(cancel())
        .thenThrows('document_not_cancelable', 'conflict');
      spec
        .given([...twoSignersSent(), expired()])
        .when(cancel())
        .thenThrows('document_not_cancelable', 'conflict');
    });

    it('refuses a missing document', () => {
      spec.given([]).when(cancel()).thenThrows('document_not_found', 'not_found');
    });
  });

  describe('ExpireDocument', () => {
    it('is nothing before the expiry time', () => {
      spec.given(twoSignersSent()).when(expire('2024-05-15T09:59:59.999Z')).thenNothing();
    });

    it('expires a sent document at or after its expiry time', () => {
      const state = spec
        .given(twoSignersSent())
        .when(expire(T_EXPIRES))
        .then([{ type: 'DocumentExpired', data: { expired_at: T_EXPIRES } }]);
      expect(state.status).toBe('expired');
      spec
        .given(twoSignersSent())
        .when(expire('2024-06-01T00:00:00.000Z'))
        .then([{ type: 'DocumentExpired', data: { expired_at: '2024-06-01T00:00:00.000Z' } }]);
    });

    it('is nothing for a document that is not (or no longer) sent, or has no expiry', () => {
      spec.given([]).when(expire(T_LATER)).thenNothing();
      spec.given(draftWith([lee])).when(expire('2030-01-01T00:00:00.000Z')).thenNothing();
      spec
        .given([...sentWith([lee], [field(F_LEE, LEE)]), signedEv(LEE), completed()])
        .when(expire('2030-01-01T00:00:00.000Z'))
        .thenNothing();
      spec
        .given([...twoSignersSent(), expired()])
        .when(expire('2030-01-01T00:00:00.000Z'))
        .thenNothing();
      spec
        .given(sentWith([kim, lee], twoSignersFields, { expires_at: null }))
        .when(expire('2030-01-01T00:00:00.000Z'))
        .thenNothing();
    });
  });

  describe('RemindParticipants', () => {
    it('refuses when nobody must act: nobody_to_remind', () => {
      // Only reachable with a cc-only stream (send refuses that), but the decider must still be total.
      spec.given(sentWith([choi], [])).when(remind()).thenThrows('nobody_to_remind', 'conflict');
    });

    it('refuses within the cooldown: too_many / reminder_cooldown', () => {
      spec
        .given([...twoSignersSent(), reminded([KIM], '2024-05-03T11:30:00.000Z')])
        .when(remind(T_LATER, 3600))
        .thenThrows('reminder_cooldown', { kind: 'too_many', message: /1800 seconds/ });
    });

    it('reminds again once the cooldown has passed', () => {
      const state = spec
        .given([...twoSignersSent(), reminded([KIM], '2024-05-03T11:00:00.000Z')])
        .when(remind(T_LATER, 3600))
        .then([{ type: 'ReminderSent', data: { participant_ids: [KIM], reminded_at: T_LATER, automatic: false } }]);
      expect(state.last_reminded_at).toBe(T_LATER);
    });

    it("lists only the participants whose turn it is (not cc, not signed, not a later order)", () => {
      const mina = person(HAN, { name: 'Mina Later', signing_order: 3 });
      const reviewer2 = person(PARK, { name: 'Park Reviewer', role: 'reviewer', signing_order: 2 });
      spec
        .given([
          ...sentWith([kim, lee, reviewer2, mina, choi], [...twoSignersFields, field(F_HAN, HAN)]),
          ...kimVerified(),
          signedEv(KIM, { auth_method: 'sms_pin' }),
          opened(LEE),
        ])
        .when({ type: 'RemindParticipants', now: T_LATER, automatic: true, cooldown_seconds: 3600 })
        .then([{ type: 'ReminderSent', data: { participant_ids: [LEE, PARK], reminded_at: T_LATER, automatic: true } }]);
    });

    it('refuses a document that is not sent', () => {
      spec.given(draftWith([lee])).when(remind()).thenThrows('document_not_signable', 'conflict');
    });
  });
});
