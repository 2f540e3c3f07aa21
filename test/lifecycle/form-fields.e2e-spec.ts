import { PDFDocument, PDFSignature } from 'pdf-lib';
import { pdfsig, pdftotext, renderPage } from '@dojang/pdf/testing/poppler';
import { API_TEST_OPTIONS, client, Client, expectError, expectStatus } from '../support/api-helpers';
import { eventTypesOf, signer, SIGNATURE } from '../support/lifecycle';
import { describeOnEachStore, startTestAppOn } from '../support/each-store';
import { bearer, TestApp, TestOrg } from '../support/test-app';
import { binary } from '../files/file-helpers';
import { createEndpoint, deliverNow, Receiver, startReceiver } from '../webhooks/webhook-test-kit';

/**
 * A 근로계약서 with value fields, end to end through the API: placed (and refused when they
 * cannot work), filled by two signers, refused when a value is missing or wrong (nothing
 * recorded), and then everywhere a value must be: the document, form_data, the events and
 * webhooks, the final PDF (drawn, flattened) and the audit certificate.
 */
const BODY = '<h2>근로계약서</h2><p>회사(갑)와 근로자(을)는 다음과 같이 근로계약을 체결한다.</p><p>주소:</p><p>계좌:</p><p>근무 시작일:</p>';

