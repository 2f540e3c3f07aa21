import { createHash } from 'crypto';
import { pdftotext } from '@dojang/pdf/testing/poppler';
import { API_TEST_OPTIONS, client, Client, expectError, expectStatus } from '../support/api-helpers';
import { sentWith, signer, SIGNATURE } from '../support/lifecycle';
import { bearer, startTestApp, TestApp } from '../support/test-app';
import { binary, uploadFixture } from '../files/file-helpers';

const sha = (b: Buffer) => createHash('sha256').update(b).digest('hex');
const bytesOf = (dataUrl: string) => Buffer.from(dataUrl.split(',')[1], 'base64');

/**
 * The signer's seal and reading view through the API (embedded store: nothing here depends on
 * the store): a seal made from the name on the server, stamped only as the server made it and
 * recorded with where it came from; the organization's seals a signer may choose; the contract
 * body as sanitized HTML.
 */
describe('signing: seals made from the name, organization seals, the reading view', () => {
  let t: TestApp;
  let c: Client;
  let key: string;
  beforeAll(async () => {
    t = await startTestApp(API_TEST_OPTIONS);
    key = (await t.createOrg('주식회사 도장')).test;
    c = client(t, key);
  });
  afterAll(async () => t?.close());

  const historyOf = async (id: string) => {
    await t.infra.runner.catchUp();
    return expectStatus(await c.get(`/documents/${id}/history`), 200).body.data as any[];
  };

  it('makes a seal from the name, refuses text a seal cannot carry, and stamps only its own rendering, recorded as made with its hash', async () => {
    const d = await sentWith(c, [{ name: '곽뙇희', fields: [{ type: 'seal' }] }]);
    const base = `/v1/signing/${d.p['곽뙇희'].token}`;
    const preview = (body: Record<string, unknown>) => t.http.post(`${base}/seal_preview`).send(body);

    const made = expectStatus(await preview({ shape: 'round' }), 200).body;
    expect(made).toMatchObject({ object: 'seal_preview', shape: 'round', text: '곽뙇희' });
    expect(made.image).toMatch(/^data:image\/png;base64,/);
    const png = bytesOf(made.image);
    expect(png.subarray(1, 4).toString('latin1')).toBe('PNG');
    expect(made.sha256).toBe(sha(png));
    expect(expectStatus(await preview({ shape: 'square', text: ' 홍길동 ' }), 200).body).toMatchObject({ text: '홍길동' });

    for (const text of ['가'.repeat(60), '김😀', '김\u202E민', '   ']) {
      const err = expectError(await preview({ shape: 'round', text }), 400, 'seal_text_invalid', 'text');
      expect(err.message).toMatch(/Hangul, Hanja, Latin letters, digits/);
    }
    expectError(await preview({ shape: 'oval' }), 400, 'invalid_parameter', 'shape');

    // Only the server's own rendering of that shape and text is stamped as "made".
    const sign = (body: Record<string, unknown>) => t.http.post(`${base}/sign`).send({ consent: true, ...body });
    expectError(await sign({ seal_source: 'made', seal_shape: 'round', seal_image: SIGNATURE }), 400, 'seal_image_mismatch', 'seal_image');
    expectError(await sign({ seal_source: 'made', seal_shape: 'square', seal_image: made.image }), 400, 'seal_image_mismatch', 'seal_image');
    expectError(await sign({ seal_source: 'made', seal_shape: 'round', seal_text: '😀', seal_image: made.image }), 400, 'seal_text_invalid', 'seal_text');
    expectError(await sign({ seal_source: 'made', seal_image: made.image }), 400, 'missing_parameter', 'seal_shape');
    expectError(await sign({ seal_source: 'organization', seal_image: made.image }), 400, 'missing_parameter', 'seal_id');
    expectError(await sign({ seal_shape: 'round', seal_image: made.image }), 400, 'invalid_parameter', 'seal_shape');
    expect((await historyOf(d.id)).map((e) => e.type)).not.toContain('ParticipantSigned');

    expectStatus(await sign({ seal_source: 'made', seal_shape: 'round', seal_image: made.image }), 200);
    const signed = (await historyOf(d.id)).find((e) => e.type === 'ParticipantSigned');
    expect(signed.data.seal).toEqual({ seal_id: null, image: { sha256: made.sha256, byte_size: png.length }, source: 'made' });
    // The audit certificate says where the seal came from, with its hash.
    const pdf = await t.http.get(`/v1/documents/${d.id}/file?audit=true`).set(bearer(key)).buffer(true).parse(binary);
    const text = pdftotext(pdf.body as Buffer).replace(/\s+/g, '');
    expect(text).toContain('이름으로만든도장/madefromthename');
    expect(text).toContain(made.sha256);
  });

  it('lists the organization\'s unrestricted seals to a representative whose seal field takes them, serves their images, and records organization as the source', async () => {
    const open = expectStatus(await c.post('/seals', { source: 'generated', company_name: '주식회사 도장' }), 201).body;
    const restricted = expectStatus(await c.post('/seals', { source: 'generated', company_name: '사용인감', restricted: true }), 201).body;
    await t.infra.runner.catchUp();
    const d = await sentWith(c, [
      { name: '대표', representative: true, fields: [{ type: 'seal' }] },
      { name: '근로자', fields: [{ type: 'seal', upload_only: true }] },
      { name: '검토자', fields: [{ type: 'signature' }] },
    ]);
    expect(d.doc.participants.map((x: any) => [x.name, x.representative])).toEqual([['대표', true], ['근로자', false], ['검토자', false]]);
    const session = expectStatus(await signer(t, d.p['대표'].token).view(), 200).body;
    expect(session.organization_seals).toEqual([{ id: open.id, name: open.name, image_url: `/v1/signing/${d.p['대표'].token}/seals/${open.id}/image` }]);
    const image = await t.http.get(session.organization_seals[0].image_url).buffer(true).parse(binary);
    expect(image.status).toBe(200);
    expect(image.headers['content-type']).toBe('image/png');
    expectError(await t.http.get(`/v1/signing/${d.p['대표'].token}/seals/${restricted.id}/image`), 404, 'seal_not_found');
    expect(expectStatus(await signer(t, d.p['근로자'].token).view(), 200).body.organization_seals).toEqual([]);
    expect(expectStatus(await signer(t, d.p['검토자'].token).view(), 200).body.organization_seals).toEqual([]);
    expectError(await t.http.get(`/v1/signing/${d.p['근로자'].token}/seals/${open.id}/image`), 404, 'seal_not_found');

    expectStatus(await t.http.post(`/v1/signing/${d.p['대표'].token}/sign`).send({ consent: true, seal_source: 'organization', seal_id: open.id }), 200);
    const signed = (await historyOf(d.id)).find((e) => e.type === 'ParticipantSigned');
    expect(signed.data.seal).toMatchObject({ seal_id: open.id, source: 'organization' });
    expect(expectStatus(await signer(t, d.p['대표'].token).view(), 200).body.organization_seals).toEqual([]);
  });

  it('offers and stamps the organization\'s seals only for a representative: anyone else sees none and is refused seal_representative_only', async () => {
    const open = expectStatus(await c.post('/seals', { source: 'generated', company_name: '주식회사 도장' }), 201).body;
    await t.infra.runner.catchUp();
    // Both seal fields take any seal; only the representative flag tells them apart.
    const d = await sentWith(c, [
      { name: '대표이사', representative: true, fields: [{ type: 'seal' }] },
      { name: '직원', fields: [{ type: 'seal' }] },
    ]);
    const employee = d.p['직원'].token;
    expect(expectStatus(await signer(t, employee).view(), 200).body.organization_seals).toEqual([]);
    expectError(await t.http.get(`/v1/signing/${employee}/seals/${open.id}/image`), 404, 'seal_not_found');
    for (const body of [{ seal_source: 'organization', seal_id: open.id }, { seal_id: open.id }]) {
      const err = expectError(await t.http.post(`/v1/signing/${employee}/sign`).send({ consent: true, ...body }), 400, 'seal_representative_only', 'seal_id');
      expect(err.message).toMatch(/representative/);
    }
    expect((await historyOf(d.id)).map((e) => e.type)).not.toContain('ParticipantSigned');
    // The same signer stamps a seal of their own.
    expectStatus(await t.http.post(`/v1/signing/${employee}/sign`).send({ consent: true, seal_source: 'drawn', seal_image: SIGNATURE }), 200);

    const rep = d.p['대표이사'].token;
    expect(expectStatus(await signer(t, rep).view(), 200).body.organization_seals.map((s: any) => s.id)).toContain(open.id);
    expectStatus(await t.http.post(`/v1/signing/${rep}/sign`).send({ consent: true, seal_source: 'organization', seal_id: open.id }), 200);
    const stamped = (await historyOf(d.id)).filter((e) => e.type === 'ParticipantSigned').map((e) => e.data.seal);
    expect(stamped).toEqual([expect.objectContaining({ seal_id: null, source: 'drawn' }), expect.objectContaining({ seal_id: open.id, source: 'organization' })]);
  });

  it('a template role marked representative makes its signer representative in a signature request: offered the organization\'s seals, the other role not', async () => {
    const open = expectStatus(await c.post('/seals', { source: 'generated', company_name: '주식회사 도장' }), 201).body;
    await t.infra.runner.catchUp();
    const tmpl = expectStatus(
      await c.post('/templates', {
        name: '근로계약서',
        content: '<p>근로계약서</p>',
        roles: [
          { role: '대표', auth: 'none', representative: true },
          { role: '직원', auth: 'none' },
        ],
        fields: [
          { role: '대표', type: 'seal', page: 1, x: 60, y: 80, width: 15, height: 10 },
          { role: '직원', type: 'seal', page: 1, x: 10, y: 80, width: 15, height: 10 },
        ],
      }),
      201,
    ).body;
    expect(tmpl.roles.map((r: any) => [r.role, r.representative])).toEqual([['대표', true], ['직원', false]]);
    const req = expectStatus(
      await t.http
        .post('/v1/signature_requests')
        .set(bearer(key))
        .set('Idempotency-Key', 'representative-role')
        .send({ template_id: tmpl.id, roles: { 대표: { name: '홍대표', email: 'ceo@example.com' }, 직원: { name: '김직원', email: 'kim@example.com' } } }),
      201,
    ).body;
    const byId = new Map<string, any>(req.participants.map((p: any) => [p.id, p]));
    const rep = byId.get(req.roles['대표']);
    const employee = byId.get(req.roles['직원']);
    expect([rep.representative, employee.representative]).toEqual([true, false]);
    const tokenOf = (p: any) => String(p.signing_url).split('/sign/')[1];
    expect(expectStatus(await signer(t, tokenOf(rep)).view(), 200).body.organization_seals.map((s: any) => s.id)).toContain(open.id);
    expect(expectStatus(await signer(t, tokenOf(employee)).view(), 200).body.organization_seals).toEqual([]);
    expectError(await t.http.post(`/v1/signing/${tokenOf(employee)}/sign`).send({ consent: true, seal_id: open.id }), 400, 'seal_representative_only', 'seal_id');
    expectError(
      await c.post('/templates', { name: 'x', content: '<p>x</p>', roles: [{ role: '참조', participant_role: 'cc', representative: true }], fields: [] }),
      400,
      'invalid_parameter',
      'roles[0].representative',
    );
  });

  it('refuses representative on a cc and a representative that is not a boolean, naming the param', async () => {
    const doc = expectStatus(await c.post('/documents', { title: '용역계약서', content: '<p>본문</p>' }), 201).body;
    expectError(await c.post(`/documents/${doc.id}/participants`, { name: '참조', email: 'cc@example.com', role: 'cc', representative: true }), 400, 'invalid_parameter', 'representative');
    expectError(await c.post(`/documents/${doc.id}/participants`, { name: '대표', auth: 'none', representative: 'yes' }), 400, 'invalid_parameter', 'representative');
  });

  it('GET …/body: each part\'s body as sanitized HTML, plain text as paragraphs, null for an uploaded PDF', async () => {
    const upload = await uploadFixture(t, key, 'chromium-korean-contract-a4.pdf');
    const html = '<h2>근로계약서</h2><p onclick="steal()">갑과 <b>을</b>은 <a href="https://evil.example">계약</a>한다.<script>alert(1)</script></p><img src="https://evil.example/x.png">';
    const doc = expectStatus(
      await c.post('/documents', { title: '근로계약서 묶음', parts: [{ content: html }, { title: '부속 합의', content: '제1조 <목적>\n\n제2조 기간', content_format: 'text' }, { title: '표준 근로계약서', file_url: upload.url }] }),
      201,
    ).body;
    const p = expectStatus(await c.post(`/documents/${doc.id}/participants`, { name: '홍길동', auth: 'none', email: 'hong@example.com' }), 201).body;
    expectStatus(await c.put(`/documents/${doc.id}/fields`, { fields: [{ participant_id: p.id, type: 'signature', page: 1, x: 10, y: 80, width: 20, height: 8 }] }), 200);
    const sent = expectStatus(await c.post(`/documents/${doc.id}/send`, {}), 200).body;
    const token = String(sent.participants[0].signing_url).split('/sign/')[1];
    const body = expectStatus(await t.http.get(`/v1/signing/${token}/body`), 200).body;
    expect(body.parts.map((x: any) => x.title)).toEqual(['근로계약서 묶음', '부속 합의', '표준 근로계약서']);
    const first = body.parts[0].html as string;
    expect(first).toContain('<h2>근로계약서</h2>');
    expect(first).toContain('<b>을</b>');
    expect(first).not.toMatch(/script|onclick|evil\.example|<a /);
    expect(body.parts[1].html).toBe('<p>제1조 &lt;목적&gt;</p><p>제2조 기간</p>');
    expect(body.parts[2].html).toBeNull();
    expectError(await t.http.get('/v1/signing/not-a-valid-token-at-all-xxxxxxxxxxxxxxxx/body'), 404, 'signing_link_invalid');
  });
});
