import { pdffonts, pdfinfo, pdftotext } from '@dojang/pdf/testing/poppler';
import { addParticipant, client, Client, expectError, expectStatus, field } from '../support/api-helpers';
import { bearer, startTestApp, TestApp, TestOrg } from '../support/test-app';
import { binary, pdfFixture, sha256, uploadFixture } from '../files/file-helpers';

const TITLE = '표준 근로계약서';
const BODY = '<h2>제1조 (목적)</h2><p>갑과 을은 성실하게 이 계약을 이행한다.</p><p>임금은 매월 25일에 지급한다.</p>';

describe('GET /v1/documents/{id}/file before completion', () => {
  let t: TestApp;
  let org: TestOrg;
  let c: Client;
  const download = (id: string, query = '') => t.http.get(`/v1/documents/${id}/file${query}`).set(bearer(org.test)).buffer(true).parse(binary);

  beforeAll(async () => {
    t = await startTestApp();
    org = await t.createOrg();
    c = client(t, org.test);
  });
  afterAll(() => t.close());

  it('returns an uploaded draft exactly as uploaded, and the same bytes once sent', async () => {
    const original = pdfFixture('chromium-korean-contract-a4.pdf');
    const file = await uploadFixture(t, org.test, 'chromium-korean-contract-a4.pdf');
    const doc = expectStatus(await c.post('/documents', { title: TITLE, file_url: file.url }), 201).body;
    const draft = await download(doc.id).expect(200);
    expect(draft.headers['content-type']).toBe('application/pdf');
    expect(sha256(draft.body)).toBe(sha256(original));
    expect(draft.body.length).toBe(original.length);

    const p = await addParticipant(c, doc.id, { auth: 'none', phone: undefined });
    expectStatus(await c.put(`/documents/${doc.id}/fields`, { fields: [field(p.id, { page: 3 })] }), 200);
    expectStatus(await c.post(`/documents/${doc.id}/send`, {}), 200);
    const sent = await download(doc.id).expect(200);
    expect(sha256(sent.body)).toBe(sha256(original));
  });

  it('renders an HTML draft from title and body, with the Korean font embedded as a subset', async () => {
    const doc = expectStatus(await c.post('/documents', { title: TITLE, content: BODY }), 201).body;
    const res = await download(doc.id).expect(200);
    expect(res.headers['content-type']).toBe('application/pdf');
    expect(res.body.subarray(0, 5).toString('latin1')).toBe('%PDF-');
    const text = pdftotext(res.body);
    expect(text).toContain(TITLE);
    expect(text).toContain('제1조 (목적)');
    expect(text).toContain('갑과 을은 성실하게 이 계약을 이행한다.');
    expect(text).toContain('임금은 매월 25일에 지급한다.');
    const fonts = pdffonts(res.body);
    // Every font is embedded; the Korean one as a subset (ABCDEF+ prefix, emb yes, sub yes).
    expect(fonts).toMatch(/^[A-Z]{6}\+NotoSansKR-\S+\s+CID TrueType\s+Identity-H\s+yes\s+yes\s+yes/m);
    for (const line of fonts.split('\n').slice(2).filter(Boolean)) expect(line).toMatch(/\s+yes\s+(yes|no)\s+(yes|no)\s+\d+\s+\d+\s*$/);
    // Rendering is deterministic for the same draft: downloading twice gives the same bytes.
    expect(sha256((await download(doc.id).expect(200)).body)).toBe(sha256(res.body));
  });

  it('names the download after the title, RFC 5987-encoded for Hangul', async () => {
    const doc = expectStatus(await c.post('/documents', { title: '근로계약서', content: BODY }), 201).body;
    const res = await download(doc.id).expect(200);
    expect(res.headers['content-disposition']).toBe(`attachment; filename="document.pdf"; filename*=UTF-8''%EA%B7%BC%EB%A1%9C%EA%B3%84%EC%95%BD%EC%84%9C.pdf`);
    const mixed = expectStatus(await c.post('/documents', { title: 'NDA 비밀유지계약 (2026)', content: BODY }), 201).body;
    const header = (await download(mixed.id).expect(200)).headers['content-disposition'];
    expect(header).toBe(`attachment; filename="NDA _ (2026).pdf"; filename*=UTF-8''NDA%20${encodeURIComponent('비밀유지계약')}%20%282026%29.pdf`);
  });

  it('refuses a field past the last page of an uploaded PDF, naming the page', async () => {
    const file = await uploadFixture(t, org.test, 'chromium-korean-contract-a4.pdf');
    const doc = expectStatus(await c.post('/documents', { title: TITLE, file_url: file.url }), 201).body;
    const p = await addParticipant(c, doc.id, { auth: 'none', phone: undefined });
    const err = expectError(await c.put(`/documents/${doc.id}/fields`, { fields: [field(p.id, { page: 3 }), field(p.id, { page: 4 })] }), 400, 'field_page_out_of_range', 'fields[1].page');
    expect(err.message).toMatch(/page is 4 but the document has 3 pages/);
    // Page 3 alone is fine and the document sends.
    expectStatus(await c.put(`/documents/${doc.id}/fields`, { fields: [field(p.id, { page: 3 })] }), 200);
    expectStatus(await c.post(`/documents/${doc.id}/send`, {}), 200);
  });

  it('checks fields of an HTML draft against the page count of its render at PUT /fields, and again at send', async () => {
    const doc = expectStatus(await c.post('/documents', { title: TITLE, content: BODY }), 201).body;
    const pages = Number(/Pages:\s+(\d+)/.exec(pdfinfo((await download(doc.id).expect(200)).body))?.[1]);
    expect(pages).toBe(1);
    const p = await addParticipant(c, doc.id, { auth: 'none', phone: undefined });
    // The page count is known as soon as the draft is rendered: a page past the last is refused
    // when the field is placed, naming it, not only at send.
    const placed = expectError(await c.put(`/documents/${doc.id}/fields`, { fields: [field(p.id), field(p.id, { page: 4 })] }), 400, 'field_page_out_of_range', 'fields[1].page');
    expect(placed.message).toBe('fields[1].page is 4 but the document has 1 page: place it on a page from 1 to 1.');
    expect((await c.get(`/documents/${doc.id}`)).body.fields).toEqual([]);
    // A body that shrinks after the fields were placed is caught at send, with its own code.
    expectStatus(await c.put(`/documents/${doc.id}/fields`, { fields: [field(p.id)] }), 200);
    const long = `<p>${'가나다라마바사 '.repeat(900)}</p>`;
    expectStatus(await c.patch(`/documents/${doc.id}`, { content: long }), 200);
    expectStatus(await c.put(`/documents/${doc.id}/fields`, { fields: [field(p.id), field(p.id, { page: 2 })] }), 200);
    expectStatus(await c.patch(`/documents/${doc.id}`, { content: BODY }), 200);
    const err = expectError(await c.post(`/documents/${doc.id}/send`, {}), 400, 'field_page_out_of_range');
    expect(err.type).toBe('invalid_request_error');
    expect(err.message).toMatch(/fields\[1\] is on page 2 but the document has 1 page: move it with PUT \/v1\/documents\/\{id\}\/fields/);
    expect((await c.get(`/documents/${doc.id}`)).body.status).toBe('draft');
  });

  it('prints the title as a heading unless the document is created with show_title: false', async () => {
    const titled = expectStatus(await c.post('/documents', { title: '제목이 있는 계약서', content: BODY }), 201).body;
    expect(titled.show_title).toBe(true);
    const bare = expectStatus(await c.post('/documents', { title: '제목이 없는 계약서', content: BODY, show_title: false }), 201).body;
    expect(bare.show_title).toBe(false);
    const titledText = pdftotext((await download(titled.id).expect(200)).body);
    const bareText = pdftotext((await download(bare.id).expect(200)).body);
    expect(titledText).toContain('제목이 있는 계약서');
    expect(bareText).not.toContain('제목이 없는 계약서');
    expect(bareText).toContain('갑과 을은 성실하게 이 계약을 이행한다.');
    // The body moves up by the heading: its first line sits higher on the page without it.
    const top = (text: string) => text.split('\n').findIndex((l) => l.includes('제1조'));
    expect(top(pdftotext((await download(bare.id).expect(200)).body, true))).toBeLessThan(top(pdftotext((await download(titled.id).expect(200)).body, true)));
    // A duplicate keeps it; an uploaded PDF has no heading to leave out.
    expect(expectStatus(await c.post(`/documents/${bare.id}/duplicate`), 201).body.show_title).toBe(false);
    const file = await uploadFixture(t, org.test, 'chromium-korean-contract-a4.pdf');
    expectError(await c.post('/documents', { title: TITLE, file_url: file.url, show_title: false }), 400, 'invalid_parameter', 'show_title');
  });

  it('refuses audit values other than true and false', async () => {
    const doc = expectStatus(await c.post('/documents', { title: TITLE, content: BODY }), 201).body;
    expectError(await t.http.get(`/v1/documents/${doc.id}/file?audit=yes`).set(bearer(org.test)), 400, 'invalid_parameter', 'audit');
  });

  it('is scoped to the organization', async () => {
    const doc = expectStatus(await c.post('/documents', { title: TITLE, content: BODY }), 201).body;
    const other = await t.createOrg('Other Corp');
    expectError(await t.http.get(`/v1/documents/${doc.id}/file`).set(bearer(other.test)), 404, 'document_not_found');
  });
});
