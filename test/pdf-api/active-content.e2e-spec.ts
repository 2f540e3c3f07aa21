import { ACTIVE_KEYS, ACTIVE_VALUES, activeContentPdf, qpdfNames } from '@dojang/pdf/testing/active-content';
import { pdftotext } from '@dojang/pdf/testing/poppler';
import { addParticipant, client, Client, expectStatus, field } from '../support/api-helpers';
import { SIGNATURE } from '../support/lifecycle';
import { bearer, startTestApp, TestApp, TestOrg } from '../support/test-app';
import { binary, sha256, uploadFile } from '../files/file-helpers';

/** An upload with scripts, launch actions, open/page actions and embedded files: signers never get them. */
describe('a PDF uploaded with active content', () => {
  let t: TestApp;
  let org: TestOrg;
  let c: Client;
  let upload: Buffer;
  let docId: string;
  let token: string;
  const get = (url: string, auth = true) => {
    const req = t.http.get(url);
    return (auth ? req.set(bearer(org.test)) : req).buffer(true).parse(binary).expect(200);
  };

  function expectInert(pdf: Buffer) {
    const { keys, values } = qpdfNames(pdf);
    for (const key of ACTIVE_KEYS) expect(keys).not.toContain(key);
    for (const value of ACTIVE_VALUES) expect(values).not.toContain(value);
    // The plain link is kept.
    expect(keys).toContain('/URI');
    expect(pdftotext(pdf)).toContain('Active content fixture');
  }

  beforeAll(async () => {
    t = await startTestApp();
    org = await t.createOrg();
    c = client(t, org.test);
    upload = await activeContentPdf();
    const file = expectStatus(await uploadFile(t, org.test, upload, { filename: 'active.pdf' }), 201).body;
    const doc = expectStatus(await c.post('/documents', { title: '능동 콘텐츠 계약서', file_url: file.url }), 201).body;
    docId = doc.id;
    const p = await addParticipant(c, docId, { auth: 'none', phone: undefined });
    expectStatus(await c.put(`/documents/${docId}/fields`, { fields: [field(p.id)] }), 200);
    const sent = expectStatus(await c.post(`/documents/${docId}/send`, {}), 200).body;
    token = String(sent.participants[0].signing_url).split('/sign/')[1];
  });
  afterAll(() => t.close());

  it('the fixture really carries each kind', () => {
    const { keys, values } = qpdfNames(upload);
    for (const key of ACTIVE_KEYS) expect(keys).toContain(key);
    for (const value of ACTIVE_VALUES) expect(values).toContain(value);
  });

  it('is stored and served to the owner and the signer without any of it', async () => {
    const owner = (await get(`/v1/documents/${docId}/file`)).body;
    expect(sha256(owner)).not.toBe(sha256(upload));
    expectInert(owner);
    const signer = (await get(`/v1/signing/${token}/file`, false)).body;
    expect(sha256(signer)).toBe(sha256(owner));
  });

  it('leaves none of it in the signed final PDF', async () => {
    expectStatus(await t.http.get(`/v1/signing/${token}`), 200);
    expectStatus(await t.http.post(`/v1/signing/${token}/sign`).send({ consent: true, signature: SIGNATURE }), 200);
    expect((await c.get(`/documents/${docId}`)).body.status).toBe('completed');
    expectInert((await get(`/v1/documents/${docId}/file`)).body);
    expectInert((await get(`/v1/documents/${docId}/file?audit=true`)).body);
  });
});
