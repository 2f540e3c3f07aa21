import { client } from '../support/api-helpers';
import { bearer, TestOrg, useTestApp } from '../support/test-app';
import { runPdfWorkOnThisThread } from '@dojang/pdf';
import { renderDocumentPdf } from '@dojang/pdf/rendering';
import { IDEMPOTENCY_TTL_MS } from '../../apps/api/src/idempotency/idempotency.store';

describe('Idempotency-Key on creating POSTs', () => {
  const t = useTestApp({ manualClock: true });
  let org: TestOrg;
  beforeAll(async () => {
    org = await t.createOrg();
  });

  const post = (path: string, key: string, body?: object, apiKey = org.test) => {
    const req = t.http.post(`/v1${path}`).set(bearer(apiKey)).set('Idempotency-Key', key);
    return body === undefined ? req : req.send(body);
  };
  const countDocs = async (apiKey = org.test) => (await t.http.get('/v1/documents?limit=100').set(bearer(apiKey))).body.data.length;

  it('10 concurrent identical requests with one key make one document; the others replay it or get 409', async () => {
    const before = await countDocs();
    const body = { title: '동시 요청', content: '<p>x</p>', metadata: { order: '42' } };
    const results = await Promise.all(Array.from({ length: 10 }, () => post('/documents', 'concurrent-1', body)));
    const created = results.filter((r) => r.status === 201 && r.headers['idempotent-replayed'] === undefined);
    const replayed = results.filter((r) => r.status === 201 && r.headers['idempotent-replayed'] === 'true');
    const inUse = results.filter((r) => r.status === 409);
    expect(created).toHaveLength(1);
    expect(replayed.length + inUse.length).toBe(9);
    for (const r of replayed) expect(r.body).toEqual(created[0].body);
    for (const r of inUse) expect(r.body.error).toMatchObject({ type: 'idempotency_error', code: 'idempotency_key_in_use' });
    expect(await countDocs()).toBe(before + 1);
    // Once the first has finished, every repeat replays it.
    const later = await post('/documents', 'concurrent-1', body);
    expect(later.status).toBe(201);
    expect(later.headers['idempotent-replayed']).toBe('true');
    expect(later.body).toEqual(created[0].body);
  });

  it('compares the canonical body: key order does not matter, any other change is idempotency_key_reused', async () => {
    const first = await post('/documents', 'canon-1', { title: 'A', content: '<p>a</p>', metadata: { x: '1', y: '2' } });
    expect(first.status).toBe(201);
    const same = await post('/documents', 'canon-1', { metadata: { y: '2', x: '1' }, content: '<p>a</p>', title: 'A' });
    expect(same.headers['idempotent-replayed']).toBe('true');
    expect(same.body.id).toBe(first.body.id);
    const changed = await post('/documents', 'canon-1', { title: 'B', content: '<p>a</p>', metadata: { x: '1', y: '2' } });
    expect(changed.status).toBe(400);
    expect(changed.body.error).toMatchObject({ type: 'idempotency_error', code: 'idempotency_key_reused', param: 'Idempotency-Key' });
    // Same body on another path is another request too.
    const tmpl = await post('/templates', 'canon-1', { title: 'A', content: '<p>a</p>', metadata: { x: '1', y: '2' } });
    expect(tmpl.status).toBe(400);
    expect(tmpl.body.error.code).toBe('idempotency_key_reused');
  });

  it('scopes keys to the organization and the mode', async () => {
    const body = { title: 'Scoped', content: '<p>s</p>' };
    const a = await post('/documents', 'scoped-1', body);
    const live = await post('/documents', 'scoped-1', body, org.live);
    const other = await t.createOrg('Other');
    const b = await post('/documents', 'scoped-1', body, other.test);
    expect([a.status, live.status, b.status]).toEqual([201, 201, 201]);
    expect(new Set([a.body.id, live.body.id, b.body.id]).size).toBe(3);
    expect(live.headers['idempotent-replayed']).toBeUndefined();
    expect(b.headers['idempotent-replayed']).toBeUndefined();
  });

  it('replays 4xx results too, with their original body', async () => {
    const bad = await post('/documents', 'bad-1', { content: '<p>no title</p>' });
    expect(bad.status).toBe(400);
    const again = await post('/documents', 'bad-1', { content: '<p>no title</p>' });
    expect(again.status).toBe(400);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.body).toEqual(bad.body);
  });

  it('works on every creating POST: duplicate, participants, batch, templates, seals, send, remind, cancel', async () => {
    const c = client(t, org.test);
    const doc = (await c.post('/documents', { title: '원본', content: '<p>x</p>' })).body;
    const once = async (path: string, key: string, body?: object) => {
      const a = await post(path, key, body);
      const b = await post(path, key, body);
      expect({ path, status: b.status, replayed: b.headers['idempotent-replayed'], body: b.body }).toEqual({ path, status: a.status, replayed: 'true', body: a.body });
      return a;
    };
    const dup = await once(`/documents/${doc.id}/duplicate`, 'dup-1');
    expect(dup.status).toBe(201);
    const p = await once(`/documents/${doc.id}/participants`, 'par-1', { name: '홍길동', phone: '01012345678' });
    expect(p.status).toBe(201);
    const batch = await once(`/documents/${doc.id}/participants/batch`, 'batch-1', { participants: [{ name: '김철수', auth: 'none' }] });
    expect(batch.status).toBe(201);
    expect((await c.get(`/documents/${doc.id}`)).body.participants).toHaveLength(2);
    await c.put(`/documents/${doc.id}/fields`, {
      fields: [p.body.id, batch.body.data[0].id].map((id: string, i: number) => ({ participant_id: id, type: 'signature', page: 1, x: 10 + 40 * i, y: 70, width: 20, height: 8 })),
    });
    expect((await once('/templates', 'tmpl-1', { name: 'T', content: '<p>{{a}}</p>' })).status).toBe(201);
    expect((await once('/seals', 'seal-1', { source: 'generated', company_name: '도장' })).status).toBe(201);
    expect((await once(`/documents/${doc.id}/send`, 'send-1', {})).status).toBe(200);
    expect((await once(`/documents/${doc.id}/remind`, 'remind-1')).status).toBe(200);
    expect((await once(`/documents/${doc.id}/cancel`, 'cancel-1')).status).toBe(200);
    const all = (await c.get('/documents?limit=100')).body.data.filter((d: any) => d.title === '원본');
    expect(all).toHaveLength(2);
  });

  it('keeps a key 24 hours by the service clock, then lets it run anew', async () => {
    const body = { title: 'Day', content: '<p>d</p>' };
    const first = await post('/documents', 'day-1', body);
    t.clock!.advance(IDEMPOTENCY_TTL_MS - 1000);
    expect((await post('/documents', 'day-1', body)).body.id).toBe(first.body.id);
    t.clock!.advance(2000);
    const fresh = await post('/documents', 'day-1', body);
    expect(fresh.status).toBe(201);
    expect(fresh.headers['idempotent-replayed']).toBeUndefined();
    expect(fresh.body.id).not.toBe(first.body.id);
  });

  it('refuses an empty or over-long key, and ignores keys on requests without a valid API key', async () => {
    const long = await post('/documents', 'k'.repeat(256), { title: 'x', content: 'y' });
    expect(long.status).toBe(400);
    expect(long.body.error).toMatchObject({ code: 'invalid_parameter', param: 'Idempotency-Key' });
    expect((await post('/documents', 'k'.repeat(255), { title: 'x', content: 'y' })).status).toBe(201);
    const noAuth = await t.http.post('/v1/documents').set('Idempotency-Key', 'anon').send({ title: 'x', content: 'y' });
    expect(noAuth.status).toBe(401);
  });

  it('fingerprints a multipart upload by its bytes: the same file replays, another file is idempotency_key_reused', async () => {
    // Fixtures made by the test itself, on its own thread (the app's thread refuses PDF work).
    const pdfA = await runPdfWorkOnThisThread(() => renderDocumentPdf({ title: 'A', content: '<p>a</p>', format: 'html', created_at: '2026-01-01T00:00:00Z' }));
    const pdfB = await runPdfWorkOnThisThread(() => renderDocumentPdf({ title: 'B', content: '<p>b</p>', format: 'html', created_at: '2026-01-01T00:00:00Z' }));
    const upload = (pdf: Buffer) =>
      t.http.post('/v1/files').set(bearer(org.test)).set('Idempotency-Key', 'upload-1').attach('file', pdf, { filename: 'a.pdf', contentType: 'application/pdf' });
    const first = await upload(pdfA);
    expect(first.status).toBe(201);
    const again = await upload(pdfA);
    expect(again.status).toBe(201);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.body.id).toBe(first.body.id);
    const other = await upload(pdfB);
    expect(other.status).toBe(400);
    expect(other.body.error.code).toBe('idempotency_key_reused');
  });

  it('releases the key after a 5xx, so a retry runs again', async () => {
    const put = t.infra.blobs.put.bind(t.infra.blobs);
    let failures = 1;
    t.infra.blobs.put = async (bytes: Buffer) => {
      if (failures-- > 0) throw new Error('disk on fire');
      return put(bytes);
    };
    const errors = jest.spyOn(console, 'error').mockImplementation(() => undefined);
    try {
      const body = { source: 'generated', company_name: '재시도' };
      const failed = await post('/seals', 'retry-5xx', body);
      expect(failed.status).toBe(500);
      const retried = await post('/seals', 'retry-5xx', body);
      expect(retried.status).toBe(201);
      expect(retried.headers['idempotent-replayed']).toBeUndefined();
      const replay = await post('/seals', 'retry-5xx', body);
      expect(replay.headers['idempotent-replayed']).toBe('true');
      expect(replay.body.id).toBe(retried.body.id);
    } finally {
      t.infra.blobs.put = put;
      errors.mockRestore();
    }
  });
});