describeOnEachStore('form fields', (store) => {
  const postgres = store === 'PostgreSQL';
  let t: TestApp;
  let org: TestOrg;
  let c: Client;
  let receiver: Receiver;
  beforeAll(async () => {
    t = await startTestAppOn(store, {
      manualClock: true,
      config: { ...API_TEST_OPTIONS.config, webhookAllowPrivateNetworks: true },
      worker: { tickIntervalMs: 0, webhooks: { random: () => 0.5 } },
    });
    org = await t.createOrg();
    c = client(t, org.test);
    receiver = await startReceiver();
  });
  afterAll(async () => {
    await receiver?.close();
    await t?.close();
  });

  it('places, validates, records and shows every value', async () => {
    await createEndpoint(c, { url: receiver.url('/hook') });
    const doc = expectStatus(await c.post('/documents', { title: '근로계약서', content: BODY }), 201).body;
    const employee = expectStatus(await c.post(`/documents/${doc.id}/participants`, { name: '홍길동', auth: 'none', email: 'hong@example.com' }), 201).body;
    const boss = expectStatus(await c.post(`/documents/${doc.id}/participants`, { name: '김대표', auth: 'none', signing_order: 2 }), 201).body;
    const e = (o: Record<string, unknown>) => ({ participant_id: employee.id, page: 1, width: 30, height: 3, ...o });
    const fields = [
      e({ type: 'signature', x: 10, y: 80, height: 8 }),
      e({ type: 'text', label: '주소', multiline: true, x: 20, y: 20, width: 60, height: 6 }),
      e({ type: 'text', label: '계좌번호', pattern: '\\d{3}-\\d{2}-\\d{6}', pattern_message: '000-00-000000 형식으로 입력하세요', x: 20, y: 28 }),
      e({ type: 'date', label: '근무 시작일', x: 20, y: 33 }),
      e({ type: 'date', label: '계약일', read_only: true, value: '2027-01-02', locale: 'en', x: 60, y: 33 }),
      e({ type: 'checkbox', label: '개인정보 수집·이용 동의', x: 10, y: 40, width: 3, height: 2 }),
      e({ type: 'checkbox', label: '마케팅 SMS', group: 'marketing', max_checked: 1, x: 10, y: 44, width: 3, height: 2 }),
      e({ type: 'checkbox', label: '마케팅 이메일', group: 'marketing', x: 20, y: 44, width: 3, height: 2 }),
      e({ type: 'radio', label: '근무형태', group: 'kind', option: '정규직', x: 10, y: 48, width: 3, height: 2 }),
      e({ type: 'radio', label: '근무형태', group: 'kind', option: '계약직', x: 20, y: 48, width: 3, height: 2 }),
      e({ type: 'dropdown', label: '부서', options: ['개발팀', '영업팀'], x: 20, y: 52 }),
      e({ type: 'number', label: '월급', min: 0, decimals: 0, x: 20, y: 56 }),
      e({ type: 'name', label: '근로자 성명', x: 20, y: 60 }),
      e({ type: 'signing_date', label: '서명일', locale: 'ko', x: 60, y: 60 }),
      { participant_id: boss.id, type: 'signature', page: 1, x: 60, y: 80, width: 30, height: 8 },
      { participant_id: boss.id, type: 'text', label: '대표 확인', page: 1, x: 60, y: 70, width: 30, height: 3 },
    ];
    // What cannot work is refused at placement, naming the exact input; nothing changes.
    const broken = fields.map((f, i) => (i === 10 ? { ...f, options: [] } : f));
    expectError(await c.put(`/documents/${doc.id}/fields`, { fields: broken }), 400, 'missing_parameter', 'fields[10].options');
    expectError(await c.put(`/documents/${doc.id}/fields`, { fields: [...fields, e({ type: 'text', pattern: '(\\w+)\\1', x: 1, y: 1 })] }), 400, 'invalid_parameter', 'fields[16].pattern');
    expectError(await c.put(`/documents/${doc.id}/fields`, { fields: [...fields, e({ type: 'text', x: 1, y: 1, page: 2 })] }), 400, 'field_page_out_of_range', 'fields[16].page');
    expect(expectStatus(await c.get(`/documents/${doc.id}`), 200).body.fields).toEqual([]);
    const placed = expectStatus(await c.put(`/documents/${doc.id}/fields`, { fields }), 200).body.data as any[];
    expect(placed[1]).toMatchObject({ type: 'text', label: '주소', multiline: true, required: true });
    expect(placed[4]).toMatchObject({ type: 'date', read_only: true, value: '2027-01-02', locale: 'en' });
    // A checkbox in a group is not required by default: the group's limits say how many.
    expect(placed[6]).toMatchObject({ group: 'marketing', max_checked: 1, required: false });
    const id = (label: string, option?: string) => placed.find((f) => f.label === label && (option === undefined || f.option === option)).id as string;

    const sent = expectStatus(await c.post(`/documents/${doc.id}/send`, {}), 200).body;
    const tokenOf = (pid: string) => String(sent.participants.find((p: any) => p.id === pid).signing_url).split('/sign/')[1];
    const hong = signer(t, tokenOf(employee.id));
    const session = expectStatus(await hong.view(), 200).body;
    expect(session.fields.find((f: any) => f.id === id('부서'))).toMatchObject({ type: 'dropdown', label: '부서', options: ['개발팀', '영업팀'] });

    const good = {
      [id('주소')]: '서울특별시 중구 세종대로 110\n한국빌딩 5층',
      [id('계좌번호')]: '123-45-678901',
      [id('근무 시작일')]: '2027-01-04',
      [id('개인정보 수집·이용 동의')]: true,
      [id('마케팅 이메일')]: true,
      [id('근무형태', '정규직')]: true,
      [id('부서')]: '개발팀',
      [id('월급')]: 3200000,
    };
    const before = await eventTypesOf(c, doc.id);
    // A missing or wrong value is refused naming the field and why; nothing is recorded.
    const { [id('주소')]: _missing, ...withoutAddress } = good;
    const missing = expectError(await hong.sign({ consent: true, signature: SIGNATURE, values: withoutAddress }), 400, 'field_value_required', `values.${id('주소')}`);
    expect(missing.message).toMatch(/"주소".*is required/);
    const wrong = expectError(await hong.sign({ consent: true, signature: SIGNATURE, values: { ...good, [id('계좌번호')]: '12345' } }), 400, 'field_value_invalid', `values.${id('계좌번호')}`);
    expect(wrong.message).toContain('000-00-000000 형식으로 입력하세요');
    expectError(
      await hong.sign({ consent: true, signature: SIGNATURE, values: { ...good, [id('마케팅 SMS')]: true } }),
      400,
      'field_value_invalid',
      `values.${id('마케팅 SMS')}`,
    );
    expectError(await hong.sign({ consent: true, signature: SIGNATURE, values: { ...good, [id('부서')]: '인사팀' } }), 400, 'field_value_invalid', `values.${id('부서')}`);
    expectError(await hong.sign({ consent: true, signature: SIGNATURE, values: { ...good, [id('계약일')]: '2027-02-02' } }), 400, 'field_value_invalid', `values.${id('계약일')}`);
    expect(await eventTypesOf(c, doc.id)).toEqual(before);
    expect(expectStatus(await c.get(`/documents/${doc.id}`), 200).body.participants[0].status).not.toBe('signed');

    expectStatus(await hong.sign({ consent: true, signature: SIGNATURE, values: good }), 200);
    const halfway = expectStatus(await c.get(`/documents/${doc.id}/form_data`), 200).body;
    expect(halfway).toMatchObject({ object: 'form_data', document_id: doc.id, status: 'sent', complete: false });
    expect(halfway.values[id('근무 시작일')]).toBe('2027-01-04');

    const kim = signer(t, tokenOf(boss.id));
    expectError(await kim.sign({ consent: true, signature: SIGNATURE }), 400, 'field_value_required', `values.${id('대표 확인')}`);
    expectStatus(await kim.sign({ consent: true, signature: SIGNATURE, values: { [id('대표 확인')]: '확인함' } }), 200);

    // The document shows the signed values on its fields.
    const done = expectStatus(await c.get(`/documents/${doc.id}`), 200).body;
    expect(done.status).toBe('completed');
    expect(done.fields.find((f: any) => f.id === id('주소')).value).toBe('서울특별시 중구 세종대로 110\n한국빌딩 5층');
    expect(done.fields.find((f: any) => f.id === id('마케팅 SMS')).value).toBe(false);

    // form_data: every value by field id and with its label, who and when.
    const form = expectStatus(await c.get(`/documents/${doc.id}/form_data`), 200).body;
    expect(form).toMatchObject({ object: 'form_data', status: 'completed', complete: true });
    const today = t.clock!.now().toISOString();
    const signingDate = new Intl.DateTimeFormat('en-CA', { timeZone: 'Asia/Seoul' }).format(new Date(today));
    expect(form.values).toEqual({
      [id('주소')]: '서울특별시 중구 세종대로 110\n한국빌딩 5층',
      [id('계좌번호')]: '123-45-678901',
      [id('근무 시작일')]: '2027-01-04',
      [id('계약일')]: '2027-01-02',
      [id('개인정보 수집·이용 동의')]: true,
      [id('마케팅 SMS')]: false,
      [id('마케팅 이메일')]: true,
      [id('근무형태', '정규직')]: true,
      [id('근무형태', '계약직')]: false,
      [id('부서')]: '개발팀',
      [id('월급')]: '3200000',
      [id('근로자 성명')]: '홍길동',
      [id('서명일')]: signingDate,
      [id('대표 확인')]: '확인함',
    });
    expect(form.data.find((d: any) => d.field_id === id('근무 시작일'))).toEqual({
      field_id: id('근무 시작일'),
      participant_id: employee.id,
      type: 'date',
      label: '근무 시작일',
      value: '2027-01-04',
      display_value: '2027년 1월 4일',
      // Not from a template, not in a group (issue 32 item 3).
      template_field_key: null,
      group: null,
      option: null,
      selected: null,
      signed_at: expect.any(String),
    });
    expect(form.data.find((d: any) => d.field_id === id('대표 확인'))).toMatchObject({ participant_id: boss.id, label: '대표 확인', value: '확인함' });

    // Events and webhooks carry the values: each signature its own, the completion all.
    const events = expectStatus(await c.get(`/events?document_id=${doc.id}&limit=100`), 200).body.data as any[];
    const signedEvents = events.filter((x) => x.type === 'participant.signed');
    const mine = signedEvents.find((x) => x.data.participant_id === employee.id);
    expect(mine.data.values).toEqual(form.data.filter((d: any) => d.participant_id === employee.id).map((d: any) => ({ field_id: d.field_id, type: d.type, label: d.label, value: d.value })));
    const completed = events.find((x) => x.type === 'document.completed');
    expect(completed.data.form_data).toHaveLength(14);
    expect(completed.data.form_data).toContainEqual({ participant_id: boss.id, field_id: id('대표 확인'), type: 'text', label: '대표 확인', value: '확인함', template_field_key: null, group: null, option: null, selected: null });
    await deliverNow(t);
    const delivered = receiver.hits.map((h) => JSON.parse(h.body));
    expect(delivered.find((x) => x.id === completed.id)).toEqual(completed);
    expect(delivered.find((x) => x.id === mine.id)).toEqual(mine);

    // The final PDF shows the values, with no live form field left.
    const download = (query = '') => t.http.get(`/v1/documents/${doc.id}/file${query}`).set(bearer(org.test)).buffer(true).parse(binary).expect(200);
    const final = (await download()).body as Buffer;
    const text = pdftotext(final);
    for (const shown of ['서울특별시 중구 세종대로 110', '한국빌딩 5층', '123-45-678901', '2027년 1월 4일', '2027-01-02', '개발팀', '3200000', '홍길동', '확인함']) {
      expect(text).toContain(shown);
    }
    expect(text).toContain(`${Number(signingDate.slice(5, 7))}월 ${Number(signingDate.slice(8, 10))}일`);
    // Drawn before the PAdES signature, which covers them.
    const report = pdfsig(final);
    expect(report).toContain('Signature Validation: Signature is Valid.');
    expect(report).toContain('Total document signed');
    // The only field is the PAdES signature's own (/FT /Sig): nothing a reader could fill in.
    const loaded = await PDFDocument.load(final);
    expect(loaded.getForm().getFields().map((f) => f instanceof PDFSignature)).toEqual([true]);
    // The checked consent box has a tick; the unchecked SMS box only its frame.
    const ink = (f: any) => darkPixels(final, f);
    expect(ink(placed[5])).toBeGreaterThan(ink(placed[6]) * 1.3);
    expect(ink(placed[8])).toBeGreaterThan(ink(placed[9]) * 1.3);

    // The audit certificate lists every value: label, value, who, when.
    const audited = pdftotext((await download('?audit=true')).body as Buffer);
    expect(audited).toContain('입력 값');
    for (const shown of ['주소', '계좌번호', '123-45-678901', '근무 시작일', '2027년 1월 4일', '개인정보 수집·이용 동의', '✓ 선택', '● 정규직', '○ 계약직', '대표 확인', '확인함', '김대표']) {
      expect(audited).toContain(shown);
    }
  });
});

function darkPixels(pdf: Buffer, f: { page: number; x: number; y: number; width: number; height: number }): number {
  const page = renderPage(pdf, f.page, 72);
  let dark = 0;
  for (let y = Math.floor((f.y / 100) * page.height); y < ((f.y + f.height) / 100) * page.height; y++) {
    for (let x = Math.floor((f.x / 100) * page.width); x < ((f.x + f.width) / 100) * page.width; x++) {
      const [r, g, b] = page.rgb(x, y);
      if (r + g + b < 300) dark++;
    }
  }
  return dark;
}
