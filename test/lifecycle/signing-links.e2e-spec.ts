import { createHash } from 'crypto';
import Database from 'better-sqlite3';
import { MESSAGE_LOG, MessageLogRow } from '@dojang/application';
import * as path from 'path';
import { Client, client, expectStatus } from '../support/api-helpers';
import { draftWith, expectApiError, filesContaining, outboxOf, sentWith, signer } from '../support/lifecycle';
import { startTestApp, TestApp, TestOrg } from '../support/test-app';

const sha256 = (s: string) => createHash('sha256').update(s).digest('hex');

describe('signing links', () => {
  let t: TestApp;
  let org: TestOrg;
  let c: Client;
  let other: Client;

  beforeAll(async () => {
    t = await startTestApp();
    org = await t.createOrg();
    c = client(t, org.test);
    other = client(t, (await t.createOrg('남의회사')).test);
  });
  afterAll(() => t.close());

  it('are unique per participant and per document, and carry at least 128 random bits', async () => {
    const parts = [{ name: 'A' }, { name: 'B' }, { name: 'C', role: 'reviewer' as const }, { name: 'D', role: 'cc' as const }];
    const one = await sentWith(c, parts);
    const two = await sentWith(c, parts);
    const urls = [...Object.values(one.p), ...Object.values(two.p)].map((p) => p.url);
    expect(new Set(urls).size).toBe(8);
    for (const p of [...Object.values(one.p), ...Object.values(two.p)]) {
      expect(p.url).toMatch(/^https?:\/\/[^/]+\/sign\/[A-Za-z0-9_-]+$/);
      // base64url: 6 bits a character
      expect(p.token.length * 6).toBeGreaterThanOrEqual(128);
    }
    // each link opens its own participant's session, and only that one
    for (const name of ['A', 'B', 'C', 'D']) {
      const view = expectStatus(await signer(t, one.p[name].token).view(), 200).body;
      expect(view.participant.id).toBe(one.p[name].id);
      expect(view.document.id).toBe(one.id);
      const text = JSON.stringify(view);
      for (const x of Object.values(one.p)) if (x.name !== name) expect(text).not.toContain(x.token);
    }
  });

  it('are shown to the owning organization only while the document is sent', async () => {
    const d = await draftWith(c, [{ name: 'A' }, { name: 'B' }]);
    const draft = expectStatus(await c.get(`/documents/${d.id}`), 200).body;
    expect(draft.participants.map((p: any) => p.signing_url)).toEqual([null, null]);

    const sent = await sentWith(c, [{ name: 'A' }, { name: 'B' }]);
    const read = expectStatus(await c.get(`/documents/${sent.id}`), 200).body;
    expect(read.participants.map((p: any) => p.signing_url)).toEqual([sent.p.A.url, sent.p.B.url]);

    // another organization sees nothing: not the document, its file, its audit trail, its events
    expectApiError(await other.get(`/documents/${sent.id}`), 404, 'document_not_found');
    expectApiError(await other.get(`/documents/${sent.id}/file`), 404, 'document_not_found');
    expectApiError(await other.get(`/documents/${sent.id}/audit`), 404, 'document_not_found');
    expectApiError(await other.post(`/documents/${sent.id}/remind`), 404, 'document_not_found');
    expect(expectStatus(await other.get(`/events?document_id=${sent.id}`), 200).body.data).toEqual([]);
    const otherList = JSON.stringify(expectStatus(await other.get('/documents?limit=100'), 200).body);
    expect(otherList).not.toContain(sent.id);
    expect(otherList).not.toContain(sent.p.A.token);
    // nor does the live mode of the same organization (separate worlds)
    expectApiError(await client(t, org.live).get(`/documents/${sent.id}`), 404, 'document_not_found');

    // once the document leaves "sent", the links are no longer shown
    expectStatus(await signer(t, sent.p.A.token).sign(), 200);
    expect(expectStatus(await c.get(`/documents/${sent.id}`), 200).body.participants[1].signing_url).toBe(sent.p.B.url);
    expectStatus(await signer(t, sent.p.B.token).sign(), 200);
    const done = expectStatus(await c.get(`/documents/${sent.id}`), 200).body;
    expect(done.status).toBe('completed');
    expect(done.participants.map((p: any) => p.signing_url)).toEqual([null, null]);
  });

  it('reject unknown, malformed and altered tokens with 404 signing_link_invalid', async () => {
    const d = await sentWith(c, [{ name: 'A' }]);
    const token = d.p.A.token;
    const flipped = token.slice(0, -1) + (token.endsWith('A') ? 'B' : 'A');
    for (const bad of [flipped, 'x'.repeat(43), 'short', token + 'A'.repeat(30), encodeURIComponent('../../etc/passwd')]) {
      expectApiError(await signer(t, bad).view(), 404, 'signing_link_invalid');
      expectApiError(await signer(t, bad).sign(), 404, 'signing_link_invalid');
    }
    expect(expectStatus(await c.get(`/documents/${d.id}`), 200).body.participants[0].status).toBe('pending');
  });

  it('are never stored in plain text: only their SHA-256 is (participants without contacts, so nothing is sent)', async () => {
    const d = await sentWith(c, [{ name: 'A' }, { name: 'B', role: 'reviewer' }]);
    // use the links, so every read model that a link touches has been written
    expectStatus(await signer(t, d.p.A.token).view(), 200);
    expectStatus(await signer(t, d.p.A.token).sign(), 200);
    expectStatus(await signer(t, d.p.B.token).view(), 200);
    await t.infra.runner.catchUp();
    await t.worker!.runner.catchUp();
    for (const p of Object.values(d.p)) {
      expect(filesContaining(t.dataDir, p.token)).toEqual([]);
      // the grep itself works: the hash the store keeps instead is found
      expect(filesContaining(t.dataDir, sha256(p.token)).length).toBeGreaterThan(0);
    }
  });

  it('are never stored in plain text in live mode, where e-mail and SMS really go out (message log is masked)', async () => {
    const live = client(t, org.live);
    const d = await sentWith(live, [{ name: 'A', email: 'a.signer@example.com', phone: '01099998888' }]);
    await t.infra.runner.catchUp();
    await t.worker!.runner.catchUp();
    expect(filesContaining(t.dataDir, d.p.A.token)).toEqual([]);
    expect(filesContaining(t.dataDir, sha256(d.p.A.token)).length).toBeGreaterThan(0);
    // the request really went through the live notifier: logged masked, with no body and no link
    const log = await t.infra.reads.find<MessageLogRow>(MESSAGE_LOG, { where: { document_id: d.id } });
    expect(log.map((m) => [m.kind, m.channel, m.to_masked]).sort()).toEqual([
      ['signing_request', 'email', 'a*******@example.com'],
      ['signing_request', 'sms', '010-****-8888'],
    ]);
  });

  it('in test mode appear in plain text only in the outbox, which exists to show what would have been sent', async () => {
    const d = await sentWith(c, [{ name: 'A', email: 'a@example.com', phone: '01012345678' }]);
    const messages = await outboxOf(t, c, d.id);
    expect(messages.map((m) => m.signing_url)).toEqual([d.p.A.url, d.p.A.url]);
    expect(filesContaining(t.dataDir, d.p.A.token).every((f) => f.startsWith('read.sqlite'))).toBe(true);
    const db = new Database(path.join(t.dataDir, 'read.sqlite'), { readonly: true });
    try {
      const tables = (db.prepare(`SELECT name FROM sqlite_master WHERE type = 'table' AND name LIKE 'rm\\_%' ESCAPE '\\'`).all() as Array<{ name: string }>).map((r) => r.name);
      expect(tables).toContain('rm_outbox');
      const holding = tables.filter((name) => (db.prepare(`SELECT count(*) AS n FROM "${name}" WHERE doc LIKE ?`).get(`%${d.p.A.token}%`) as { n: number }).n > 0);
      expect(holding).toEqual(['rm_outbox']);
    } finally {
      db.close();
    }
  });
});
