import { runPdfWorkOnThisThread } from '@dojang/pdf';
import { findTextAnchors } from '@dojang/pdf/rendering';
import { pdfinfo, pdfsig, pdftotext } from '@dojang/pdf/testing/poppler';
import { Client, client, expectError, expectStatus } from '../support/api-helpers';
import { SIGNATURE, signer, tokenOf } from '../support/lifecycle';
import { bearer, startTestApp, TestApp } from '../support/test-app';
import { binary, pdfFixture, uploadFixture } from '../files/file-helpers';

/**
 * A 근로계약서 of two parts (HTML written with field placeholders + an uploaded PDF placed by its
 * "(인)"), signed by two participants through the API: one final PDF holding both parts, signed
 * (PAdES) as a whole (issue 21 items 4 and 5).
 */
describe('a document of two parts with anchored fields', () => {
  let t: TestApp;
  let c: Client;
  let key: string;

  const HTML =
    '<h2>근로조건 확인서</h2><p>근로자는 아래 주소로 서류를 받는다.</p>' +
    '<p>주소: {{text:address}}</p><p>근로자 서명: {{signature:employee}}</p>';

  beforeAll(async () => {
    t = await startTestApp();
    key = (await t.createOrg('주식회사 도장')).test;
    c = client(t, key);
  });
  afterAll(() => t.close());

  // One document through its life; each step is a test of its own (and has its own time budget).
  let doc: any;
  let hong: string;
  let ceo: string;
  let placed: any[];
  let htmlPages: number;
  let links: Record<string, string>;

  it('is created with two parts: an HTML body and an uploaded PDF', async () => {
    const upload = await uploadFixture(t, key, 'chromium-korean-contract-a4.pdf');
    doc = expectStatus(
      await c.post('/documents', { title: '근로계약서 묶음', parts: [{ content: HTML }, { title: '표준 근로계약서', file_url: upload.url }] }),
      201,
    ).body;
    expect(doc.parts).toEqual([
      { index: 0, title: null, content_format: 'html', content: HTML, file: null, first_page: 1, page_count: null },
      { index: 1, title: '표준 근로계약서', content_format: 'pdf', content: null, file: expect.objectContaining({ id: upload.id, page_count: 3 }), first_page: null, page_count: 3 },
    ]);
    expect(doc.content).toBe(HTML);

    const people = expectStatus(
      await c.post(`/documents/${doc.id}/participants/batch`, {
        participants: [
          { name: '홍길동', auth: 'none', email: 'hong@example.com' },
          { name: '대표 김도장', auth: 'none', email: 'ceo@example.com', signing_order: 2 },
        ],
      }),
      201,
    ).body.data;
    [hong, ceo] = people.map((p: any) => p.id);
  });

  const anchored = (over: Record<string, unknown>) => ({ participant_id: hong, type: 'signature', anchor: { text: '{{signature:employee}}', width: 25, height: 6 }, ...over });

  it('refuses anchors that are not there, parts it does not have and pages past a part, naming the field', async () => {
    expectError(await c.put(`/documents/${doc.id}/fields`, { fields: [anchored({}), anchored({ anchor: { text: '(갑)' }, part: 1 })] }), 400, 'anchor_not_found', 'fields[1].anchor');
    expectError(await c.put(`/documents/${doc.id}/fields`, { fields: [anchored({ anchor: { text: '{{seal:nobody}}' } })] }), 400, 'anchor_not_found', 'fields[0].anchor');
    expectError(await c.put(`/documents/${doc.id}/fields`, { fields: [anchored({ part: 2 })] }), 400, 'invalid_parameter', 'fields[0].part');
    expectError(await c.put(`/documents/${doc.id}/fields`, { fields: [anchored({ x: 10 })] }), 400, 'invalid_parameter', 'fields[0].x');
    expectError(await c.put(`/documents/${doc.id}/fields`, { fields: [anchored({ anchor: { text: '(인)', offset_x: 90, width: 20, height: 5 }, part: 1 })] }), 400, 'anchor_out_of_page', 'fields[0].anchor');
    // Pages count across the whole document (1 HTML page + the PDF's 3): page 99 is past its last,
    // and page 1 is part 0's, not part 1's.
    const coords = { participant_id: ceo, type: 'signature', x: 10, y: 10, width: 20, height: 5 };
    const past = expectError(await c.put(`/documents/${doc.id}/fields`, { fields: [{ ...coords, page: 99 }] }), 400, 'field_page_out_of_range', 'fields[0].page');
    expect(past.message).toContain('the document has 4 pages');
    const elsewhere = expectError(await c.put(`/documents/${doc.id}/fields`, { fields: [{ ...coords, part: 1, page: 1 }] }), 400, 'field_page_out_of_range', 'fields[0].page');
    expect(elsewhere.message).toContain('part 1 is pages 2 to 4');
    expect(expectStatus(await c.get(`/documents/${doc.id}`), 200).body.fields).toEqual([]);
  });

  it('places fields by placeholder and by PDF text, showing where they resolved', async () => {
    placed = expectStatus(
      await c.put(`/documents/${doc.id}/fields`, {
        fields: [
          anchored({}),
          { participant_id: hong, type: 'text', label: '주소', anchor: { text: '{{text:address}}', offset_y: -0.3, width: 50, height: 2.5 } },
          { participant_id: ceo, type: 'signature', part: 1, anchor: { text: '(인)', offset_x: -2, offset_y: -2.5, width: 12, height: 6 } },
        ],
      }),
      200,
    ).body.data;
    expect(placed[0]).toMatchObject({ part: 0, page: 1, width: 25, height: 6, anchor: { text: '{{signature:employee}}', occurrence: 1, offset_x: 0, offset_y: 0, width: 25, height: 6 } });
    expect(placed[1]).toMatchObject({ part: 0, page: 1, anchor: { text: '{{text:address}}' } });
    // The address line comes before the signature line.
    expect(placed[1].y).toBeLessThan(placed[0].y);
    // "(인)" is on page 3 of the uploaded contract, which is page 4 of the document (after the
    // HTML part's one page): pages count across the whole document, as the footers do.
    const [inPart] = await runPdfWorkOnThisThread(() => findTextAnchors(pdfFixture('chromium-korean-contract-a4.pdf'), [{ text: '(인)', occurrence: 1 }]));
    expect(inPart.box!.page).toBe(3);
    expect(placed[2]).toMatchObject({ part: 1, page: 4, x: Math.round((inPart.box!.x - 2) * 1000) / 1000, width: 12, height: 6 });
    // The draft already shows where each part starts (its renders are made).
    const draft = expectStatus(await c.get(`/documents/${doc.id}`), 200).body;
    expect(draft.parts.map((p: any) => [p.first_page, p.page_count])).toEqual([
      [1, 1],
      [2, 3],
    ]);
    expect(draft.fields.map((f: any) => [f.part, f.page])).toEqual([
      [0, 1],
      [0, 1],
      [1, 4],
    ]);

  });

  it('is duplicated with its parts and anchored fields', async () => {
    // A duplicate carries every part, and its fields keep their parts and anchors.
    const copy = expectStatus(await c.post(`/documents/${doc.id}/duplicate`), 201).body;
    expect(copy.parts.map((p: any) => [p.title, p.content_format])).toEqual([
      [null, 'html'],
      ['표준 근로계약서', 'pdf'],
    ]);
    expect(copy.fields.map((f: any) => [f.part, f.page, f.anchor?.text])).toEqual(placed.map((f: any) => [f.part, f.page, f.anchor?.text]));
  });

  it('is sent as the parts joined, recording where each starts', async () => {
    // The draft's PDF is already the parts joined (what the fields' pages are counted in).
    const draftPdf = (await t.http.get(`/v1/documents/${doc.id}/file`).set(bearer(key)).buffer(true).parse(binary).expect(200)).body as Buffer;
    const sent = expectStatus(await c.post(`/documents/${doc.id}/send`, {}), 200).body;
    expect(pdfinfo(draftPdf)).toMatch(new RegExp(`Pages:\\s+${sent.page_count}\\b`));
    htmlPages = sent.page_count - 3;
    expect(htmlPages).toBeGreaterThanOrEqual(1);
    expect(sent.parts.map((p: any) => [p.first_page, p.page_count])).toEqual([
      [1, htmlPages],
      [htmlPages + 1, 3],
    ]);
    links = Object.fromEntries(sent.participants.map((p: any) => [p.name, tokenOf(p.signing_url)]));
  });

  it('is signed by both through the API: one final PDF of both parts, one valid signature', async () => {
    const employee = signer(t, links['홍길동']);
    const session = expectStatus(await employee.view(), 200).body;
    expect(session.document.parts).toEqual([
      { index: 0, title: null, first_page: 1, page_count: htmlPages },
      { index: 1, title: '표준 근로계약서', first_page: htmlPages + 1, page_count: 3 },
    ]);
    expect(session.fields.map((f: any) => [f.type, f.part, f.page])).toEqual([
      ['signature', 0, 1],
      ['text', 0, 1],
    ]);
    // The session and the document API number pages alike: the representative's "(인)" is page 4 in both.
    const api = expectStatus(await c.get(`/documents/${doc.id}`), 200).body;
    expect(session.other_fields.map((f: any) => f.page)).toEqual([htmlPages + 3]);
    expect(api.fields.map((f: any) => f.page)).toEqual([...session.fields.map((f: any) => f.page), htmlPages + 3]);
    const address = session.fields.find((f: any) => f.type === 'text').id;
    expectStatus(await employee.sign({ consent: true, signature: SIGNATURE, values: { [address]: '서울특별시 마포구 월드컵북로 400' } }), 200);
    const done = expectStatus(await signer(t, links['대표 김도장']).sign({ consent: true, signature: SIGNATURE }), 200).body;
    expect(done.document.status).toBe('completed');

    const final = (await t.http.get(`/v1/documents/${doc.id}/file`).set(bearer(key)).buffer(true).parse(binary).expect(200)).body as Buffer;
    expect(pdfinfo(final)).toMatch(new RegExp(`Pages:\\s+${htmlPages + 3}\\b`));
    const text = pdftotext(final);
    // Both parts, in order, and the employee's value; no placeholder left.
    expect(text).toContain('근로조건 확인서');
    expect(text).toContain('서울특별시 마포구 월드컵북로 400');
    expect(text).toContain('표준 근로계약서');
    expect(text.indexOf('근로조건 확인서')).toBeLessThan(text.indexOf('표준 근로계약서'));
    expect(text).not.toContain('{{');
    // The address is drawn on the page of its part, at its anchor.
    const pages = text.split('\f');
    expect(pages[0]).toContain('서울특별시 마포구');
    // One signature over the whole file, valid.
    const report = pdfsig(final);
    expect(report).toContain('Signature is Valid');
    expect(report).toContain('Total document signed');
  });

  it('numbers the pages of the joined PDF across the whole document, every part counted once', async () => {
    // A body, an uploaded PDF of 3 pages (printed as it is, but counted) and another body: the
    // last body's footer is page 5 of 5, not 1 of 1 as a part rendered alone would say.
    const upload = await uploadFixture(t, key, 'chromium-korean-contract-a4.pdf');
    const three = expectStatus(
      await c.post('/documents', {
        title: '입사 서류',
        parts: [{ content: '<p>근로계약서 본문</p>' }, { file_url: upload.url }, { title: '개인정보 수집·이용 동의서', content: '<p>수집 항목: 성명, 연락처</p>' }],
      }),
      201,
    ).body;
    const pdf = (await t.http.get(`/v1/documents/${three.id}/file`).set(bearer(key)).buffer(true).parse(binary).expect(200)).body as Buffer;
    const pages = pdftotext(pdf).split('\f').slice(0, 5);
    // A footer is the page's last line: "n / N" (pdftotext may drop the spaces).
    const footer = (page: string) => (page.trim().split('\n').pop() ?? '').replace(/[^\d/]/g, '');
    expect(pages[4]).toContain('개인정보 수집·이용 동의서');
    expect([footer(pages[0]), footer(pages[4])]).toEqual(['1/5', '5/5']);
  });

  it('numbers a template\'s pages the same way, and a document made from it keeps them', async () => {
    // Two one-page bodies: page 2 of the template is part 1's first page.
    const template = {
      name: '입사 서류',
      parts: [{ content: '<p>근로계약서 본문</p>' }, { title: '개인정보 수집·이용 동의서', content: '<p>수집 항목: 성명, 연락처</p>' }],
      roles: [{ role: '직원', auth: 'none' }],
      fields: [{ role: '직원', type: 'signature', page: 2, x: 60, y: 40, width: 25, height: 6 }],
    };
    const past = expectError(await c.post('/templates', { ...template, fields: [{ ...template.fields[0], page: 3 }] }), 400, 'field_page_out_of_range', 'fields[0].page');
    expect(past.message).toContain('the document has 2 pages');
    expectError(await c.post('/templates', { ...template, fields: [{ ...template.fields[0], part: 0 }] }), 400, 'field_page_out_of_range', 'fields[0].page');
    const tmpl = expectStatus(await c.post('/templates', template), 201).body;
    expect(tmpl.fields.map((f: any) => [f.part, f.page])).toEqual([[1, 2]]);
    const sent = expectStatus(
      await t.http.post('/v1/signature_requests').set(bearer(key)).set('Idempotency-Key', 'pages-from-template').send({ template_id: tmpl.id, roles: { 직원: { name: '홍길동', email: 'hong@example.com' } } }),
      201,
    ).body;
    expect(sent.parts.map((p: any) => p.first_page)).toEqual([1, 2]);
    expect(sent.fields.map((f: any) => [f.part, f.page])).toEqual([[1, 2]]);
    const session = expectStatus(await signer(t, tokenOf(sent.participants[0].signing_url)).view(), 200).body;
    expect(session.fields.map((f: any) => f.page)).toEqual([2]);
  });
});
