import { PDFDocument, StandardFonts } from 'pdf-lib';
import request from 'supertest';
import { EDIT_SESSIONS } from '@dojang/application';
import { expectApiError } from '../support/lifecycle';
import { API_TEST_OPTIONS, client, Client, expectError, expectStatus, UNKNOWN_UUID } from '../support/api-helpers';
import { describeOnEachStore, startTestAppOn } from '../support/each-store';
import { bearer, TestApp, TestOrg } from '../support/test-app';

/**
 * The field-placement editor's server side (issue 34): POST …/edit_session issues a one-time URL
 * (only its hash kept), opening it once hands the page a session, and the session saves through
 * the API's own handlers (same validation, same errors) as the key that opened it. Refused: auditor
 * keys, another organization's ids, a URL opened twice or too late, an unknown one; and nothing is
 * changed by a refused call. On both stores: the single use is a compare-and-set of the read store.
 */

/** A PDF of `pages` A4 pages with no anchors, each printing its number. */
async function plainPdf(pages: number): Promise<Buffer> {
  const pdf = await PDFDocument.create();
  const font = await pdf.embedFont(StandardFonts.Helvetica);
  for (let n = 1; n <= pages; n++) pdf.addPage([595, 842]).drawText(`Page ${n}`, { x: 60, y: 700, size: 36, font });
  return Buffer.from(await pdf.save());
}

const SESSION_META = /<meta name="dojang-editor-session" content="([A-Za-z0-9_-]{43})">/;

