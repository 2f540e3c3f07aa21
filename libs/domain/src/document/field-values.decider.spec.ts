import { DeciderSpecification } from '../shared/decider.spec-helpers';
import { documentDecider } from './document.decider';
import { ReplaceFields, SignDocument } from './document.commands';
import { BlobPointer, DocumentEvent, Field, ParticipantSetup } from './document.events';
import { displayValue, fieldPattern } from './field-types';

/** Given / when / then for value fields: what PUT /fields accepts, and what a signature records. */
const spec = DeciderSpecification.for(documentDecider);

const DOC = '3f2b8c1e-7a4d-4e59-9c0b-1d2e3f4a5b6c';
const ORG = '9a8b7c6d-5e4f-4a3b-8c2d-1e0f9a8b7c6d';
const KIM = 'a0000001-0000-4000-8000-000000000001';
const LEE = 'a0000002-0000-4000-8000-000000000002';
const T_CREATE = '2026-12-31T09:00:00.000Z';
const T_SEND = '2026-12-31T10:00:00.000Z';
// 2027-01-01 23:30 UTC is already 2 January in Seoul.
const T_SIGN = '2027-01-01T23:30:00.000Z';
const SIGNATURE: BlobPointer = { sha256: 'b'.repeat(64), byte_size: 4120 };

const kim: ParticipantSetup = { id: KIM, name: '김민지', phone: '01012345678', email: 'kim@example.com', role: 'signer', signing_order: 1, auth: 'none' };
const lee: ParticipantSetup = { id: LEE, name: '이준', phone: null, email: null, role: 'signer', signing_order: 2, auth: 'none' };

let n = 0;
const fid = () => `f0000000-0000-4000-8000-${String(++n).padStart(12, '0')}`;
/** Each field in a cell of its own (4 across, 18 down), so a set never hides one under another (field_overlap). */
const cell = (id: number) => ({ x: 5 + (id % 4) * 23, y: 5 + (Math.floor(id / 4) % 18) * 5 });
const f = (type: Field['type'], o: Partial<Field> = {}): Field => {
  const id = fid();
  return {
    id,
    participant_id: KIM,
    type,
    page: 1,
    ...cell(n),
    width: 20,
    height: 5,
    required: true,
    upload_only: false,
    ...o,
  };
};

