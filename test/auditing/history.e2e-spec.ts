import Database from 'better-sqlite3';
import * as path from 'path';
import { ManualClock } from '@dojang/application';
import { GENESIS_HASH } from '@dojang/event-store';
import { documentStreamId } from '@dojang/domain';
import { Client, client, expectStatus } from '../support/api-helpers';
import { expectApiError, outboxOf, signer } from '../support/lifecycle';
import { bearer, startTestApp, TestApp } from '../support/test-app';
import { unzipSync, zipSync } from 'fflate';
import { verifyBundle } from '@dojang/verifier';
import { binary } from '../files/file-helpers';

const MINUTE = 60 * 1000;
const KIM = { name: '김철수', phone: '01012345678', email: 'kim.chulsoo@example.com', auth: 'sms_pin' };
const LEE = { name: '이영희', phone: '01098765432', email: 'lee.younghee@example.com', auth: 'none' };

/** The detail as it would be shown to an auditor: signing links are never part of a past state. */
const withoutLinks = (d: any) => ({ ...d, participants: d.participants.map((p: any) => ({ ...p, signing_url: null })) });

describe('document history and time travel', () => {
  let t: TestApp;
  let clock: ManualClock;
  let c: Client;
  let other: Client;
  let id: string;
  /** The detail as GET /documents/{id} answered right after each step, and the instant of that step. */
  const snapshots: Array<{ at: string; detail: any }> = [];
  let beforeCreation: string;
  let orgId: string;

  const step = async (action: () => Promise<unknown>) => {
    clock.advance(MINUTE);
    await action();
    snapshots.push({ at: clock.now().toISOString(), detail: expectStatus(await c.get(`/documents/${id}`), 200).body });
  };

  beforeAll(async () => {
    t = await startTestApp({ manualClock: true });
    clock = t.clock!;
    const org = await t.createOrg();
    orgId = org.id;
    c = client(t, org.test);
    other = client(t, (await t.createOrg('Other')).test);
    beforeCreation = clock.now().toISOString();
    clock.advance(MINUTE);
    id = expectStatus(await c.post('/documents', { title: '용역계약서', content: '<p>본문</p>' }), 201).body.id;
    snapshots.push({ at: clock.now().toISOString(), detail: expectStatus(await c.get(`/documents/${id}`), 200).body });
    let kim = '';
    let lee = '';
    await step(async () => (kim = expectStatus(await c.post(`/documents/${id}/participants`, { ...KIM, signing_order: 1 }), 201).body.id));
    await step(async () => (lee = expectStatus(await c.post(`/documents/${id}/participants`, { ...LEE, signing_order: 2 }), 201).body.id));
    const field = (participant_id: string, x: number) => ({ participant_id, type: 'signature', page: 1, x, y: 70, width: 20, height: 8 });
    await step(async () => expectStatus(await c.put(`/documents/${id}/fields`, { fields: [field(kim, 10), field(lee, 50)] }), 200));
    await step(async () => expectStatus(await c.post(`/documents/${id}/send`, {}), 200));
    const sent = snapshots[snapshots.length - 1].detail;
    const token = (pid: string) => sent.participants.find((p: any) => p.id === pid).signing_url.split('/sign/')[1];
    await step(async () => expectStatus(await signer(t, token(kim)).view(), 200));
    await step(async () => expectStatus(await signer(t, token(kim)).pin(), 200));
    const pin = (await outboxOf(t, c, id, '&channel=sms')).find((m) => m.kind === 'pin').pin;
    await step(async () => expectStatus(await signer(t, token(kim)).verify(pin), 200));
    await step(async () => expectStatus(await signer(t, token(kim)).sign(), 200));
    await step(async () => expectStatus(await signer(t, token(lee)).sign(), 200));
    await t.worker!.runner.catchUp();
  }, 120_000);
  afterAll(() => t.close());

  describe('GET /documents/{id}/history', () => {
    it('lists the stored events in order with revision, type, time, actor and the hash chain, and verifies it', async () => {
      const stored = await t.infra.events.readStream(documentStreamId(id));
      const body = expectStatus(await c.get(`/documents/${id}/history?limit=100`), 200).body;
      expect(body).toMatchObject({ object: 'list', document_id: id, has_more: false });
      expect(body.data.map((e: any) => [e.revision, e.type])).toEqual(stored.map((e) => [e.stream_revision, e.type]));
      expect(body.data.map((e: any) => e.type)).toEqual([
        'DocumentCreated',
        'ParticipantAdded',
        'ParticipantAdded',
        'FieldsReplaced',
        'DocumentSent',
        'SigningLinkOpened',
        'PinIssued',
        'PinVerified',
        'ParticipantSigned',
        'SigningLinkOpened', // signing without opening the page first still records the open
        'ParticipantSigned',
        'DocumentCompleted',
        'DocumentCertified', // the worker certifies the conclusion right after it
      ]);
      body.data.forEach((e: any, i: number) => {
        expect(Object.keys(e).sort()).toEqual(['actor', 'data', 'hash', 'id', 'object', 'occurred_at', 'prev_hash', 'revision', 'type']);
        expect(e.prev_hash).toBe(i === 0 ? GENESIS_HASH : body.data[i - 1].hash);
        expect(e.hash).toBe(stored[i].metadata.hash);
        expect(e.occurred_at).toBe(stored[i].metadata.occurred_at);
      });
      expect(body.data[0].actor).toMatch(/^key_/);
      // A participant's own act by their name, as /audit and the certificate name it (issue 32 item 7).
      expect(body.data[8].actor).toBe(snapshots[1].detail.participants[0].name);
      expect(body.chain).toEqual({ head_hash: stored[stored.length - 1].metadata.hash, event_count: stored.length, verified: true });
    });

    it('masks personal data as the audit trail does and never shows a PIN or token hash', async () => {
      const stored = await t.infra.events.readStream(documentStreamId(id));
      const text = JSON.stringify(expectStatus(await c.get(`/documents/${id}/history?limit=100`), 200).body);
      const secrets = [KIM.phone, LEE.phone, KIM.email, LEE.email];
      for (const e of stored) {
        if (e.type === 'DocumentSent') secrets.push(...(e.data.links as Array<{ token_hash: string }>).map((l) => l.token_hash));
        if (e.type === 'PinIssued') secrets.push(String(e.data.pin_hash));
      }
      expect(secrets).toHaveLength(7);
      for (const secret of secrets) expect(text).not.toContain(secret);
      expect(text).toContain('010-****-5678');
      expect(text).toContain('k**********@example.com');
      expect(text).toContain('"pin_hash":"[redacted]"');
    });

    it('pages with limit and a revision cursor, and every page carries the whole chain verdict', async () => {
      const all = expectStatus(await c.get(`/documents/${id}/history?limit=100`), 200).body.data;
      const pages: any[] = [];
      let cursor: number | undefined;
      for (;;) {
        const page = expectStatus(await c.get(`/documents/${id}/history?limit=4${cursor === undefined ? '' : `&starting_after=${cursor}`}`), 200).body;
        expect(page.chain).toMatchObject({ verified: true, event_count: all.length });
        pages.push(page.data.map((e: any) => e.revision));
        if (!page.has_more) break;
        cursor = page.data[page.data.length - 1].revision;
      }
      expect(pages).toEqual([[0, 1, 2, 3], [4, 5, 6, 7], [8, 9, 10, 11], [12]]);
    });

    it('refuses bad paging parameters with 400 invalid_parameter', async () => {
      for (const [q, param] of [['limit=0', 'limit'], ['limit=101', 'limit'], ['starting_after=-1', 'starting_after'], ['starting_after=abc', 'starting_after'], ['include=everything', 'include']]) {
        const err = expectApiError(await c.get(`/documents/${id}/history?${q}`), 400, 'invalid_parameter', 'invalid_request_error');
        expect(err.param).toBe(param);
      }
    });

    it("is 404 for another organization's document and for an unknown one", async () => {
      expectApiError(await other.get(`/documents/${id}/history`), 404, 'document_not_found');
      expectApiError(await c.get('/documents/00000000-0000-4000-8000-000000000000/history'), 404, 'document_not_found');
      expectApiError(await c.get('/documents/not-a-uuid/history'), 404, 'document_not_found');
    });
  });

  describe('as_of', () => {
    it('GET /documents/{id}?as_of= answers exactly the detail of that instant, folded from the stream', async () => {
      for (const { at, detail } of snapshots) {
        const then = expectStatus(await c.get(`/documents/${id}?as_of=${encodeURIComponent(at)}`), 200).body;
        expect(then).toEqual(withoutLinks(detail));
      }
      // Between two steps, the earlier one holds.
      const mid = new Date(Date.parse(snapshots[4].at) + MINUTE / 2).toISOString();
      const between = expectStatus(await c.get(`/documents/${id}?as_of=${mid}`), 200).body;
      expect(between).toEqual(withoutLinks(snapshots[4].detail));
      expect(between.status).toBe('sent');
      expect(between.participants.map((p: any) => p.status)).toEqual(['pending', 'pending']);
      expect(between.fields).toHaveLength(2);
    });

    it('accepts any ISO 8601 form with an offset, and a date alone as midnight UTC', async () => {
      const at = snapshots[2].at; // e.g. 2026-03-02T09:03:00.000Z
      const kst = new Date(Date.parse(at) + 9 * 60 * MINUTE).toISOString().replace('Z', '+09:00').replace('.000', '');
      expect(expectStatus(await c.get(`/documents/${id}?as_of=${encodeURIComponent(kst)}`), 200).body).toEqual(withoutLinks(snapshots[2].detail));
      expect(expectStatus(await c.get(`/documents/${id}?as_of=2099-01-01`), 200).body.status).toBe('completed');
    });

    it('is 404 before the document was created', async () => {
      expectApiError(await c.get(`/documents/${id}?as_of=${encodeURIComponent(beforeCreation)}`), 404, 'document_not_found');
      expectApiError(await c.get(`/documents/${id}/history?as_of=${encodeURIComponent(beforeCreation)}`), 404, 'document_not_found');
    });

    it('refuses an instant that is not ISO 8601 with an offset: 400 invalid_parameter on as_of', async () => {
      for (const bad of ['yesterday', '2026-03-02T09:00:00', '2026-13-45T00:00:00Z', '1700000000', '', '2026-03-02T09:00:00Z&as_of=2026-03-03T09:00:00Z']) {
        const res = await c.get(`/documents/${id}?as_of=${bad.includes('&') ? bad : encodeURIComponent(bad)}`);
        const err = expectApiError(res, 400, 'invalid_parameter', 'invalid_request_error');
        expect(err.param).toBe('as_of');
        expectApiError(await c.get(`/documents/${id}/history?as_of=${encodeURIComponent(bad)}`), 400, 'invalid_parameter');
      }
    });

    it('/history?as_of= lists only the events up to then, with the document as it was', async () => {
      const at = snapshots[4].at; // just after send
      const body = expectStatus(await c.get(`/documents/${id}/history?as_of=${encodeURIComponent(at)}`), 200).body;
      expect(body.data.map((e: any) => e.type)).toEqual(['DocumentCreated', 'ParticipantAdded', 'ParticipantAdded', 'FieldsReplaced', 'DocumentSent']);
      expect(body.as_of).toBe(at);
      expect(body.document).toEqual(withoutLinks(snapshots[4].detail));
      expect(body.chain).toMatchObject({ verified: true, event_count: 13 });
    });
  });

  describe('deliveries as chained evidence', () => {
    it('records every message sent for the document as a MessageDelivered event in delivery-<id>, once', async () => {
      const outbox = await outboxOf(t, c, id);
      expect(outbox.length).toBeGreaterThanOrEqual(4);
      const body = expectStatus(await c.get(`/documents/${id}/history?include=deliveries`), 200).body;
      const deliveries = body.deliveries;
      expect(deliveries.object).toBe('list');
      expect(deliveries.chain).toMatchObject({ verified: true, event_count: outbox.length });
      expect(deliveries.data.every((e: any) => e.type === 'MessageDelivered')).toBe(true);
      const facts = deliveries.data.map((e: any) => e.data);
      expect(facts.map((f: any) => [f.kind, f.channel, f.participant_id]).sort()).toEqual(outbox.map((m) => [m.kind, m.channel, m.participant_id]).sort());
      expect(facts.map((f: any) => f.kind)).toEqual(expect.arrayContaining(['signing_request', 'pin', 'completed']));
      for (const f of facts) {
        expect(f).toMatchObject({ document_id: id, provider_message_id: 'outbox' });
        expect(f.message_id).toMatch(/^msg_/);
        expect(f.recipient_masked).toMatch(/\*/);
      }
      const text = JSON.stringify(deliveries);
      for (const secret of [KIM.phone, LEE.phone, KIM.email, LEE.email]) expect(text).not.toContain(secret);
      // A message sent twice under one key (a saga replay, two workers) is recorded once.
      const pin = outbox.find((m) => m.kind === 'pin');
      const resend = { ...pin, key: 'resent-pin', kind: 'pin', livemode: false, organization_id: orgId } as never;
      await t.worker!.notifier.send(resend);
      await t.worker!.notifier.send(resend);
      const again = expectStatus(await c.get(`/documents/${id}/history?include=deliveries`), 200).body.deliveries;
      expect(again.chain.event_count).toBe(outbox.length + 1);
    });

    it('without include=deliveries the history has no deliveries', async () => {
      expect(expectStatus(await c.get(`/documents/${id}/history`), 200).body).not.toHaveProperty('deliveries');
    });
  });

  describe('the evidence bundle, read with an auditor key', () => {
    const bundleOf = async (key: string) => (await t.http.get(`/v1/documents/${id}/evidence`).set(bearer(key)).buffer(true).parse(binary).expect(200)).body as Buffer;
    let auditorKey: string;
    let fullKey: string;
    beforeAll(async () => {
      auditorKey = (await t.admin.issueKey(orgId, 'test', 'auditor')).secret;
      fullKey = (await t.admin.issueKey(orgId, 'test')).secret;
    });

    it('masks what /history masks: no PIN or token hash, no full phone or e-mail, and dojang-verify still passes', async () => {
      const stored = await t.infra.events.readStream(documentStreamId(id));
      const secrets = [KIM.phone, LEE.phone, KIM.email, LEE.email];
      for (const e of stored) {
        if (e.type === 'DocumentSent') secrets.push(...(e.data.links as Array<{ token_hash: string }>).map((l) => l.token_hash));
        if (e.type === 'PinIssued') secrets.push(String(e.data.pin_hash));
      }
      expect(secrets).toHaveLength(7);
      const zip = await bundleOf(auditorKey);
      const files = unzipSync(new Uint8Array(zip));
      const text = Object.entries(files)
        .filter(([name]) => !name.endsWith('.pdf'))
        .map(([, bytes]) => Buffer.from(bytes).toString('utf8'))
        .join('\n');
      for (const secret of secrets) expect(text).not.toContain(secret);
      expect(text).toContain('"pin_hash":"[redacted]"');
      expect(text).toContain('010-****-5678');
      const manifest = JSON.parse(Buffer.from(files['manifest.json']).toString('utf8'));
      const masked = stored.filter((e) => ['ParticipantAdded', 'DocumentSent', 'PinIssued'].includes(e.type)).map((e) => e.stream_revision);
      expect(manifest.redacted_events).toEqual(masked);
      const verdict = verifyBundle(zip);
      expect(verdict.checks.filter((x) => x.status === 'fail')).toEqual([]);
      expect(verdict.ok).toBe(true);
      expect(verdict.checks.find((x) => x.id === 'hash_chain')?.en).toContain(`${masked.length} masked event(s)`);
      expect(verdict.checks.find((x) => x.id === 'seal')?.status).toBe('pass');
      expect(verdict.checks.find((x) => x.id === 'head_proof')?.status).toBe('pass');
    });

    it("still catches an edit to an event that is not masked, and a masked event's content changed and re-hashed", async () => {
      const files = unzipSync(new Uint8Array(await bundleOf(auditorKey)));
      const lines = Buffer.from(files['events.jsonl']).toString('utf8').trim().split('\n').map((l) => JSON.parse(l));
      const signedAt = lines.findIndex((e) => e.type === 'ParticipantSigned');
      const edited = lines.map((e, i) => (i === signedAt ? { ...e, data: { ...e.data, ip: '198.51.100.9' } } : e));
      const rezip = (events: any[]) => {
        const copy = { ...files, 'events.jsonl': new Uint8Array(Buffer.from(events.map((e) => JSON.stringify(e)).join('\n') + '\n')) };
        return zipSync(copy);
      };
      expect(verifyBundle(rezip(edited)).ok).toBe(false);
      // A masked event whose hash is replaced to hide an edit breaks the links to the next event and the sealed heads.
      const sentAt = lines.findIndex((e) => e.type === 'DocumentSent');
      const rehashed = lines.map((e, i) => (i === sentAt ? { ...e, data: { ...e.data, expires_at: '2099-01-01T00:00:00.000Z' }, metadata: { ...e.metadata, hash: 'f'.repeat(64) } } : e));
      const verdict = verifyBundle(rezip(rehashed));
      expect(verdict.ok).toBe(false);
      expect(verdict.checks.find((x) => x.id === 'hash_chain')?.status).toBe('fail');
    });

    it('a full key still gets the events exactly as stored', async () => {
      const zip = await bundleOf(fullKey);
      const files = unzipSync(new Uint8Array(zip));
      expect(JSON.parse(Buffer.from(files['manifest.json']).toString('utf8')).redacted_events).toBeUndefined();
      expect(Buffer.from(files['events.jsonl']).toString('utf8')).toContain(KIM.phone);
      expect(verifyBundle(zip).ok).toBe(true);
    });
  });

  describe('an altered stored event', () => {
    it('is reported: verified false and the revision where the chain breaks', async () => {
      const db = new Database(path.join(t.dataDir, 'events.sqlite'));
      try {
        const changed = db.prepare(`UPDATE events SET data = json_set(data, '$.title', '위조된 계약서') WHERE stream_id = ? AND stream_revision = 0`).run(documentStreamId(id));
        expect(changed.changes).toBe(1);
      } finally {
        db.close();
      }
      const body = expectStatus(await c.get(`/documents/${id}/history?limit=2`), 200).body;
      expect(body.chain).toMatchObject({ verified: false, broken_at: 0, event_count: 13 });
      expect(body.chain.reason).toMatch(/altered/);
      expect(body.data[0].data.title).toBe('위조된 계약서');
    });
  });
});
