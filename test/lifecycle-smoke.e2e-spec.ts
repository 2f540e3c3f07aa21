import { CachedBlobStore } from '@dojang/blob-store';
import { describeOnEachStore, startTestAppOn, TestStore } from './support/each-store';
import { bearer, TestApp, TestOrg } from './support/test-app';

import { solidPng } from './support/png';

// The same lifecycle on the embedded stores and on PostgreSQL (DATABASE_URL for all three ports).
describeOnEachStore('signing lifecycle (smoke)', (store) => lifecycle(store));

function lifecycle(store: TestStore) {
  let t: TestApp;
  let org: TestOrg;
  beforeAll(async () => {
    t = await startTestAppOn(store);
    org = await t.createOrg();
  });
  afterAll(async () => {
    await t?.close();
  });

  it('create → participant → fields → send → view → PIN → sign → completed', async () => {
    const h = bearer(org.test);
    const doc = (await t.http.post('/v1/documents').set(h).send({ title: '근로계약서', content: '<p>갑과 을은 다음과 같이 계약한다.</p>' }).expect(201)).body;
    const p = (await t.http.post(`/v1/documents/${doc.id}/participants`).set(h).send({ name: '김철수', phone: '01012345678', email: 'kim@example.com' }).expect(201)).body;
    await t.http.put(`/v1/documents/${doc.id}/fields`).set(h).send({ fields: [{ participant_id: p.id, type: 'signature', page: 1, x: 60, y: 80, width: 25, height: 8 }] }).expect(200);
    const sent = (await t.http.post(`/v1/documents/${doc.id}/send`).set(h).send({}).expect(200)).body;
    expect(sent.status).toBe('sent');
    const url: string = sent.participants[0].signing_url;
    const token = url.split('/sign/')[1];
    await t.worker!.runner.catchUp();
    const outbox = (await t.http.get(`/v1/outbox?document_id=${doc.id}`).set(h).expect(200)).body;
    expect(outbox.data.map((m: any) => m.channel).sort()).toEqual(['email', 'sms']);
    expect(outbox.data[0].signing_url).toBe(url);
    const view = (await t.http.get(`/v1/signing/${token}`).expect(200)).body;
    expect(view).toMatchObject({ pin_required: true, can_sign: false, your_turn: true });
    await t.http.post(`/v1/signing/${token}/pin`).expect(200);
    const pinMsg = (await t.http.get(`/v1/outbox?document_id=${doc.id}&channel=sms&limit=1`).set(h).expect(200)).body.data[0];
    expect(pinMsg.pin).toMatch(/^\d{6}$/);
    await t.http.post(`/v1/signing/${token}/verify`).send({ pin: pinMsg.pin }).expect(200);
    const signed = (await t.http.post(`/v1/signing/${token}/sign`).send({ consent: true, signature: solidPng() }).expect(200)).body;
    expect(signed.document.status).toBe('completed');
    const final = (await t.http.get(`/v1/documents/${doc.id}`).set(h).expect(200)).body;
    expect(final.status).toBe('completed');
    expect(final.final_pdf_sha256).toMatch(/^[0-9a-f]{64}$/);
    const events = (await t.http.get(`/v1/events?document_id=${doc.id}`).set(h).expect(200)).body.data.map((e: any) => e.type);
    expect(events).toEqual(['document.completed', 'participant.signed', 'document.viewed', 'document.sent']);
    const file = await t.http.get(`/v1/documents/${doc.id}/file`).set(h).expect(200);
    expect(file.headers['content-type']).toBe('application/pdf');
  });

  it('presents bodies from the process cache: a page of documents reads no blob from the store per document', async () => {
    const h = bearer(org.test);
    expect(t.infra.blobs).toBeInstanceOf(CachedBlobStore);
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) {
      ids.push((await t.http.post('/v1/documents').set(h).send({ title: `목록 ${i}`, content: `<p>본문 ${i}</p>` }).expect(201)).body.id);
    }
    const reads = jest.spyOn((t.infra.blobs as CachedBlobStore).inner, 'get');
    try {
      for (let round = 0; round < 2; round++) {
        const page = (await t.http.get('/v1/documents?limit=5').set(h).expect(200)).body;
        expect(page.data.map((d: { id: string }) => d.id).sort()).toEqual([...ids].sort());
        expect(page.data.map((d: { content: string }) => d.content).sort()).toEqual(ids.map((_, i) => `<p>본문 ${i}</p>`).sort());
      }
      expect(reads).not.toHaveBeenCalled();
    } finally {
      reads.mockRestore();
    }
  });
}