const base = (): DocumentEvent[] => [
  {
    type: 'DocumentCreated',
    data: {
      document_id: DOC,
      organization_id: ORG,
      livemode: false,
      title: '근로계약서',
      content_blob: { sha256: 'c'.repeat(64), byte_size: 10 },
      content_format: 'html',
      file: null,
      author_name: 'Acme',
      metadata: {},
      from_template: null,
      duplicated_from: null,
      created_at: T_CREATE,
    },
  },
  { type: 'ParticipantAdded', data: { participant: kim, added_at: T_CREATE } },
  { type: 'ParticipantAdded', data: { participant: lee, added_at: T_CREATE } },
];
const replace = (fields: Field[]): ReplaceFields => ({ type: 'ReplaceFields', now: T_CREATE, fields });
const sentWith = (fields: Field[]): DocumentEvent[] => [
  ...base(),
  { type: 'FieldsReplaced', data: { fields, replaced_at: T_CREATE } },
  {
    type: 'DocumentSent',
    data: {
      sent_at: T_SEND,
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
];
const sign = (values: Record<string, unknown>, o: Partial<SignDocument> = {}): SignDocument => ({
  type: 'SignDocument',
  now: T_SIGN,
  participant_id: KIM,
  consent: true,
  signature: SIGNATURE,
  seal: null,
  ip: null,
  user_agent: null,
  final_pdf: null,
  values,
  ...o,
});
const signature = () => f('signature');

describe('value fields: PUT /fields (ReplaceFields)', () => {
  const refuses = (fields: Field[], code: string, param: string, message?: string | RegExp): void => {
    spec.given(base()).when(replace(fields)).thenThrows(code, { kind: 'invalid', param, ...(message ? { message } : {}) });
  };

  it('a number_format applies to number fields only, and only the four formats', () => {
    refuses([f('text', { number_format: 'won' })], 'invalid_parameter', 'fields[0].number_format', /number fields only/);
    refuses([f('number', { number_format: 'euro' as never })], 'invalid_parameter', 'fields[0].number_format', /plain, grouped, won, krw/);
  });

  it('given a draft, when every type is placed with valid settings, then the fields are recorded as sent', () => {
    const fields = [
      signature(),
      f('initials', { label: '이니셜', font_size: 9 }),
      f('text', { label: '주소', multiline: true, max_length: 200 }),
      f('text', { label: '사업자번호', pattern: '\\d{3}-\\d{2}-\\d{5}', pattern_message: '000-00-00000 형식으로 입력하세요.' }),
      f('number', { label: '월급', min: 0, max: 100_000_000, decimals: 0 }),
      f('date', { label: '근무 시작일', value: '2027-01-02', read_only: true, locale: 'ko' }),
      f('signing_date', { locale: 'en' }),
      f('checkbox', { label: '개인정보 수집·이용 동의' }),
      f('checkbox', { label: 'SMS', group: 'marketing', required: false, max_checked: 1 }),
      f('checkbox', { label: 'E-mail', group: 'marketing', required: false }),
      f('radio', { group: 'pay', option: '월급', value: true }),
      f('radio', { group: 'pay', option: '주급' }),
      f('dropdown', { options: ['정규직', '계약직'], value: '정규직' }),
      f('name'),
      f('email'),
      f('phone'),
    ];
    spec.given(base()).when(replace(fields)).then([{ type: 'FieldsReplaced', data: { fields, replaced_at: T_CREATE } }]);
  });

  describe('settings that cannot work are refused naming the exact input', () => {
    it('a dropdown without options', () => refuses([signature(), f('dropdown')], 'missing_parameter', 'fields[1].options'));
    it('a dropdown with empty options', () => refuses([f('dropdown', { options: [] })], 'missing_parameter', 'fields[0].options'));
    it('a blank option', () => refuses([f('dropdown', { options: ['a', ' '] })], 'invalid_parameter', 'fields[0].options[1]'));
    it('an option twice', () => refuses([f('dropdown', { options: ['a', 'a'] })], 'invalid_parameter', 'fields[0].options[1]', /listed twice/));
    it('a prefill that is not an option', () => refuses([f('dropdown', { options: ['a'], value: 'b' })], 'invalid_parameter', 'fields[0].value', /one of the options: a/));
    it('options on a text field', () => refuses([f('text', { options: ['a'] })], 'invalid_parameter', 'fields[0].options', /dropdown fields only/));
    it('a setting of another type (max_length on a number)', () => refuses([f('number', { max_length: 3 })], 'invalid_parameter', 'fields[0].max_length'));
    it('a font size on a checkbox', () => refuses([f('checkbox', { font_size: 10 })], 'invalid_parameter', 'fields[0].font_size'));
    it('a font size out of range', () => refuses([f('text', { font_size: 200 })], 'invalid_parameter', 'fields[0].font_size'));
    it('min above max', () => refuses([f('number', { min: 5, max: 1 })], 'invalid_parameter', 'fields[0].min', /no value could satisfy both/));
    it('too many decimals', () => refuses([f('number', { decimals: 9 })], 'invalid_parameter', 'fields[0].decimals'));
    it('a prefill with more decimals than allowed', () => refuses([f('number', { decimals: 1, value: '1.25' })], 'invalid_parameter', 'fields[0].value', /at most 1 decimal/));
    it('a prefilled date that does not exist', () => refuses([f('date', { value: '2027-02-30' })], 'invalid_parameter', 'fields[0].value', /day of the calendar/));
    it('a value on a signing_date field', () => refuses([f('signing_date', { value: '2027-01-01' })], 'invalid_parameter', 'fields[0].value', /filled when its participant signs/));
    it('read_only without a value', () => refuses([f('text', { read_only: true })], 'missing_parameter', 'fields[0].value'));
    it('read_only on a signature', () => refuses([f('signature', { read_only: true })], 'invalid_parameter', 'fields[0].read_only'));
    it('a checkbox prefilled with a string', () => refuses([f('checkbox', { value: 'yes' })], 'invalid_parameter', 'fields[0].value', /true or false/));
    it('a radio without a group', () => refuses([f('radio', { option: 'a' })], 'missing_parameter', 'fields[0].group'));
    it('a radio without its option', () => refuses([f('radio', { group: 'g' }), f('radio', { group: 'g', option: 'b' })], 'missing_parameter', 'fields[0].option'));
    it('a radio group of one', () => refuses([f('radio', { group: 'g', option: 'a' })], 'invalid_parameter', 'fields[0].group', /at least two/));
    it('a radio option twice in a group', () =>
      refuses([f('radio', { group: 'g', option: 'a' }), f('radio', { group: 'g', option: 'a' })], 'invalid_parameter', 'fields[1].option'));
    it('two radio options prefilled', () =>
      refuses([f('radio', { group: 'g', option: 'a', value: true }), f('radio', { group: 'g', option: 'b', value: true })], 'invalid_parameter', 'fields[1].value'));
    it('a group that mixes types', () =>
      refuses([f('checkbox', { group: 'g' }), f('radio', { group: 'g', option: 'b' })], 'invalid_parameter', 'fields[1].group', /mixes checkbox and radio/));
    it('a group across participants', () =>
      refuses([f('checkbox', { group: 'g', required: false }), f('checkbox', { group: 'g', required: false, participant_id: LEE })], 'invalid_parameter', 'fields[1].group', /several participants/));
    it('min_checked without a group', () => refuses([f('checkbox', { min_checked: 1 })], 'invalid_parameter', 'fields[0].min_checked'));
    it('min_checked above the boxes of the group', () =>
      refuses([f('checkbox', { group: 'g', required: false, min_checked: 3 }), f('checkbox', { group: 'g', required: false })], 'invalid_parameter', 'fields[0].min_checked', /from 0 to 2/));
    it('min_checked above max_checked', () =>
      refuses([f('checkbox', { group: 'g', required: false, min_checked: 2, max_checked: 1 }), f('checkbox', { group: 'g', required: false })], 'invalid_parameter', 'fields[0].min_checked'));
    it('max_checked below the required boxes (unsatisfiable)', () =>
      refuses([f('checkbox', { group: 'g', max_checked: 1 }), f('checkbox', { group: 'g' })], 'invalid_parameter', 'fields[0].max_checked', /must be checked/));
    it('different min_checked on two boxes of one group', () =>
      refuses([f('checkbox', { group: 'g', required: false, min_checked: 1 }), f('checkbox', { group: 'g', required: false, min_checked: 2 })], 'invalid_parameter', 'fields[1].min_checked'));
    it('a required e-mail field for a participant without an e-mail', () =>
      refuses([f('email', { participant_id: LEE })], 'invalid_parameter', 'fields[0].type', /no email/));
    it('a pattern with a backreference (not runnable in linear time)', () => refuses([f('text', { pattern: '(\\w+\\s?)*\\1' })], 'invalid_parameter', 'fields[0].pattern', /linear time/));
    it('a pattern with lookaround', () => refuses([f('text', { pattern: '(?=.*\\d).{8,}' })], 'invalid_parameter', 'fields[0].pattern', /linear time/));
    it('a pattern with nested counted repetition', () => refuses([f('text', { pattern: '(a{1,9}){1,9}' })], 'invalid_parameter', 'fields[0].pattern', /linear time/));
    it('a pattern that is not a regular expression', () => refuses([f('text', { pattern: '([a-z' })], 'invalid_parameter', 'fields[0].pattern', /not a valid regular expression/));
    it('a pattern over 200 characters', () => refuses([f('text', { pattern: 'a'.repeat(201) })], 'invalid_parameter', 'fields[0].pattern'));
    it('a pattern_message without a pattern', () => refuses([f('text', { pattern_message: 'x' })], 'invalid_parameter', 'fields[0].pattern_message'));
    it('a prefill that does not match the pattern', () =>
      refuses([f('text', { pattern: '\\d+', pattern_message: '숫자만 입력하세요.', value: 'abc' })], 'invalid_parameter', 'fields[0].value', /숫자만 입력하세요/));
    it('a label over 200 characters', () => refuses([f('text', { label: 'x'.repeat(201) })], 'invalid_parameter', 'fields[0].label'));
    it('prefills over 200,000 characters in all', () => {
      const many = Array.from({ length: 21 }, () => f('text', { max_length: 10_000, value: 'x'.repeat(10_000) }));
      spec.given(base()).when(replace(many)).thenThrows('field_values_too_large', { kind: 'too_large', param: 'fields' });
    });
  });
});

describe('value fields: signing records the values (SignDocument)', () => {
  const ok = (fields: Field[], values: Record<string, unknown>) => {
    let recorded: unknown;
    spec
      .given(sentWith(fields))
      .when(sign(values))
      .thenEvents((events) => {
        const signed = events.find((e) => e.type === 'ParticipantSigned');
        recorded = signed?.type === 'ParticipantSigned' ? signed.data.values : undefined;
      });
    return recorded;
  };
  const refused = (fields: Field[], values: Record<string, unknown>, code: string, param: string, message?: string | RegExp): void => {
    spec.given(sentWith(fields)).when(sign(values)).thenThrows(code, { kind: 'invalid', param, ...(message ? { message } : {}) });
  };

  it('given every type, when the signer signs with values, then the signature records each value in field order with its label', () => {
    const text = f('text', { label: '주소', multiline: true });
    const num = f('number', { label: '월급', decimals: 1, min: 0 });
    const date = f('date', { label: '시작일' });
    const fixed = f('text', { label: '직무', read_only: true, value: '개발' });
    const when = f('signing_date');
    const consent = f('checkbox', { label: '동의' });
    const sms = f('checkbox', { label: 'SMS', group: 'mkt', required: false });
    const mail = f('checkbox', { label: 'E-mail', group: 'mkt', required: false });
    const monthly = f('radio', { group: 'pay', option: '월급' });
    const weekly = f('radio', { group: 'pay', option: '주급' });
    const kind = f('dropdown', { options: ['정규직', '계약직'], value: '정규직' });
    const initials = f('initials');
    const [name, email, phone] = [f('name'), f('email'), f('phone')];
    const fields = [signature(), text, num, date, fixed, when, consent, sms, mail, monthly, weekly, kind, initials, name, email, phone];
    const values = ok(fields, {
      [text.id]: '서울시 중구\n세종대로 110  ',
      [num.id]: 3500000.5,
      [date.id]: '2027-01-04',
      [consent.id]: true,
      [mail.id]: true,
      [weekly.id]: true,
      [initials.id]: 'KMJ',
    });
    expect(values).toEqual([
      { field_id: text.id, type: 'text', label: '주소', value: '서울시 중구\n세종대로 110' },
      { field_id: num.id, type: 'number', label: '월급', value: '3500000.5' },
      { field_id: date.id, type: 'date', label: '시작일', value: '2027-01-04' },
      { field_id: fixed.id, type: 'text', label: '직무', value: '개발' },
      // Signed at 23:30 UTC on 1 January: 2 January in Asia/Seoul, the default time zone.
      { field_id: when.id, type: 'signing_date', label: null, value: '2027-01-02' },
      { field_id: consent.id, type: 'checkbox', label: '동의', value: true },
      { field_id: sms.id, type: 'checkbox', label: 'SMS', value: false },
      { field_id: mail.id, type: 'checkbox', label: 'E-mail', value: true },
      { field_id: monthly.id, type: 'radio', label: null, value: false },
      { field_id: weekly.id, type: 'radio', label: null, value: true },
      { field_id: kind.id, type: 'dropdown', label: null, value: '정규직' },
      { field_id: initials.id, type: 'initials', label: null, value: 'KMJ' },
      { field_id: name.id, type: 'name', label: null, value: '김민지' },
      { field_id: email.id, type: 'email', label: null, value: 'kim@example.com' },
      { field_id: phone.id, type: 'phone', label: null, value: '01012345678' },
    ]);
  });

  it('signing_date uses the organization time zone the shell passes', () => {
    const when = f('signing_date');
    spec
      .given(sentWith([signature(), when]))
      .when(sign({}, { time_zone: 'America/New_York' }))
      .thenEvents((events) => {
        expect(events[0].type === 'ParticipantSigned' && events[0].data.values).toEqual([{ field_id: when.id, type: 'signing_date', label: null, value: '2027-01-01' }]);
      });
  });

  it('the completing signature carries every participant\'s values in DocumentCompleted.form_data, and the state keeps them', () => {
    const mine = f('text', { label: '주소' });
    const theirs = f('text', { label: '대표 확인', participant_id: LEE });
    const theirSignature = f('signature', { participant_id: LEE });
    const fields = [signature(), mine, theirSignature, theirs];
    const first = spec.given(sentWith(fields)).when(sign({ [mine.id]: '서울' })).thenEvents(() => undefined);
    const kimSigned = { type: 'ParticipantSigned' as const, data: { participant_id: KIM, signed_at: T_SIGN, signature: SIGNATURE, seal: null, auth_method: 'none' as const, auth_phone_masked: null, ip: null, user_agent: null, values: [{ field_id: mine.id, type: 'text' as const, label: '주소', value: '서울' }] } };
    expect(first.participants.find((p) => p.id === KIM)?.values).toEqual(kimSigned.data.values);
    spec
      .given([...sentWith(fields), kimSigned])
      .when(sign({ [theirs.id]: '확인함' }, { participant_id: LEE }))
      .thenEvents((events) => {
        const done = events.find((e) => e.type === 'DocumentCompleted');
        expect(done?.type === 'DocumentCompleted' && done.data.form_data).toEqual([
          // Not from a template, no group: the mapping properties are there, null (issue 32 item 3).
          { participant_id: KIM, field_id: mine.id, type: 'text', label: '주소', value: '서울', template_field_key: null, group: null, option: null, selected: null },
          { participant_id: LEE, field_id: theirs.id, type: 'text', label: '대표 확인', value: '확인함', template_field_key: null, group: null, option: null, selected: null },
        ]);
      });
  });

  it('a signature without value fields records no values at all (the event is as before)', () => {
    spec
      .given(sentWith([signature()]))
      .when(sign({}))
      .thenEvents((events) => expect(events[0].type === 'ParticipantSigned' && 'values' in events[0].data).toBe(false));
  });

  describe('a missing or invalid value is refused naming the field and why; nothing is recorded', () => {
    const text = (o: Partial<Field> = {}) => f('text', { label: '주소', ...o });
    it('a required text left out', () => {
      const t = text();
      refused([signature(), t], {}, 'field_value_required', `values.${t.id}`, /"주소".*is required/);
    });
    it('a required text sent blank', () => {
      const t = text();
      refused([signature(), t], { [t.id]: '   ' }, 'field_value_required', `values.${t.id}`);
    });
    it('an optional text left out is fine', () => {
      const t = text({ required: false });
      expect(ok([signature(), t], {})).toBeUndefined();
    });
    it('a text over max_length', () => {
      const t = text({ max_length: 3 });
      refused([signature(), t], { [t.id]: '서울특별시' }, 'field_value_invalid', `values.${t.id}`, /at most 3 characters/);
    });
    it('two lines in a single-line text', () => {
      const t = text();
      refused([signature(), t], { [t.id]: 'a\nb' }, 'field_value_invalid', `values.${t.id}`, /single line/);
    });
    it('a text that does not match its pattern, with the sender\'s message', () => {
      const t = text({ pattern: '\\d{3}-\\d{2}-\\d{5}', pattern_message: '000-00-00000 형식으로 입력하세요' });
      refused([signature(), t], { [t.id]: '1234567890' }, 'field_value_invalid', `values.${t.id}`, /000-00-00000 형식으로 입력하세요/);
      expect(ok([signature(), t], { [t.id]: '123-45-67890' })).toEqual([{ field_id: t.id, type: 'text', label: '주소', value: '123-45-67890' }]);
    });
    it('a pattern is matched in linear time even on a long adversarial value', () => {
      // Both backtrack exponentially in the default engine (a 30-character value takes seconds).
      const started = Date.now();
      for (const source of ['(a|aa)*c', '(a+)+b']) {
        const re = fieldPattern(source);
        expect(typeof re !== 'string' && re.test('a'.repeat(50_000))).toBe(false);
      }
      expect(Date.now() - started).toBeLessThan(500);
    });
    it.each(['3,5,0', '1e400', '1,0000', '3.500.000', '원', '₩', '3,500,000달러', '1234567890123456'])('a number that is not one: %s', (raw) => {
      const x = f('number');
      refused([signature(), x], { [x.id]: raw }, 'field_value_invalid', `values.${x.id}`, /commas only between groups of three/);
    });
    it.each([
      ['3,500,000', '3500000'],
      ['3500000원', '3500000'],
      ['₩3,500,000', '3500000'],
      [' 3,500,000 원 ', '3500000'],
    ])('a number as Koreans write it, %j, recorded as %j', (raw, recorded) => {
      const x = f('number', { label: '월 급여' });
      expect(ok([signature(), x], { [x.id]: raw })).toEqual([{ field_id: x.id, type: 'number', label: '월 급여', value: recorded }]);
    });
    it('a number below min, above max, with decimals not allowed', () => {
      const x = f('number', { min: 10, max: 20 });
      refused([signature(), x], { [x.id]: 9 }, 'field_value_invalid', `values.${x.id}`, /at least 10/);
      refused([signature(), x], { [x.id]: '21' }, 'field_value_invalid', `values.${x.id}`, /at most 20/);
      refused([signature(), x], { [x.id]: 15.5 }, 'field_value_invalid', `values.${x.id}`, /whole number/);
    });
    it('a date that is not a date', () => {
      const d = f('date');
      refused([signature(), d], { [d.id]: '02.01.2027' }, 'field_value_invalid', `values.${d.id}`, /1995년 3월 15일/);
      refused([signature(), d], { [d.id]: '2027-02-29' }, 'field_value_invalid', `values.${d.id}`);
      refused([signature(), d], { [d.id]: '1995.02.30' }, 'field_value_invalid', `values.${d.id}`, /day of the calendar/);
    });
    it.each(['1995-03-15', '1995.03.15', '1995. 3. 15.', '1995년 3월 15일', '1995/3/15'])('a date as Koreans write it, %j, recorded as 1995-03-15', (raw) => {
      const d = f('date', { label: '생년월일' });
      expect(ok([signature(), d], { [d.id]: raw })).toEqual([{ field_id: d.id, type: 'date', label: '생년월일', value: '1995-03-15' }]);
    });
    it('a dropdown choice that is not an option', () => {
      const d = f('dropdown', { options: ['정규직', '계약직'] });
      refused([signature(), d], { [d.id]: '인턴' }, 'field_value_invalid', `values.${d.id}`, /one of the options: 정규직, 계약직/);
    });
    it('a required checkbox left unchecked', () => {
      const c = f('checkbox', { label: '개인정보 수집·이용 동의' });
      refused([signature(), c], { [c.id]: false }, 'field_value_required', `values.${c.id}`, /must be checked/);
    });
    it('a checkbox sent as a string', () => {
      const c = f('checkbox');
      refused([signature(), c], { [c.id]: 'true' }, 'field_value_invalid', `values.${c.id}`, /true or false/);
    });
    it('a checkbox group below min_checked and above max_checked', () => {
      const a = f('checkbox', { group: 'g', required: false, min_checked: 1, max_checked: 2 });
      const b = f('checkbox', { group: 'g', required: false });
      const c = f('checkbox', { group: 'g', required: false });
      refused([signature(), a, b, c], {}, 'field_value_required', `values.${a.id}`, /at least 1 of its 3 boxes/);
      refused([signature(), a, b, c], { [a.id]: true, [b.id]: true, [c.id]: true }, 'field_value_invalid', `values.${a.id}`, /at most 2/);
      expect(ok([signature(), a, b, c], { [b.id]: true })).toHaveLength(3);
    });
    it('a required radio group with nothing chosen, and two choices in one group', () => {
      const a = f('radio', { group: 'pay', option: '월급' });
      const b = f('radio', { group: 'pay', option: '주급' });
      refused([signature(), a, b], {}, 'field_value_required', `values.${a.id}`, /choose one of "월급", "주급"/);
      refused([signature(), a, b], { [a.id]: true, [b.id]: true }, 'field_value_invalid', `values.${b.id}`, /takes one choice/);
    });
    it('an optional radio group may stay unanswered', () => {
      const a = f('radio', { group: 'pay', option: '월급', required: false });
      const b = f('radio', { group: 'pay', option: '주급', required: false });
      expect(ok([signature(), a, b], {})).toEqual([
        { field_id: a.id, type: 'radio', label: null, value: false },
        { field_id: b.id, type: 'radio', label: null, value: false },
      ]);
    });
    it('a value for a read-only field', () => {
      const t = text({ read_only: true, value: '개발' });
      refused([signature(), t], { [t.id]: '영업' }, 'field_value_invalid', `values.${t.id}`, /read-only/);
    });
    it('a value for a field the service fills', () => {
      const n = f('name');
      refused([signature(), n], { [n.id]: '다른 사람' }, 'field_value_invalid', `values.${n.id}`, /filled by the service/);
    });
    it('a value for a signature field', () => {
      const s = signature();
      refused([s], { [s.id]: 'x' }, 'field_value_invalid', `values.${s.id}`, /send it as signature/);
    });
    it('a value for another participant\'s field, or no field at all', () => {
      const theirs = f('text', { participant_id: LEE });
      refused([signature(), theirs, f('signature', { participant_id: LEE })], { [theirs.id]: 'x' }, 'invalid_parameter', `values.${theirs.id}`, /no field of this participant/);
      refused([signature()], { nope: 'x' }, 'invalid_parameter', 'values.nope');
    });
    it('values over 200,000 characters in all', () => {
      const a = f('text', { max_length: 10_000, required: false });
      const many = Array.from({ length: 21 }, () => f('text', { max_length: 10_000, required: false }));
      const values = Object.fromEntries([a, ...many].map((x) => [x.id, 'x'.repeat(10_000)]));
      spec.given(sentWith([signature(), a, ...many])).when(sign(values)).thenThrows('field_values_too_large', { kind: 'too_large', param: 'values' });
    });
  });
});

describe('displayValue', () => {
  it('writes dates as the locale does, and marks for booleans', () => {
    expect(displayValue({ type: 'date' }, '2027-01-02')).toBe('2027년 1월 2일');
    expect(displayValue({ type: 'date', locale: 'en' }, '2027-01-02')).toBe('2027-01-02');
    expect(displayValue({ type: 'signing_date', locale: 'ko' }, '2027-12-31')).toBe('2027년 12월 31일');
    expect(displayValue({ type: 'date' }, '1995-03-15')).toBe('1995년 3월 15일');
    expect(displayValue({ type: 'checkbox' }, true)).toBe('✓ 선택 (checked)');
    expect(displayValue({ type: 'checkbox' }, false)).toBe('□ 미선택 (unchecked)');
    expect(displayValue({ type: 'radio', option: '정규직' }, true)).toBe('● 정규직');
    expect(displayValue({ type: 'text' }, '서울')).toBe('서울');
  });

  it.each([
    [null, 0, '3500000', '3500000'],
    ['plain', 0, '3500000', '3500000'],
    ['grouped', 0, '3500000', '3,500,000'],
    ['won', 0, '3500000', '3,500,000원'],
    ['krw', 0, '3500000', '₩3,500,000'],
    ['grouped', 2, '1234.5', '1,234.50'],
    ['won', 0, '-12000', '-12,000원'],
    // 15 digits printed exactly: the recorded string is formatted, not a float.
    ['grouped', 0, '999999999999999', '999,999,999,999,999'],
  ] as const)('prints a number in its number_format %s (decimals %d): %s → %s', (number_format, decimals, value, shown) => {
    expect(displayValue({ type: 'number', number_format, decimals }, value)).toBe(shown);
  });

});
