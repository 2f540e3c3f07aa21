import { createHash } from 'node:crypto';
import { pdfsig, pdftotext, renderPage } from '@dojang/pdf/testing/poppler';
import { API_TEST_OPTIONS, client, Client, expectError, expectStatus } from '../support/api-helpers';
import { expectApiError, outboxOf, signer, SIGNATURE, tokenOf } from '../support/lifecycle';
import { solidPngBytes } from '../support/png';
import { bearer, startTestApp, TestApp, TestOrg } from '../support/test-app';
import { binary } from '../files/file-helpers';
import { createEndpoint, deliverNow, Receiver, startReceiver } from '../webhooks/webhook-test-kit';

/**
 * Issue 21's "done when": a 근로계약서 sent from a template that carries the whole contract — two
 * parts, fields placed by anchors, roles — in one call; the employee's phone corrected after send;
 * both signers through the API; every value in the final PDF, the certificate, form_data and the
 * webhooks; the phone-only employee's completion SMS link serving the signed PDF after a PIN.
 */
describe('a 근로계약서 from a template with parts and anchors, end to end', () => {
  let t: TestApp;
  let org: TestOrg;
  let c: Client;
  let receiver: Receiver;
  beforeAll(async () => {
    t = await startTestApp({ manualClock: true, config: { ...API_TEST_OPTIONS.config, webhookAllowPrivateNetworks: true }, worker: { tickIntervalMs: 0, webhooks: { random: () => 0.5 } } });
    org = await t.createOrg('주식회사 도장');
    c = client(t, org.test);
    receiver = await startReceiver();
  });
  afterAll(async () => {
    await receiver?.close();
    await t?.close();
  });

  const CONTRACT =
    '<h2>근로계약서</h2><p>{{company}}(이하 "회사")와 {{employee_name}}(이하 "근로자")는 다음과 같이 근로계약을 체결한다.</p>' +
    '<p>주소: {{text:address}}</p><p>근무 시작일: {{date:start}}</p><p>근무형태: 정규직 {{radio:regular}} 계약직 {{radio:contract}}</p>' +
    '<p>부서: {{dropdown:dept}}</p><p>신분증 사본: {{attachment:id}}</p>' +
    '<p>근로자: {{employee_name}} {{signature:employee}}</p><p>대표: {{signature:ceo}}</p>';
  const CONSENT =
    '<h2>개인정보 수집·이용 동의서</h2><p>회사는 근로계약의 이행을 위하여 근로자의 개인정보를 수집·이용합니다.</p>' +
    '<p>필수 항목 동의 {{checkbox:required}}</p><p>마케팅 SMS 수신 동의 {{checkbox:sms}}</p><p>마케팅 이메일 수신 동의 {{checkbox:email}}</p>' +
    '<p>근로자 서명: {{signature:employee2}}</p>';
  const box = (text: string, width = 30, height = 3) => ({ text, width, height });
  const TEMPLATE = {
    name: '근로계약서 표준',
    parts: [{ content: CONTRACT }, { title: '개인정보 수집·이용 동의서', content: CONSENT }],
    roles: [
      { role: 'employee', participant_role: 'signer', signing_order: 1, auth: 'sms_pin' },
      { role: 'representative', participant_role: 'signer', signing_order: 2, auth: 'none' },
      { role: 'hr', participant_role: 'cc' },
    ],
    fields: [
      { role: 'employee', type: 'text', label: '주소', anchor: box('{{text:address}}', 60) },
      { role: 'employee', type: 'date', label: '근무 시작일', anchor: box('{{date:start}}') },
      { role: 'employee', type: 'radio', label: '근무형태', group: 'kind', option: '정규직', anchor: box('{{radio:regular}}', 3, 2) },
      { role: 'employee', type: 'radio', label: '근무형태', group: 'kind', option: '계약직', anchor: box('{{radio:contract}}', 3, 2) },
      { role: 'employee', type: 'dropdown', label: '부서', options: ['개발팀', '영업팀'], anchor: box('{{dropdown:dept}}') },
      { role: 'employee', type: 'attachment', label: '신분증 사본', accept: ['png'], max_bytes: 20_000, anchor: box('{{attachment:id}}') },
      { role: 'employee', type: 'signature', anchor: box('{{signature:employee}}', 25, 6) },
      { role: 'representative', type: 'signature', anchor: box('{{signature:ceo}}', 25, 6) },
      { role: 'employee', part: 1, type: 'checkbox', label: '개인정보 수집·이용 동의', anchor: box('{{checkbox:required}}', 3, 2) },
      { role: 'employee', part: 1, type: 'checkbox', label: '마케팅 SMS', group: 'marketing', max_checked: 2, anchor: box('{{checkbox:sms}}', 3, 2) },
      { role: 'employee', part: 1, type: 'checkbox', label: '마케팅 이메일', group: 'marketing', anchor: box('{{checkbox:email}}', 3, 2) },
      { role: 'employee', part: 1, type: 'signature', anchor: box('{{signature:employee2}}', 25, 6) },
    ],
  };
  const roles = {
    employee: { name: '김지원', phone: '010-1111-2222' },
    representative: { name: '홍대표', email: 'ceo@example.com' },
    // A cc needs no phone and no PIN.
    hr: { name: '인사팀', email: 'hr@example.com' },
  };
  const variables = { company: '주식회사 도장', employee_name: '김지원' };
  const send = (key: string, body: object) => t.http.post('/v1/signature_requests').set(bearer(org.test)).set('Idempotency-Key', key).send(body);

  it('a template holds parts and anchored fields; new parts are a new version; a missing anchor is refused when the template is saved', async () => {
    const tmpl = expectStatus(await c.post('/templates', TEMPLATE), 201).body;
    expect(tmpl).toMatchObject({ version: 1, variables: ['company', 'employee_name'], content: CONTRACT });
    expect(tmpl.parts.map((p: any) => [p.index, p.title, p.content])).toEqual([
      [0, null, CONTRACT],
      [1, '개인정보 수집·이용 동의서', CONSENT],
    ]);
    expect(tmpl.fields[8]).toMatchObject({ part: 1, type: 'checkbox', anchor: { text: '{{checkbox:required}}', occurrence: 1, width: 3, height: 2 } });
    // Anchors and coordinates are not both given; a field on a part the template lacks is named.
    expectError(await c.post('/templates', { ...TEMPLATE, fields: [{ ...TEMPLATE.fields[0], page: 1 }] }), 400, 'invalid_parameter', 'fields[0].page');
    expectError(await c.post('/templates', { ...TEMPLATE, fields: [{ ...TEMPLATE.fields[8], part: 2 }] }), 400, 'invalid_parameter', 'fields[0].part');
    expectError(await c.post('/templates', { ...TEMPLATE, content: CONTRACT }), 400, 'invalid_parameter', 'parts');

    // Parts changed: version 2, the document made from version 1 keeps its parts.
    const swapped = [{ content: CONTRACT }, { content: CONSENT.replace('<p>', '<p>(개정) ') }];
    const v2 = expectStatus(await c.patch(`/templates/${tmpl.id}`, { parts: swapped }), 200).body;
    expect(v2.version).toBe(2);
    expect(expectStatus(await c.patch(`/templates/${tmpl.id}`, { parts: swapped }), 200).body.version).toBe(2);
    // New parts that lose an anchor a field names: refused at save naming it (issue 32 item 2),
    // not by every send later; the template stays at version 2.
    const refused = expectError(await c.patch(`/templates/${tmpl.id}`, { parts: [{ content: CONTRACT }, { content: CONSENT.replace('{{checkbox:email}}', '') }] }), 400, 'anchor_not_found', 'fields[10].anchor');
    expect(String(refused.message)).toContain('{{checkbox:email}}');
    expect(expectStatus(await c.get(`/templates/${tmpl.id}`), 200).body.version).toBe(2);
  });

  it('is sent from the template, corrected, filled, signed, and shows every value everywhere', async () => {
    await createEndpoint(c, { url: receiver.url('/hook') });
    const tmpl = expectStatus(await c.post('/templates', TEMPLATE), 201).body;
    const doc = expectStatus(await send('ec-send', { template_id: tmpl.id, roles, variables }), 201).body;
    expect(doc).toMatchObject({ status: 'sent', from_template: tmpl.id, template_version: 1 });
    expect(doc.parts.map((p: any) => [p.index, p.first_page])).toEqual([
      [0, 1],
      [1, expect.any(Number)],
    ]);
    const [employee, ceo, hr] = doc.participants;
    expect([employee.auth, employee.email, ceo.signing_order, hr.role, hr.phone, hr.auth]).toEqual(['sms_pin', null, 2, 'cc', null, 'none']);
    // Every anchor was found in its part: consent boxes on part 1, the others on part 0.
    expect(doc.fields.map((f: any) => f.part)).toEqual([0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1]);
    const id = (label: string, option?: string) => doc.fields.find((f: any) => f.label === label && (option === undefined || f.option === option)).id as string;
    const field = (fid: string) => doc.fields.find((f: any) => f.id === fid);
    expect(field(id('주소'))).toMatchObject({ anchor: { text: '{{text:address}}' }, width: 60, height: 3 });

    // The phone was wrong: corrected after send; the old link is refused, the new one works.
    const fixed = expectStatus(await c.patch(`/documents/${doc.id}/participants/${employee.id}`, { phone: '010-3333-4444' }), 200).body;
    expect(fixed.phone).toBe('01033334444');
    expectApiError(await signer(t, tokenOf(employee.signing_url)).view(), 404, 'signing_link_replaced');
    const kim = signer(t, tokenOf(fixed.signing_url));
    expectStatus(await kim.pin(), 200);
    const pin = (await outboxOf(t, c, doc.id)).filter((m) => m.kind === 'pin').pop();
    expect(pin.to).toBe('01033334444');
    expectStatus(await kim.verify(pin.pin), 200);

    const png = solidPngBytes(60, 40, [10, 120, 200, 255]);
    const att = expectStatus(await t.http.post(`/v1/signing/${tokenOf(fixed.signing_url)}/attachments`).field('field_id', id('신분증 사본')).attach('file', png, '신분증.png'), 201).body;
    const values = {
      [id('주소')]: '서울특별시 중구 세종대로 110',
      [id('근무 시작일')]: '2027-01-04',
      [id('근무형태', '정규직')]: true,
      [id('부서')]: '개발팀',
      [id('신분증 사본')]: att.attachment_id,
      [id('개인정보 수집·이용 동의')]: true,
      [id('마케팅 이메일')]: true,
    };
    expectError(await kim.sign({ consent: true, signature: SIGNATURE, values: { ...values, [id('부서')]: '인사팀' } }), 400, 'field_value_invalid', `values.${id('부서')}`);
    expectStatus(await kim.sign({ consent: true, signature: SIGNATURE, values }), 200);
    // Two hours on, the PIN the employee signed with no longer opens the signed copy.
    t.clock!.advance(2 * 60 * 60 * 1000);
    const ceoToken = tokenOf(doc.participants[1].signing_url);
    expect(expectStatus(await signer(t, ceoToken).sign(), 200).body.document.status).toBe('completed');

    // form_data: every value by field id, with its label.
    const form = expectStatus(await c.get(`/documents/${doc.id}/form_data`), 200).body;
    expect(form).toMatchObject({ status: 'completed', complete: true });
    expect(form.values).toMatchObject({ [id('주소')]: '서울특별시 중구 세종대로 110', [id('근무 시작일')]: '2027-01-04', [id('부서')]: '개발팀', [id('개인정보 수집·이용 동의')]: true, [id('신분증 사본')]: att.attachment_id });
    expect(form.data.find((d: any) => d.field_id === id('근무 시작일'))).toMatchObject({ label: '근무 시작일', display_value: '2027년 1월 4일', participant_id: employee.id });

    // The webhooks carry them: the employee's signature its own, the completion all.
    const events = expectStatus(await c.get(`/events?document_id=${doc.id}&limit=100`), 200).body.data as any[];
    const signedEvent = events.find((x) => x.type === 'participant.signed' && x.data.participant_id === employee.id);
    expect(signedEvent.data.values).toContainEqual({ field_id: id('주소'), type: 'text', label: '주소', value: '서울특별시 중구 세종대로 110' });
    const completed = events.find((x) => x.type === 'document.completed');
    expect(completed.data.form_data).toContainEqual(expect.objectContaining({ participant_id: employee.id, field_id: id('부서'), label: '부서', value: '개발팀' }));
    await deliverNow(t);
    const delivered = receiver.hits.map((h) => JSON.parse(h.body));
    expect(delivered.find((x) => x.id === completed.id)).toEqual(completed);
    expect(delivered.find((x) => x.id === signedEvent.id)).toEqual(signedEvent);

    // The final PDF shows every value, the checkmark is drawn, the PAdES signature is valid.
    const download = (query = '') => t.http.get(`/v1/documents/${doc.id}/file${query}`).set(bearer(org.test)).buffer(true).parse(binary).expect(200);
    const final = (await download()).body as Buffer;
    const text = pdftotext(final);
    for (const shown of ['서울특별시 중구 세종대로 110', '2027년 1월 4일', '개발팀', '김지원', '개인정보 수집·이용 동의서']) expect(text).toContain(shown);
    expect(pdfsig(final)).toContain('Signature Validation: Signature is Valid.');
    // The attachment is on the annex after the contract's pages, by name, size and hash, not squeezed into its box.
    const annex = text.split('\f').filter((p) => p.trim()).pop() as string;
    expect(annex).toContain('입력값 부록');
    expect(annex).toMatch(/1\. 신분증 사본 — \d+쪽/);
    expect(annex).toContain('첨부 파일: 신분증.png');
    expect(annex).toContain(`크기: ${png.length.toLocaleString('en-US')} bytes`);
    expect(annex).toContain(`SHA-256: ${createHash('sha256').update(png).digest('hex')}`);
    const done = expectStatus(await c.get(`/documents/${doc.id}`), 200).body;
    // A field's page counts across the whole document, as the final PDF's pages do.
    const shown = (fid: string) => done.fields.find((f: any) => f.id === fid);
    expect(shown(id('개인정보 수집·이용 동의')).page).toBe(done.parts[1].first_page);
    const ink = (fid: string) => darkPixels(final, shown(fid));
    // The checked consent box has a tick; the unchecked SMS box only its frame; so for the radio.
    expect(ink(id('개인정보 수집·이용 동의'))).toBeGreaterThan(ink(id('마케팅 SMS')) * 1.3);
    expect(ink(id('근무형태', '정규직'))).toBeGreaterThan(ink(id('근무형태', '계약직')) * 1.3);

    // The audit certificate lists the values.
    const audited = pdftotext((await download('?audit=true')).body as Buffer);
    for (const shown of ['입력 값', '주소', '서울특별시 중구 세종대로 110', '근무 시작일', '2027년 1월 4일', '부서', '개발팀', '개인정보 수집·이용 동의', '신분증 사본']) expect(audited).toContain(shown);
    // By the document's one numbering: its pages, and the consent (part 1) on the page the API says.
    const consentPage = shown(id('개인정보 수집·이용 동의')).page;
    expect(consentPage).toBeGreaterThan(1);
    expect(audited.replace(/\s+/g, ' ')).toContain(`쪽수 ${done.page_count} Pages`);
    expect(audited).toContain(`${consentPage}쪽 / p. ${consentPage}`);

    // The phone-only employee's completion SMS (to the corrected phone) serves the signed PDF after a PIN.
    const sms = (await outboxOf(t, c, doc.id)).find((m) => m.kind === 'completed' && m.channel === 'sms');
    expect(sms.to).toBe('01033334444');
    const link = tokenOf(sms.signing_url);
    expectApiError(await t.http.get(`/v1/signing/${link}/completed.pdf`), 409, 'pin_verification_required');
    expectStatus(await signer(t, link).pin(), 200);
    const again = (await outboxOf(t, c, doc.id)).filter((m) => m.kind === 'pin').pop();
    expectStatus(await signer(t, link).verify(again.pin), 200);
    const copy = await t.http.get(`/v1/signing/${link}/completed.pdf`).buffer(true).parse(binary);
    expectStatus(copy, 200);
    expect(Buffer.compare(copy.body as Buffer, final)).toBe(0);
  });
});

/** Dark pixels inside a field's box on a page rendered at 72 dpi. */
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
