import { bearer, useTestApp } from '../support/test-app';
import { solidPng } from './images';

describe('usage and credits', () => {
  const t = useTestApp({ manualClock: true });

  /** A draft with one signer (no PIN) and a signature field, ready to send. */
  async function draft(key: string) {
    const h = bearer(key);
    const doc = (await t.http.post('/v1/documents').set(h).send({ title: '계약서', content: '<p>본문</p>' })).body;
    const p = (await t.http.post(`/v1/documents/${doc.id}/participants`).set(h).send({ name: '홍길동', email: 'hong@example.com', auth: 'none' })).body;
    await t.http.put(`/v1/documents/${doc.id}/fields`).set(h).send({ fields: [{ participant_id: p.id, type: 'signature', page: 1, x: 10, y: 70, width: 20, height: 8 }] });
    return doc.id as string;
  }
  const send = (key: string, id: string) => t.http.post(`/v1/documents/${id}/send`).set(bearer(key)).send({});
  async function complete(key: string, id: string) {
    const doc = (await t.http.get(`/v1/documents/${id}`).set(bearer(key))).body;
    const token = String(doc.participants[0].signing_url).split('/sign/')[1];
    const res = await t.http.post(`/v1/signing/${token}/sign`).send({ consent: true, signature: solidPng() });
    expect(res.body.document?.status).toBe('completed');
    // Usage is booked by the worker from DocumentCompleted; then the organization projection follows.
    await t.worker!.runner.catchUp();
    await t.infra.runner.catchUp();
  }
  const usage = async (key: string) => (await t.http.get('/v1/organization').set(bearer(key))).body.usage;

  it('a team workspace needs credits: 402 without, ok with 1.5, and completion deducts 1 (0.5 left)', async () => {
    const org = await t.createOrg('Team Co', 'team');
    expect(await usage(org.live)).toMatchObject({ free_signatures_per_month: 0, free_signatures_remaining: 0, credit_balance: 0 });
    const id = await draft(org.live);
    const refused = await send(org.live, id);
    expect(refused.status).toBe(402);
    expect(refused.body.error.code).toBe('insufficient_credits');
    const sr = await t.http.post('/v1/signature_requests').set(bearer(org.live)).set('Idempotency-Key', 'team-sr').send({ title: 'x', content: '<p>x</p>', recipient: { email: 'a@example.com' } });
    expect(sr.status).toBe(402);

    await t.admin.grantCredits(org.id, 1.5, 'purchase');
    expect((await usage(org.live)).credit_balance).toBe(1.5);
    const sent = await send(org.live, id);
    expect(sent.status).toBe(200);
    // Sending deducts nothing; the counterpart's signature does.
    expect((await usage(org.live)).credit_balance).toBe(1.5);
    await complete(org.live, id);
    expect((await usage(org.live)).credit_balance).toBe(0.5);
    // 0.5 is not enough for another live send.
    expect((await send(org.live, await draft(org.live))).body.error.code).toBe('insufficient_credits');
  });

  it('a personal workspace uses its 3 free signatures of the month first, then credits', async () => {
    const org = await t.createOrg('Personal', 'personal');
    await t.admin.grantCredits(org.id, 2, 'purchase');
    expect(await usage(org.live)).toMatchObject({ period: '2026-03', free_signatures_per_month: 3, free_signatures_remaining: 3, credit_balance: 2 });
    for (let i = 0; i < 3; i++) {
      const id = await draft(org.live);
      expect((await send(org.live, id)).status).toBe(200);
      await complete(org.live, id);
    }
    expect(await usage(org.live)).toMatchObject({ free_signatures_remaining: 0, credit_balance: 2 });
    const fourth = await draft(org.live);
    expect((await send(org.live, fourth)).status).toBe(200);
    await complete(org.live, fourth);
    expect(await usage(org.live)).toMatchObject({ free_signatures_remaining: 0, credit_balance: 1 });
    // Next month the free count is back.
    t.clock!.set('2026-04-01T09:00:00.000Z');
    expect(await usage(org.live)).toMatchObject({ period: '2026-04', free_signatures_remaining: 3, credit_balance: 1 });
  });

  it('test mode never deducts and never needs credits', async () => {
    const org = await t.createOrg('Tester', 'team');
    const id = await draft(org.test);
    expect((await send(org.test, id)).status).toBe(200);
    await complete(org.test, id);
    expect(await usage(org.test)).toMatchObject({ credit_balance: 0 });
    const events = await t.infra.events.readStream(`organization-${org.id}`);
    expect(events.filter((e) => e.type === 'SignatureUsageRecorded')).toHaveLength(0);
  });

  it('books a completion once even when the worker replays it', async () => {
    const org = await t.createOrg('Replay', 'team');
    await t.admin.grantCredits(org.id, 3, 'purchase');
    const id = await draft(org.live);
    await send(org.live, id);
    await complete(org.live, id);
    const { UsageReactor } = await import('@dojang/application/usage/usage.reactor');
    const completed = (await t.infra.events.readStream(`document-${id}`)).find((e) => e.type === 'DocumentCompleted')!;
    await new UsageReactor(t.infra.events, t.infra.commands).react(completed);
    await t.infra.runner.catchUp();
    expect((await usage(org.live)).credit_balance).toBe(2);
  });
});
