import { Field } from './document.events';
import { formDataEntries, withFormDataDefaults } from './form-data-entries';

/** Issue 32 item 3: form_data says which option was chosen and which template field a value fills. */
const P = 'a0000001-0000-4000-8000-000000000001';
const field = (id: string, over: Partial<Field>): Field => ({ id, participant_id: P, type: 'text', page: 1, x: 10, y: 10, width: 10, height: 5, required: false, upload_only: false, ...over });

describe('formDataEntries', () => {
  const fields = [
    field('f1', { type: 'radio', group: '고용형태', option: '정규직', label: '고용형태', template_field_key: 'employment_regular' }),
    field('f2', { type: 'radio', group: '고용형태', option: '계약직', label: '고용형태', template_field_key: 'employment_contract' }),
    field('f3', { type: 'dropdown', options: ['서울', '부산'], label: '근무지', template_field_key: 'office' }),
    field('f4', { type: 'checkbox', group: '동의', label: '개인정보 수집', template_field_key: 'consent_privacy' }),
    field('f5', { type: 'checkbox', group: '동의', label: '마케팅 수신' }),
    field('f6', { type: 'text', label: '주소' }),
  ];
  const values = [
    { participant_id: P, field_id: 'f1', type: 'radio' as const, label: '고용형태', value: false },
    { participant_id: P, field_id: 'f2', type: 'radio' as const, label: '고용형태', value: true },
    { participant_id: P, field_id: 'f3', type: 'dropdown' as const, label: '근무지', value: '부산' },
    { participant_id: P, field_id: 'f4', type: 'checkbox' as const, label: '개인정보 수집', value: true },
    { participant_id: P, field_id: 'f5', type: 'checkbox' as const, label: '마케팅 수신', value: false },
    { participant_id: P, field_id: 'f6', type: 'text' as const, label: '주소', value: '서울시 중구' },
  ];

  it('gives every radio button its group\'s chosen option, a dropdown its choice, a checked box itself', () => {
    const entries = formDataEntries(fields, values);
    expect(entries.map((e) => [e.field_id, e.template_field_key, e.group, e.option, e.selected])).toEqual([
      ['f1', 'employment_regular', '고용형태', '정규직', { value: '계약직', label: '고용형태' }],
      ['f2', 'employment_contract', '고용형태', '계약직', { value: '계약직', label: '고용형태' }],
      ['f3', 'office', null, null, { value: '부산', label: '부산' }],
      ['f4', 'consent_privacy', '동의', null, { value: 'consent_privacy', label: '개인정보 수집' }],
      ['f5', null, '동의', null, null],
      ['f6', null, null, null, null],
    ]);
    // The recorded value is kept as it was.
    expect(entries[1]).toMatchObject(values[1]);
  });

  it('a radio group with no button chosen has no selection', () => {
    const none = values.map((v) => (v.type === 'radio' ? { ...v, value: false } : v));
    expect(formDataEntries(fields, none).slice(0, 2).map((e) => e.selected)).toEqual([null, null]);
  });

  it('an entry recorded before these properties reads them as null', () => {
    expect(withFormDataDefaults(values[5])).toEqual({ ...values[5], template_field_key: null, group: null, option: null, selected: null });
  });
});
