import { unzipSync } from 'fflate';
import { createHash } from 'crypto';
import { verifyBundle } from '@dojang/verifier';
import { Client, client, expectError, expectStatus } from '../support/api-helpers';
import { Built, SIGNATURE, auditOf, expectApiError, outboxOf, sentWith, signer, tokenOf } from '../support/lifecycle';
import { solidPngBytes } from '../support/png';
import { bearer, startTestApp, TestApp } from '../support/test-app';
import { binary } from '../files/file-helpers';
import { pdftotext } from '@dojang/pdf/testing/poppler';

/**
 * Routing (issue 21 item 6) through the API: delegation by a signer the sender allowed (the old
 * link refused at once, the delegate signs with a PIN sent to their own phone), a signing group
 * (one member signs for all), and an attachment field (items 1–3): uploaded through the link,
 * named by the signature, and then in form_data, the download and the evidence bundle.
 */
describe('routing: delegation, signing groups, attachments', () => {
  let t: TestApp;
  let c: Client;
  let key: string;

  let d: Built;
  beforeAll(async () => {
    t = await startTestApp();
    key = (await t.createOrg('주식회사 도장')).test;
    c = client(t, key);
    // The first send renders the first PDF of the process (the renderer starts cold): here, with
    // the set-up's time, rather than inside one test's.
    d = await sentWith(c, [
      { name: '김부장', phone: '01011112222', auth: 'sms_pin', allow_delegation: true },
      { name: '이과장', email: 'lee@example.com' },
    ]);
  }, 180_000);
  afterAll(() => t.close());

  const sha = (b: Buffer) => createHash('sha256').update(b).digest('hex');
  const lastPin = async (id: string, to: string) => (await outboxOf(t, c, id)).filter((m) => m.kind === 'pin' && m.to === to).pop();

  it('delegation: allowed signer hands over; the old link answers signing_link_replaced; the delegate signs', async () => {
    const old = signer(t, d.p['김부장'].token);
    const delegate = (body: Record<string, unknown>, token = d.p['김부장'].token) => t.http.post(`/v1/signing/${token}/delegate`).send(body);
    // Not allowed for 이과장; 김부장 proves who they are first.
    expectApiError(await delegate({ name: '박대리', email: 'park@example.com' }, d.p['이과장'].token), 409, 'delegation_not_allowed');
    expectApiError(await delegate({ name: '박대리', phone: '010-3333-4444' }), 409, 'pin_verification_required');
    expectStatus(await old.pin(), 200);
    expectStatus(await old.verify((await lastPin(d.id, '01011112222')).pin), 200);
    // The delegate of an sms_pin participant needs a phone of their own.
    expectError(await delegate({ name: '박대리', email: 'park@example.com' }), 400, 'missing_phone', 'phone');

    const res = expectStatus(await delegate({ name: '박대리', phone: '010-3333-4444' }), 200).body;
    expect(res).toMatchObject({ object: 'delegation', participant_id: d.p['김부장'].id, delegate: { name: '박대리', phone_masked: '010-****-4444', email_masked: null } });
    expectApiError(await old.view(), 404, 'signing_link_replaced');
    expectApiError(await old.sign(), 404, 'signing_link_replaced');

    const doc = expectStatus(await c.get(`/documents/${d.id}`), 200).body;
    const held = doc.participants.find((p: any) => p.id === d.p['김부장'].id);
    expect(held).toMatchObject({ name: '박대리', phone: '01033334444', allow_delegation: false, delegated_from: [{ name: '김부장', delegated_at: res.delegated_at }] });
    const request = (await outboxOf(t, c, d.id)).filter((m) => m.kind === 'signing_request' && m.to === '01033334444');
    expect(request.map((m) => m.signing_url)).toEqual([held.signing_url]);

    const fresh = signer(t, tokenOf(held.signing_url));
    expect(expectStatus(await fresh.view(), 200).body).toMatchObject({ participant: { name: '박대리', phone_masked: '010-****-4444' }, pin: { requested: false } });
    expectStatus(await fresh.pin(), 200);
    expectStatus(await fresh.verify((await lastPin(d.id, '01033334444')).pin), 200);
    expectStatus(await fresh.sign(), 200);
    expect(expectStatus(await signer(t, d.p['이과장'].token).sign(), 200).body.document.status).toBe('completed');

    const stream = await t.infra.events.readStream(`document-${d.id}`);
    expect(stream.find((e) => e.type === 'ParticipantDelegated')?.data).toMatchObject({ from: { name: '김부장' }, to: { name: '박대리', phone: '01033334444' }, link: { version: 1 } });
    expect((await auditOf(c, d.id)).find((e) => e.event === 'delegated')).toMatchObject({ actor: '김부장', detail: expect.stringContaining('박대리') });
  });

  it('a signing group: both members are asked, the first to sign signs for both, the next order follows', async () => {
    const d = await sentWith(c, [
      { name: '인사1', email: 'hr1@example.com', group: '인사팀' },
      { name: '인사2', email: 'hr2@example.com', group: '인사팀', fields: [] },
      { name: '대표', email: 'ceo@example.com', signing_order: 2 },
    ]);
    const asked = async () => (await outboxOf(t, c, d.id)).filter((m) => m.kind === 'signing_request').map((m) => m.to).sort();
    expect(await asked()).toEqual(['hr1@example.com', 'hr2@example.com']);
    // The member without a field of their own fills the group's.
    const view = expectStatus(await signer(t, d.p['인사2'].token).view(), 200).body;
    expect(view).toMatchObject({ can_sign: true, fields: [{ type: 'signature' }] });
    expectStatus(await signer(t, d.p['인사2'].token).sign(), 200);
    expectApiError(await signer(t, d.p['인사1'].token).sign(), 409, 'group_already_signed');
    expect(expectStatus(await signer(t, d.p['인사1'].token).view(), 200).body).toMatchObject({ can_sign: false, your_turn: false });
    expect(await asked()).toEqual(['ceo@example.com', 'hr1@example.com', 'hr2@example.com']);
    expect(expectStatus(await signer(t, d.p['대표'].token).sign(), 200).body.document.status).toBe('completed');
    const doc = expectStatus(await c.get(`/documents/${d.id}`), 200).body;
    expect(doc.participants.map((p: any) => [p.name, p.group, p.group_signed_by])).toEqual([
      ['인사1', '인사팀', d.p['인사2'].id],
      ['인사2', '인사팀', null],
      ['대표', null, null],
    ]);
    expect((await auditOf(c, d.id)).find((e) => e.event === 'group_signed')).toMatchObject({ actor: '인사2' });
  });

  it('an upload to another participant\'s attachment field → 400 naming field_id, whatever its size (issue 33 §14)', async () => {
    const d = await sentWith(c, [
      { name: '갑', email: 'gap@example.com', fields: [{ type: 'signature' }, { type: 'attachment', label: '작은 첨부', max_bytes: 20_000, y: 80 }] },
      { name: '을', email: 'eul@example.com', fields: [{ type: 'signature' }, { type: 'attachment', label: '큰 첨부', max_bytes: 100_000, y: 80 }] },
      { name: '병', email: 'byung@example.com', fields: [{ type: 'signature' }] },
    ]);
    const doc = expectStatus(await c.get(`/documents/${d.id}`), 200).body;
    const byLabel = (label: string) => doc.fields.find((f: { label?: string }) => f.label === label).id as string;
    const png = solidPngBytes(60, 40, [10, 120, 200, 255]);
    const upload = (who: string, fieldId: string, bytes: Buffer) => t.http.post(`/v1/signing/${d.p[who].token}/attachments`).field('field_id', fieldId).attach('file', bytes, '첨부.png');
    // 병 has no attachment field at all: was 413 "larger than 1 bytes".
    expect(String(expectError(await upload('병', byLabel('작은 첨부'), png), 400, 'invalid_parameter', 'field_id').message)).not.toMatch(/bytes/);
    // 갑's own limit is 20,000 bytes; 50,000 bytes for 을's field is refused for the field, not the size.
    expectError(await upload('갑', byLabel('큰 첨부'), Buffer.concat([png, Buffer.alloc(50_000)])), 400, 'invalid_parameter', 'field_id');
    // Their own field still answers 413 over its limit.
    expectError(await upload('갑', byLabel('작은 첨부'), Buffer.concat([png, Buffer.alloc(20_001)])), 413, 'file_too_large', 'file');
  });

  it('an attachment field: uploaded by content, named by the signature, in form_data, the download and the evidence bundle', async () => {
    const d = await sentWith(c, [
      {
        name: '근로자',
        email: 'worker@example.com',
        fields: [{ type: 'signature' }, { type: 'attachment', label: '신분증 사본', accept: ['png', 'jpeg'], max_bytes: 20_000, y: 80 }],
      },
    ]);
    const doc = expectStatus(await c.get(`/documents/${d.id}`), 200).body;
    const [sigField, idField] = doc.fields;
    expect(idField).toMatchObject({ type: 'attachment', accept: ['png', 'jpeg'], max_bytes: 20_000 });
    const token = d.p['근로자'].token;
    const upload = (bytes: Buffer, fieldId: string, name = '신분증.png') =>
      t.http.post(`/v1/signing/${token}/attachments`).field('field_id', fieldId).attach('file', bytes, name);
    const png = solidPngBytes(60, 40, [10, 120, 200, 255]);

    expectError(await upload(Buffer.from('%PDF-1.4\n'), idField.id, 'x.pdf'), 415, 'unsupported_file_type', 'file');
    expectError(await upload(Buffer.from('GIF89a....'), idField.id, 'x.png'), 415, 'unsupported_file_type', 'file');
    expectError(await upload(Buffer.concat([png, Buffer.alloc(20_001)]), idField.id), 413, 'file_too_large', 'file');
    expectError(await upload(png, sigField.id), 400, 'invalid_parameter', 'field_id');
    expectError(await upload(png, '00000000-0000-4000-8000-000000000000'), 400, 'invalid_parameter', 'field_id');

    const att = expectStatus(await upload(png, idField.id), 201).body;
    expect(att).toEqual({ attachment_id: expect.stringMatching(/^att_/), field_id: idField.id, filename: '신분증.png', content_type: 'image/png', size: png.length, sha256: sha(png) });
    // Only an upload of this participant for this field: a made-up id is refused naming the field.
    expectError(await signer(t, token).sign({ consent: true, signature: SIGNATURE, values: { [idField.id]: 'att_unknown' } }), 400, 'field_value_invalid', `values.${idField.id}`);
    expectError(await signer(t, token).sign({ consent: true, signature: SIGNATURE }), 400, 'field_value_required', `values.${idField.id}`);
    const done = expectStatus(await signer(t, token).sign({ consent: true, signature: SIGNATURE, values: { [idField.id]: att.attachment_id } }), 200).body;
    expect(done.document.status).toBe('completed');

    const form = expectStatus(await c.get(`/documents/${d.id}/form_data`), 200).body;
    expect(form.data).toEqual([
      expect.objectContaining({
        field_id: idField.id,
        type: 'attachment',
        label: '신분증 사본',
        value: att.attachment_id,
        display_value: `신분증.png (SHA-256 ${att.sha256})`,
        attachment: { attachment_id: att.attachment_id, filename: '신분증.png', content_type: 'image/png', sha256: att.sha256, byte_size: png.length },
      }),
    ]);
    const file = await t.http.get(`/v1/documents/${d.id}/attachments/${att.attachment_id}`).set(bearer(key)).buffer(true).parse(binary);
    expect(file.status).toBe(200);
    expect(file.headers['content-type']).toBe('image/png');
    expect(sha(file.body)).toBe(att.sha256);
    expectError(await c.get(`/documents/${d.id}/attachments/att_nothing`), 404, 'attachment_not_found');
    // The audit certificate lists the field with the file's name and hash.
    const audited = pdftotext((await t.http.get(`/v1/documents/${d.id}/file?audit=true`).set(bearer(key)).buffer(true).parse(binary)).body as Buffer).replace(/\s+/g, '');
    expect(audited).toContain('신분증사본');
    // The certificate's values table names the file and its hash (its page column, "1쪽 / p. 1",
    // sits on the same line, so a reader's text runs the columns together).
    const values = audited.slice(audited.indexOf('Fieldvalues'), audited.indexOf('처리이력'));
    expect(values).toContain('신분증.png(SHA-256');
    expect(values).toContain(att.sha256);

    const bundle = await t.http.get(`/v1/documents/${d.id}/evidence`).set(bearer(key)).buffer(true).parse(binary);
    expect(bundle.status).toBe(200);
    const files = unzipSync(new Uint8Array(bundle.body));
    const name = `attachments/${att.attachment_id}-신분증.png`;
    expect(sha(Buffer.from(files[name]))).toBe(att.sha256);
    const manifest = JSON.parse(Buffer.from(files['manifest.json']).toString('utf8'));
    expect(manifest.files).toContainEqual({ name, sha256: att.sha256, byte_size: png.length });
    expect(verifyBundle(new Uint8Array(bundle.body)).ok).toBe(true);
    // The completion e-mail carries the package: the signed PDF and the attached file.
    const mail = (await outboxOf(t, c, d.id)).find((m) => m.kind === 'completed');
    expect(mail.attachments).toEqual([
      { filename: '용역계약서.pdf', content_type: 'application/pdf', byte_size: expect.any(Number) },
      { filename: `${att.attachment_id}-신분증.png`, content_type: 'image/png', byte_size: png.length },
    ]);
    const completedEvent = expectStatus(await c.get(`/events?document_id=${d.id}`), 200).body.data.find((e: any) => e.type === 'document.completed');
    expect(completedEvent.data.form_data[0].attachment.sha256).toBe(att.sha256);
  });
});
