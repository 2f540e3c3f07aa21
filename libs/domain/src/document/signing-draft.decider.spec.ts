import { DomainError } from '../shared/domain-error';
import { fold } from '../shared/decider';
import { checkDraftValues, documentDecider } from './document.decider';
import { DocumentEvent, Field, ParticipantSetup } from './document.events';

/**
 * A signing draft's values are checked as a signature checks them, one by one, where a signature
 * would be accepted: given the document's events, when a draft is saved, then the values to merge
 * or the refusal (code and param) a signature would give there.
 */
const DOC = '3f2b8c1e-7a4d-4e59-9c0b-1d2e3f4a5b6c';
const KIM = 'a0000001-0000-4000-8000-000000000001';
const LEE = 'a0000002-0000-4000-8000-000000000002';
const T = '2027-01-01T10:00:00.000Z';
const NOW = '2027-01-01T11:00:00.000Z';

const kim: ParticipantSetup = { id: KIM, name: '김민지', phone: '01012345678', email: null, role: 'signer', signing_order: 1, auth: 'none' };
const lee: ParticipantSetup = { id: LEE, name: '이준', phone: '01098765432', email: null, role: 'signer', signing_order: 2, auth: 'sms_pin' };
let n = 0;
const f = (type: Field['type'], o: Partial<Field> = {}): Field => ({
  id: `f0000000-0000-4000-8000-${String(++n).padStart(12, '0')}`,
  participant_id: KIM,
  type,
  page: 1,
  x: 10,
  y: 10,
  width: 20,
  height: 5,
  required: true,
  upload_only: false,
  ...o,
});
const address = f('text', { label: '주소', max_length: 20 });
const start = f('date', { label: '근무 시작일' });
const agree = f('checkbox', { label: '동의' });
const salary = f('number', { label: '월급', min: 0 });
const idCard = f('attachment', { label: '신분증' });
const sig = f('signature');
const named = f('name');
const fixed = f('text', { read_only: true, value: '정규직' });
const leeText = f('text', { participant_id: LEE });
const FIELDS = [address, start, agree, salary, idCard, sig, named, fixed, leeText];

const given = (...more: DocumentEvent[]) =>
  fold(documentDecider, [
    {
      type: 'DocumentCreated',
      data: {
        document_id: DOC,
        organization_id: 'org',
        livemode: false,
        title: '근로계약서',
        content_blob: { sha256: 'c'.repeat(64), byte_size: 10 },
        content_format: 'html',
        file: null,
        author_name: 'Acme',
        metadata: {},
        from_template: null,
        duplicated_from: null,
        created_at: T,
      },
    },
    { type: 'ParticipantAdded', data: { participant: kim, added_at: T } },
    { type: 'ParticipantAdded', data: { participant: lee, added_at: T } },
    { type: 'FieldsReplaced', data: { fields: FIELDS, replaced_at: T } },
    {
      type: 'DocumentSent',
      data: {
        sent_at: T,
        expires_at: null,
        message: null,
        page_count: 1,
        original_pdf: null,
        links: [
          { participant_id: KIM, token_hash: 'a'.repeat(64) },
          { participant_id: LEE, token_hash: 'e'.repeat(64) },
        ],
      },
    },
    ...more,
  ] as DocumentEvent[]);

const uploaded: DocumentEvent = {
  type: 'AttachmentUploaded',
  data: { attachment_id: 'att_1', participant_id: KIM, field_id: idCard.id, filename: '신분증.jpg', content_type: 'image/jpeg', blob: { sha256: 'd'.repeat(64), byte_size: 100 }, uploaded_at: T, ip: null },
};

function refusal(run: () => unknown): { code: string; param?: string; kind: string } {
  try {
    run();
  } catch (err) {
    if (err instanceof DomainError) return { code: err.code, param: err.param, kind: err.kind };
    throw err;
  }
  throw new Error('expected a refusal');
}

describe('signing drafts (checkDraftValues)', () => {
  it('answers the values to merge, normalised as a signature records them; null or blank clears', () => {
    const out = checkDraftValues(given(uploaded), KIM, { [address.id]: '  서울 중구 ', [start.id]: '  ', [agree.id]: true, [salary.id]: 3200000, [idCard.id]: 'att_1' }, NOW);
    expect(out).toEqual({ [address.id]: '서울 중구', [start.id]: null, [agree.id]: true, [salary.id]: '3200000', [idCard.id]: 'att_1' });
    expect(checkDraftValues(given(), KIM, { [address.id]: null }, NOW)).toEqual({ [address.id]: null });
  });

  it('a field that is not the signer\'s: field_not_found, naming it', () => {
    expect(refusal(() => checkDraftValues(given(), KIM, { nope: 'x' }, NOW))).toEqual({ kind: 'invalid', code: 'field_not_found', param: 'values.nope' });
  });

  it.each([
    ['a signature field', sig],
    ['an automatic field', named],
    ['a read-only field', fixed],
  ])('%s: field_not_fillable', (_what, field) => {
    expect(refusal(() => checkDraftValues(given(), KIM, { [field.id]: 'x' }, NOW))).toEqual({ kind: 'invalid', code: 'field_not_fillable', param: `values.${field.id}` });
  });

  it.each([
    ['a checkbox given a string', agree, 'yes'],
    ['a text over its max_length', address, '가'.repeat(21)],
    ['a date that is no date', start, '2027-13-40'],
    ['a number under its min', salary, -1],
    ['text given a number', address, 12],
    ['an attachment id never uploaded for the field', idCard, 'att_1'],
  ])('%s: field_value_invalid', (_what, field, value) => {
    expect(refusal(() => checkDraftValues(given(), KIM, { [field.id]: value }, NOW))).toEqual({ kind: 'invalid', code: 'field_value_invalid', param: `values.${field.id}` });
  });

  it('refused where signing is: after signing, after declining, out of turn, without a verified PIN', () => {
    const signed: DocumentEvent = { type: 'ParticipantSigned', data: { participant_id: KIM, signed_at: T, signature: null, seal: null, auth_method: 'none', auth_phone_masked: null, ip: null, user_agent: null } };
    expect(refusal(() => checkDraftValues(given(signed), KIM, {}, NOW)).code).toBe('participant_already_signed');
    expect(refusal(() => checkDraftValues(given(), LEE, { [leeText.id]: 'x' }, NOW)).code).toBe('not_your_turn');
    expect(refusal(() => checkDraftValues(given(signed), LEE, { [leeText.id]: 'x' }, NOW)).code).toBe('pin_verification_required');
    const declined: DocumentEvent = { type: 'ParticipantDeclined', data: { participant_id: KIM, declined_at: T, reason: '싫음', ip: null, user_agent: null } };
    expect(refusal(() => checkDraftValues(given(declined), KIM, {}, NOW)).code).toMatch(/participant_declined|document_not_signable/);
  });

  it('the whole draft stays within what one signature records', () => {
    const kept = Object.fromEntries(Array.from({ length: 11 }, (_, i) => [`k${i}`, '가'.repeat(19_000)]));
    expect(refusal(() => checkDraftValues(given(), KIM, { [address.id]: '가' }, NOW, kept))).toEqual({ kind: 'too_large', code: 'field_values_too_large', param: 'values' });
  });
});