describeOnEachStore('edit sessions (field-placement editor, server)', (store) => {
  let t: TestApp;
  let org: TestOrg;
  let c: Client;
  let other: Client;
  let fileUrl: string;

  beforeAll(async () => {
    t = await startTestAppOn(store, { ...API_TEST_OPTIONS, manualClock: true });
    org = await t.createOrg();
    c = client(t, org.test);
    other = client(t, (await t.createOrg('Other Co')).test);
    await t.admin.changeSettings(org.id, { embed_origins: ['https://hr.example'] });
    const upload = expectStatus(await t.http.post('/v1/files').set(bearer(org.test)).attach('file', await plainPdf(2), { filename: '근로계약서.pdf', contentType: 'application/pdf' }), 201);
    fileUrl = upload.body.url;
  }, 180_000);
  afterAll(async () => t?.close());

  /** A draft of the uploaded 2-page PDF with two signers. */
  async function draft(file = fileUrl) {
    const doc = expectStatus(await c.post('/documents', { title: '근로계약서', file_url: file }), 201).body;
    const hire = expectStatus(await c.post(`/documents/${doc.id}/participants`, { name: '김신입', auth: 'none' }), 201).body;
    const boss = expectStatus(await c.post(`/documents/${doc.id}/participants`, { name: '박대표', auth: 'none' }), 201).body;
    return { id: doc.id as string, hire: hire.id as string, boss: boss.id as string };
  }

  /** Opens the one-time URL as a browser would and answers the session the page got. */
  async function openUrl(url: string) {
    const res = await t.http.get(new URL(url).pathname);
    return { res, session: SESSION_META.exec(res.text)?.[1] ?? null };
  }

  it('issues a one-time URL, hands the page a session once, framed only by embed_origins, and keeps only hashes', async () => {
    const d = await draft();
    const issued = expectStatus(await c.post(`/documents/${d.id}/edit_session`, { actions: ['save', 'send'], locale: 'en', redirect_url: 'https://hr.example/contracts/7' }), 201).body;
    expect(issued).toMatchObject({ object: 'edit_session', kind: 'document', document_id: d.id, template_id: null, actions: ['save', 'send'], locale: 'en', redirect_url: 'https://hr.example/contracts/7' });
    expect(issued.url).toMatch(/\/edit\/[A-Za-z0-9_-]{43}$/);
    expect(Date.parse(issued.expires_at) - t.clock!.now().getTime()).toBe(5 * 60_000);
    const token = issued.url.split('/edit/')[1];

    // A link checker's HEAD spends nothing (sent past the OpenAPI validator: HEAD is not an operation).
    expect((await request(t.app.getHttpServer()).head(`/edit/${token}`)).status).toBe(200);
    const first = await openUrl(issued.url);
    expect(first.res.status).toBe(200);
    expect(first.res.headers['content-security-policy']).toContain('frame-ancestors https://hr.example');
    expect(first.res.headers['x-frame-options']).toBeUndefined();
    expect(first.res.headers['cache-control']).toBe('no-store');
    expect(first.res.text).toContain('<html lang="en"');
    expect(first.session).not.toBeNull();

    // Opened twice: refused with a page saying so, and no session in it.
    const second = await openUrl(issued.url);
    expect(second.res.status).toBe(410);
    expect(second.session).toBeNull();
    expect(second.res.text).toContain('이미 열린 편집 링크입니다');
    expect(second.res.text).not.toMatch(/<script/);

    // Two opens racing each other: one page gets a session, the other the refusal.
    const raced = expectStatus(await c.post(`/documents/${d.id}/edit_session`, {}), 201).body.url;
    const both = await Promise.all([openUrl(raced), openUrl(raced)]);
    expect(both.map((o) => o.res.status).sort()).toEqual([200, 410]);
    expect(both.filter((o) => o.session !== null)).toHaveLength(1);

    // Neither secret is stored, only their hashes.
    const rows = await t.infra.reads.find<any>(EDIT_SESSIONS, {});
    const stored = JSON.stringify(rows);
    expect(stored).not.toContain(token);
    expect(stored).not.toContain(first.session);

    const view = expectStatus(await t.http.get(`/v1/editor/${first.session}`), 200).body;
    expect(view).toMatchObject({
      object: 'editor_session',
      kind: 'document',
      actions: ['save', 'send'],
      locale: 'en',
      embed_origins: ['https://hr.example'],
      document: { id: d.id, title: '근로계약서', status: 'draft', editable: true },
      template: null,
      parts: [{ index: 0, title: null, page_count: 2 }],
      fields: [],
    });
    expect(view.participants).toEqual([
      { id: d.hire, name: '김신입', role: 'signer' },
      { id: d.boss, name: '박대표', role: 'signer' },
    ]);
    const png = await t.http.get(`/v1/editor/${first.session}/parts/0/pages/2.png?w=480&v=${view.parts[0].pages_version}`).buffer(true);
    expect(png.status).toBe(200);
    expect(png.headers['content-type']).toBe('image/png');
    expect(png.headers['cache-control']).toContain('immutable');
    expect((png.body as Buffer).subarray(1, 4).toString()).toBe('PNG');
    expectError(await t.http.get(`/v1/editor/${first.session}/parts/0/pages/3.png`), 404, 'page_not_found');
    expectError(await t.http.get(`/v1/editor/${first.session}/parts/1/pages/1.png`), 404, 'page_not_found');
    expectError(await t.http.get(`/v1/editor/${first.session}/parts/0/pages/1.png?w=333`), 400, 'invalid_parameter', 'w');

    // Where the text lines are, for snapping: each page's "Page n" (baseline 700 pt up an 842 pt page).
    const lines = expectStatus(await t.http.get(`/v1/editor/${first.session}/parts/0/lines`), 200).body;
    expect(lines).toEqual({ object: 'text_lines', part: 0, pages: [{ page: 1, lines: [16.86] }, { page: 2, lines: [16.86] }] });
    expectError(await t.http.get(`/v1/editor/${first.session}/parts/1/lines`), 404, 'page_not_found');
  });

  it('saves through PUT …/fields: what the API accepts is saved, what it refuses is refused naming the field, nothing changed', async () => {
    const d = await draft();
    const issued = expectStatus(await c.post(`/documents/${d.id}/edit_session`, { actions: ['save', 'send'], redirect_url: 'https://hr.example/done?x=1' }), 201).body;
    const { session } = await openUrl(issued.url);
    const put = (fields: unknown[]) => t.http.put(`/v1/editor/${session}/fields`).send({ fields });
    const sig = { participant_id: d.hire, type: 'signature', page: 2, x: 10, y: 70, width: 25, height: 8 };
    const date = { participant_id: d.hire, type: 'date', page: 2, x: 40, y: 70, width: 20, height: 4, label: '서명일' };
    const boss = { participant_id: d.boss, type: 'signature', page: 2, x: 60, y: 80, width: 25, height: 8 };

    const saved = expectStatus(await put([sig, date, boss]), 200).body;
    expect(saved).toEqual({
      object: 'editor_event',
      type: 'dojang.editor.saved',
      document_id: d.id,
      template_id: null,
      template_version: null,
      field_count: 3,
      redirect_url: `https://hr.example/done?x=1&dojang_event=saved&document_id=${d.id}`,
    });
    const doc = expectStatus(await c.get(`/documents/${d.id}`), 200).body;
    expect(doc.fields.map((f: any) => [f.participant_id, f.type, f.page, f.x, f.y])).toEqual([
      [d.hire, 'signature', 2, 10, 70],
      [d.hire, 'date', 2, 40, 70],
      [d.boss, 'signature', 2, 60, 80],
    ]);
    // The event names the API key that opened the session, as a PUT with it would.
    const history = expectStatus(await c.get(`/documents/${d.id}/history`), 200).body;
    const replaced = history.data.filter((e: any) => e.type === 'FieldsReplaced').at(-1);
    expect(JSON.stringify(replaced)).toContain('key_');

    // Each refusal is the API's, with the field named; the fields stay as saved.
    const apiSays = async (fields: unknown[]) => (await c.put(`/documents/${d.id}/fields`, { fields })).body.error;
    const cases: Array<[unknown[], number, string, string]> = [
      [[sig, { ...date, page: 3 }], 400, 'field_page_out_of_range', 'fields[1].page'],
      [[sig, { ...date, x: 120 }], 400, 'invalid_parameter', 'fields[1].x'],
      [[sig, { ...date, participant_id: UNKNOWN_UUID }], 400, 'invalid_parameter', 'fields[1].participant_id'],
      // Dropped past the page's edge.
      [[sig, { ...date, x: 90, width: 20 }], 400, 'invalid_parameter', 'fields[1]'],
      [[{ ...sig, type: 'stamp' }], 400, 'invalid_parameter', 'fields[0].type'],
    ];
    for (const [fields, status, code, param] of cases) {
      const res = await put(fields);
      const body = res.body.error;
      expect([res.status, body?.code]).toEqual([status, (await apiSays(fields)).code]);
      expect(body.param).toBe((await apiSays(fields)).param);
      expect([body.code, body.param]).toEqual([code, param]);
    }
    expectError(await t.http.put(`/v1/editor/${session}/fields`).send({}), 400, 'missing_parameter', 'fields');
    expectError(await t.http.put(`/v1/editor/${session}/fields`).send({ fields: 'x' }), 400, 'invalid_parameter', 'fields');
    expect(expectStatus(await c.get(`/documents/${d.id}`), 200).body.fields).toHaveLength(3);

    // Send, allowed for this session: the document goes out, the session ends.
    const sent = expectStatus(await t.http.post(`/v1/editor/${session}/send`).send({}), 200).body;
    expect(sent).toMatchObject({ type: 'dojang.editor.sent', document_id: d.id, redirect_url: `https://hr.example/done?x=1&dojang_event=sent&document_id=${d.id}` });
    expect(expectStatus(await c.get(`/documents/${d.id}`), 200).body.status).toBe('sent');
    expectError(await put([sig]), 410, 'edit_session_expired');

    // An editor opened after send shows the document, and a save is refused as the API refuses it.
    const late = await openUrl(expectStatus(await c.post(`/documents/${d.id}/edit_session`, {}), 201).body.url);
    expect(expectStatus(await t.http.get(`/v1/editor/${late.session}`), 200).body.document).toMatchObject({ status: 'sent', editable: false });
    expectError(await t.http.put(`/v1/editor/${late.session}/fields`).send({ fields: [sig] }), 409, 'document_not_editable');
    expectApiError(await t.http.post(`/v1/editor/${late.session}/send`).send({}), 403, 'edit_action_not_allowed', 'permission_error');
  });

  it('refuses a field dropped over most of another as PUT …/fields and a template save refuse it, naming the later field; anchors that land on one spot too', async () => {
    const d = await draft();
    const { session } = await openUrl(expectStatus(await c.post(`/documents/${d.id}/edit_session`, { actions: ['save'] }), 201).body.url);
    const sig = { participant_id: d.hire, type: 'signature', page: 1, x: 10, y: 70, width: 25, height: 8 };
    const dropped = { participant_id: d.boss, type: 'signature', page: 1, x: 15, y: 70, width: 25, height: 8 };
    for (const res of [await t.http.put(`/v1/editor/${session}/fields`).send({ fields: [sig, dropped] }), await c.put(`/documents/${d.id}/fields`, { fields: [sig, dropped] })]) {
      const error = expectError(res, 400, 'field_overlap', 'fields[1]');
      expect(error.message).toMatch(/^fields\[1\] covers 80% of fields\[0\] on the same page/);
    }
    expect(expectStatus(await c.get(`/documents/${d.id}`), 200).body.fields).toEqual([]);

    // Touching, a small overlap (a seal stamped partly over its neighbour), the same spot on another page: saved.
    const seal = { participant_id: d.boss, type: 'seal', page: 1, x: 30, y: 66, width: 10, height: 10 };
    expectStatus(await t.http.put(`/v1/editor/${session}/fields`).send({ fields: [sig, { ...dropped, x: 35 }, seal, { ...dropped, page: 2 }] }), 200);

    // Two anchors found at one spot ("Page 1", printed once) overlap where they land; moved apart they pass.
    const anchored = (who: string, offset_y = 0) => ({ participant_id: who, type: 'text', anchor: { text: 'Page 1', offset_y, width: 30, height: 4 } });
    expectError(await c.put(`/documents/${d.id}/fields`, { fields: [sig, anchored(d.hire), anchored(d.boss)] }), 400, 'field_overlap', 'fields[2]');
    expectStatus(await c.put(`/documents/${d.id}/fields`, { fields: [sig, anchored(d.hire), anchored(d.boss, 5)] }), 200);

    // A template: coordinates at save, anchored fields where the template's own PDF puts them.
    const roles = [{ role: 'employee', auth: 'none' }, { role: 'employer', auth: 'none' }];
    const tmpl = (fields: unknown[]) => c.post('/templates', { name: '겹친 계약서', parts: [{ title: '계약서', file_url: fileUrl }], roles, fields });
    const bySeat = (role: string, over: Record<string, unknown> = {}) => ({ role, type: 'signature', page: 2, x: 10, y: 70, width: 25, height: 8, ...over });
    expectError(await tmpl([bySeat('employee'), bySeat('employer', { x: 15 })]), 400, 'field_overlap', 'fields[1]');
    const anchoredRole = (role: string, offset_y = 0) => ({ role, type: 'signature', anchor: { text: 'Page 1', offset_y, width: 30, height: 4 } });
    expectError(await tmpl([anchoredRole('employee'), anchoredRole('employer')]), 400, 'field_overlap', 'fields[1]');
    expectStatus(await tmpl([anchoredRole('employee'), anchoredRole('employer', 5)]), 201);
  });

  it('shows a template\'s anchored field where its anchor lands; saved unmoved it keeps the anchor, moved the coordinates it was put at', async () => {
    const anchor = { text: 'Page 2', offset_y: 6, width: 30, height: 6 };
    const tmpl = expectStatus(
      await c.post('/templates', { name: '기준 문구 계약서', parts: [{ title: '계약서', file_url: fileUrl }], roles: [{ role: 'employee', auth: 'none' }], fields: [{ role: 'employee', type: 'signature', anchor }] }),
      201,
    ).body;
    const { session } = await openUrl(expectStatus(await c.post(`/templates/${tmpl.id}/edit_session`, {}), 201).body.url);
    const [landed] = expectStatus(await t.http.get(`/v1/editor/${session}`), 200).body.fields;
    // "Page 2" is printed from 60 pt of page 2's 595 (its P's ink starts a little right of that):
    // the field is there, 6 % under the text's top.
    expect(landed).toMatchObject({ anchor: { text: 'Page 2', offset_y: 6 }, page: 2, width: 30, height: 6 });
    expect(landed.x).toBeGreaterThanOrEqual((60 / 595) * 100);
    expect(landed.x).toBeLessThan((66 / 595) * 100);
    expect(landed.y).toBeGreaterThan(6 + (100 * (842 - 700 - 36)) / 842);
    expect(landed.y).toBeLessThan(6 + (100 * (842 - 700)) / 842);

    // Saved as the editor saves an anchored field it did not move: the anchor stays.
    const save = (field: Record<string, unknown>) => t.http.put(`/v1/editor/${session}/fields`).send({ fields: [{ id: landed.id, role: 'employee', type: 'signature', ...field }] });
    expectStatus(await save({ anchor: landed.anchor }), 200);
    expect(expectStatus(await c.get(`/templates/${tmpl.id}`), 200).body.fields[0]).toMatchObject({ id: landed.id, anchor: { text: 'Page 2' } });
    // Moved: it keeps the coordinates it was moved to, and no anchor.
    expectStatus(await save({ page: 2, x: 20, y: landed.y + 2, width: 30, height: 6 }), 200);
    const moved = expectStatus(await c.get(`/templates/${tmpl.id}`), 200).body.fields[0];
    expect(moved).toMatchObject({ id: landed.id, page: 2, x: 20, y: landed.y + 2 });
    expect(moved.anchor ?? null).toBeNull();
  });

  it('a template: fields for roles saved as a new version; send refused at opening; cancel ends the session', async () => {
    const tmpl = expectStatus(
      await c.post('/templates', {
        name: '표준 근로계약서',
        parts: [{ title: '계약서', file_url: fileUrl }],
        roles: [{ role: 'employee', auth: 'none' }, { role: 'employer', auth: 'none' }],
        fields: [
          { role: 'employee', type: 'signature', page: 1, x: 10, y: 10, width: 20, height: 8 },
          { role: 'employer', type: 'signature', page: 1, x: 50, y: 10, width: 20, height: 8 },
        ],
      }),
      201,
    ).body;
    expectError(await c.post(`/templates/${tmpl.id}/edit_session`, { actions: ['send'] }), 400, 'invalid_parameter', 'actions');
    const issued = expectStatus(await c.post(`/templates/${tmpl.id}/edit_session`, { actions: ['save', 'preview'] }), 201).body;
    expect(issued).toMatchObject({ kind: 'template', template_id: tmpl.id, document_id: null, locale: 'ko', redirect_url: null });
    const { session } = await openUrl(issued.url);
    const view = expectStatus(await t.http.get(`/v1/editor/${session}`), 200).body;
    expect(view).toMatchObject({ kind: 'template', template: { id: tmpl.id, name: '표준 근로계약서', version: 1 }, parts: [{ index: 0, title: '계약서', page_count: 2 }], participants: [] });
    expect(view.roles.map((r: any) => r.role)).toEqual(['employee', 'employer']);

    const fields = [
      { role: 'employee', type: 'signature', page: 2, x: 10, y: 70, width: 25, height: 8 },
      { role: 'employer', type: 'signature', page: 2, x: 60, y: 70, width: 25, height: 8 },
    ];
    expectError(await t.http.put(`/v1/editor/${session}/fields`).send({ fields: [{ ...fields[0], role: 'manager' }, fields[1]] }), 400, 'invalid_parameter', 'fields[0].role');
    const saved = expectStatus(await t.http.put(`/v1/editor/${session}/fields`).send({ fields }), 200).body;
    expect(saved).toMatchObject({ type: 'dojang.editor.saved', template_id: tmpl.id, template_version: 2, field_count: 2, redirect_url: null });
    expect(expectStatus(await c.get(`/templates/${tmpl.id}`), 200).body.fields.map((f: any) => f.role)).toEqual(['employee', 'employer']);
    expectApiError(await t.http.post(`/v1/editor/${session}/send`).send({}), 403, 'edit_action_not_allowed', 'permission_error');

    expect(expectStatus(await t.http.post(`/v1/editor/${session}/cancel`).send({}), 200).body).toMatchObject({ type: 'dojang.editor.cancelled', template_id: tmpl.id });
    expectError(await t.http.get(`/v1/editor/${session}`), 410, 'edit_session_expired');
  });

  it('refuses auditor keys, other organizations, bad options, expired and unknown URLs and sessions, and revoked keys; nothing changes', async () => {
    const d = await draft();
    const auditor = client(t, (await t.admin.issueKey(org.id, 'test', 'auditor')).secret);
    expectApiError(await auditor.post(`/documents/${d.id}/edit_session`, {}), 403, 'insufficient_permissions', 'permission_error');
    expectError(await other.post(`/documents/${d.id}/edit_session`, {}), 404, 'document_not_found');
    expectError(await c.post(`/documents/${UNKNOWN_UUID}/edit_session`, {}), 404, 'document_not_found');
    expectError(await other.post('/templates/tmpl_nope/edit_session', {}), 404, 'template_not_found');
    expectError(await c.post(`/documents/${d.id}/edit_session`, { actions: [] }), 400, 'invalid_parameter', 'actions');
    expectError(await c.post(`/documents/${d.id}/edit_session`, { actions: ['delete'] }), 400, 'invalid_parameter', 'actions');
    expectError(await c.post(`/documents/${d.id}/edit_session`, { redirect_url: 'http://hr.example/x' }), 400, 'invalid_parameter', 'redirect_url');
    expectError(await c.post(`/documents/${d.id}/edit_session`, { redirect_url: 'javascript:alert(1)' }), 400, 'invalid_parameter', 'redirect_url');
    expectError(await c.post(`/documents/${d.id}/edit_session`, { locale: 'ja' }), 400, 'invalid_parameter', 'locale');

    // Past its minutes: refused, and no session made.
    const late = expectStatus(await c.post(`/documents/${d.id}/edit_session`, {}), 201).body;
    t.clock!.advance(5 * 60_000);
    const expired = await openUrl(late.url);
    expect(expired.res.status).toBe(410);
    expect(expired.session).toBeNull();
    expect(expired.res.text).toContain('유효 시간이 지났습니다');
    // Refused where the editor would have been framed, so the user reads why.
    expect(expired.res.headers['content-security-policy']).toContain('frame-ancestors https://hr.example');

    // Unknown or malformed: 404 page, framed nowhere.
    for (const token of ['A'.repeat(43), 'short', 'x'.repeat(200)]) {
      const res = await t.http.get(`/edit/${token}`);
      expect(res.status).toBe(404);
      expect(res.text).toContain('유효하지 않은 편집 링크입니다');
      expect(res.headers['content-security-policy']).toContain("frame-ancestors 'none'");
    }
    expectError(await t.http.get(`/v1/editor/${'A'.repeat(43)}`), 404, 'edit_session_invalid');
    // The one-time URL's token is not a session.
    const fresh = expectStatus(await c.post(`/documents/${d.id}/edit_session`, {}), 201).body;
    expectError(await t.http.get(`/v1/editor/${fresh.url.split('/edit/')[1]}`), 404, 'edit_session_invalid');

    // The session lasts one sitting.
    const { session } = await openUrl(fresh.url);
    expectStatus(await t.http.get(`/v1/editor/${session}`), 200);
    t.clock!.advance(60 * 60_000);
    expectError(await t.http.get(`/v1/editor/${session}`), 410, 'edit_session_expired');
    expectError(await t.http.put(`/v1/editor/${session}/fields`).send({ fields: [] }), 410, 'edit_session_expired');

    // A revoked key's editor stops.
    const extra = await t.admin.issueKey(org.id, 'test');
    const byExtra = client(t, extra.secret);
    const opened = await openUrl(expectStatus(await byExtra.post(`/documents/${d.id}/edit_session`, {}), 201).body.url);
    expectStatus(await t.http.get(`/v1/editor/${opened.session}`), 200);
    await t.admin.revokeKey(org.id, extra.id);
    expectError(await t.http.put(`/v1/editor/${opened.session}/fields`).send({ fields: [] }), 410, 'edit_session_expired');

    // Nothing of the above wrote anything.
    expect(expectStatus(await c.get(`/documents/${d.id}`), 200).body.fields).toEqual([]);
  });

  it('the worker deletes URL and session rows a day past their expiry, used, unused or closed, and keeps the rest', async () => {
    // The earlier cases moved the clock past the shared upload's URL: a fresh one.
    const upload = expectStatus(await t.http.post('/v1/files').set(bearer(org.test)).attach('file', await plainPdf(1), { filename: 'a.pdf', contentType: 'application/pdf' }), 201);
    const d = await draft(upload.body.url);
    const rowsOf = async () => (await t.infra.reads.find<any>(EDIT_SESSIONS, { where: { target_id: d.id } })).map((r) => `${r.stage}:${r.used_at ? 'used' : 'unused'}`).sort();
    // At one instant: a URL opened (its session then closed by cancel), and a URL nobody opened.
    const opened = await openUrl(expectStatus(await c.post(`/documents/${d.id}/edit_session`, {}), 201).body.url);
    expectStatus(await t.http.post(`/v1/editor/${opened.session}/cancel`).send({}), 200);
    const unused = expectStatus(await c.post(`/documents/${d.id}/edit_session`, {}), 201).body;
    expect(await rowsOf()).toEqual(['session:used', 'url:unused', 'url:used']);

    // URLs expire after 5 minutes: a second before a day past that, all is kept, and a late open
    // of the unused URL still reads "expired", not "no such link".
    t.clock!.advance((5 * 60 + 24 * 60 * 60 - 1) * 1000);
    await t.worker!.sweepEditSessions();
    expect(await rowsOf()).toEqual(['session:used', 'url:unused', 'url:used']);
    expect((await openUrl(unused.url)).res.status).toBe(410);

    // A day past: both URL rows go; the session (an hour long) stays; a URL issued now is young.
    const young = expectStatus(await c.post(`/documents/${d.id}/edit_session`, {}), 201).body;
    t.clock!.advance(1000);
    await t.worker!.sweepEditSessions();
    expect(await rowsOf()).toEqual(['session:used', 'url:unused']);
    // A removed URL is no longer known at all.
    expect((await openUrl(unused.url)).res.status).toBe(404);

    // A day past the session's hour: it goes too; the young URL (expired under a day ago) stays.
    t.clock!.advance(55 * 60 * 1000);
    await t.worker!.sweepEditSessions();
    const left = await t.infra.reads.find<any>(EDIT_SESSIONS, { where: { target_id: d.id } });
    expect(left.map((r) => [r.stage, r.expires_at])).toEqual([['url', young.expires_at]]);
  });
});
