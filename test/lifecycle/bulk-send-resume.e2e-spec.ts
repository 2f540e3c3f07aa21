import { BulkSendReactor, BulkSendService, DocumentPdfService, TemplateSender, bulkRowDocumentId, systemClock } from '@dojang/application';
import { bulkSendDecider, bulkSendStreamId, organizationDecider, organizationStreamId } from '@dojang/domain';
import { client, expectError, expectStatus } from '../support/api-helpers';
import { employeeTemplate } from '../support/lifecycle';
import { startTestApp, TestApp } from '../support/test-app';

/**
 * A worker killed in the middle of a bulk send (issue 23 item 1): row 1 sent and recorded, row 2's
 * document made but its BulkSendRowSent never written, rows 3 and 4 untouched. The event is
 * delivered again (at least once) to a fresh reactor: exactly one document per row, the one made
 * before the crash kept, and a second delivery changes nothing.
 */
describe('bulk send resumes after a crash without duplicates or gaps', () => {
  let t: TestApp;
  beforeAll(async () => {
    // No background worker: the test plays the worker, crash included.
    t = await startTestApp({ worker: false });
  });
  afterAll(() => t.close());

  it('sends each row exactly once across a crash and a redelivery', async () => {
    const org = await t.createOrg('주식회사 도장');
    const c = client(t, org.test);
    const template = await employeeTemplate(c, { content: '<p>{{employee_name}}님의 근로계약서</p>', roles: [{ role: 'employee', auth: 'sms_pin' }] });
    const rows = [1, 2, 3, 4].map((n) => ({ row: n, roles: { employee: { name: `직원${n}`, phone: `010-5000-000${n}` } }, variables: { employee_name: `직원${n}` }, values: {}, metadata: {}, external_id: `E-${n}` }));
    const ctx = { actor: 'test', organization_id: org.id, livemode: false };
    const { id } = await t.app.get(BulkSendService).start({ organization_id: org.id, livemode: false, template_id: template.id, rows }, ctx);

    // The worker before the crash: row 1 done and recorded; row 2's document made, not recorded.
    const sender = new TemplateSender(t.infra, t.app.get(DocumentPdfService), systemClock);
    const sendRow = (n: number) =>
      sender.send({ organization_id: org.id, livemode: false, template_id: template.id, template_version: 1, roles: rows[n - 1].roles, variables: rows[n - 1].variables, document_id: bulkRowDocumentId(id, n) }, ctx);
    const first = await sendRow(1);
    await t.infra.commands.execute(bulkSendDecider, bulkSendStreamId(id), { type: 'RecordRowSent', row: 1, document_id: first.document_id, external_id: 'E-1', now: new Date().toISOString() }, ctx, () => new Date().toISOString());
    const orphan = await sendRow(2);
    expect(orphan.created).toBe(true);

    // The restarted worker is handed the job's events again from BulkSendStarted on, then each new one
    // (as the runner would: every event of the stream, in order, at least once).
    const reactor = new BulkSendReactor(t.infra, sender, systemClock);
    const deliverAll = async (from = 0) => {
      for (let i = from; ; i++) {
        const events = await t.infra.events.readStream(bulkSendStreamId(id));
        if (i >= events.length) return;
        if (reactor.handles.has(events[i].type)) await reactor.react(events[i]);
      }
    };
    await deliverAll();
    const after = async () => (await t.infra.commands.load(bulkSendDecider, bulkSendStreamId(id))).state;
    const state = await after();
    expect(state.status).toBe('completed');
    expect(state.sent).toEqual({ 1: first.document_id, 2: orphan.document_id, 3: bulkRowDocumentId(id, 3), 4: bulkRowDocumentId(id, 4) });
    // One DocumentCreated per row's stream: nothing made twice.
    for (let n = 1; n <= 4; n++) {
      const created = (await t.infra.events.readStream(`document-${bulkRowDocumentId(id, n)}`)).filter((e) => e.type === 'DocumentCreated');
      expect([n, created.length]).toEqual([n, 1]);
    }

    // At least once: every event once more changes nothing.
    const before = (await t.infra.events.readStream(bulkSendStreamId(id))).length;
    await deliverAll();
    expect((await t.infra.events.readStream(bulkSendStreamId(id))).length).toBe(before);
    await t.infra.runner.catchUp();
    const docs = expectStatus(await c.get('/documents?limit=100'), 200).body.data.filter((d: { from_template: string }) => d.from_template === template.id);
    expect(docs).toHaveLength(4);
  });

  it('a cancel stops the rows not yet sent; the ones sent stay sent', async () => {
    const org = await t.createOrg('취소 회사');
    const c = client(t, org.test);
    const template = expectStatus(
      await c.post('/templates', { name: '동의서', content: '<p>{{name}}</p>', roles: [{ role: 'employee', auth: 'none' }], fields: [{ role: 'employee', type: 'signature', page: 1, x: 10, y: 80, width: 30, height: 8 }] }),
      201,
    ).body;
    const rows = [1, 2, 3].map((n) => ({ roles: { employee: { name: `직원${n}`, email: `e${n}@example.com` } }, variables: { name: `직원${n}` } }));
    const job = expectStatus(await c.post('/bulk_sends', { template_id: template.id, rows }), 200).body;
    // One row per reaction, so the cancel lands between two rows.
    const reactor = new BulkSendReactor(t.infra, new TemplateSender(t.infra, t.app.get(DocumentPdfService), systemClock), systemClock, { window: 1 });
    const events = async () => t.infra.events.readStream(bulkSendStreamId(job.id));
    // The worker sends row 1, then the sender cancels.
    await reactor.react((await events())[0]);
    const canceled = expectStatus(await c.post(`/bulk_sends/${job.id}/cancel`), 200).body;
    expect(canceled).toMatchObject({ status: 'canceled', counts: { pending: 0, sent: 1, failed: 0, canceled: 2 } });
    // Every event delivered (again): nothing more is sent.
    for (const e of await events()) if (reactor.handles.has(e.type)) await reactor.react(e);
    expect((await events()).map((e) => e.type)).toEqual(['BulkSendStarted', 'BulkSendRowSent', 'BulkSendCanceled']);
    expect((await t.infra.events.readStream(`document-${bulkRowDocumentId(job.id, 2)}`)).length).toBe(0);
  });

  it('a live job holds credits for its valid rows from its start: another job is refused while they are held, a cancel gives back what was not sent', async () => {
    const org = await t.createOrg('예약 회사', 'team');
    await t.admin.grantCredits(org.id, 5, 'purchase');
    const live = client(t, org.live);
    const template = expectStatus(
      await live.post('/templates', { name: '동의서', content: '<p>{{name}}</p>', roles: [{ role: 'employee', auth: 'none' }], fields: [{ role: 'employee', type: 'signature', page: 1, x: 10, y: 80, width: 30, height: 8 }] }),
      201,
    ).body;
    const rows = (n: number) => Array.from({ length: n }, (_, i) => ({ roles: { employee: { name: `직원${i + 1}`, email: `r${i + 1}@example.com` } }, variables: { name: `직원${i + 1}` } }));
    // 4 rows, one refused at validation (no e-mail, no phone): 3 held of 5.
    const withBad = rows(4);
    withBad[1] = { roles: { employee: { name: '연락처 없음' } }, variables: { name: 'x' } } as never;
    const job = expectStatus(await live.post('/bulk_sends', { template_id: template.id, rows: withBad, skip_invalid_rows: true }), 200).body;
    const organization = async () => (await t.infra.commands.load(organizationDecider, organizationStreamId(org.id))).state;
    expect(await organization()).toMatchObject({ credits_reserved: 3, reservations: { [job.id]: { count: 3, settled: 0 } } });
    // 2 left: a job of 3 is refused, naming what is held, and nothing is recorded for it.
    const refused = expectError(await live.post('/bulk_sends', { template_id: template.id, rows: rows(3) }), 402, 'insufficient_credits');
    expect(String(refused.message)).toMatch(/3 held by bulk sends/);
    expect((await organization()).credits_reserved).toBe(3);

    // The worker (played here) sends one row; then the job is canceled: all it held is free again.
    const reactor = new BulkSendReactor(t.infra, new TemplateSender(t.infra, t.app.get(DocumentPdfService), systemClock), systemClock, { window: 1 });
    await reactor.react((await t.infra.events.readStream(bulkSendStreamId(job.id)))[1]);
    expect(await organization()).toMatchObject({ credits_reserved: 2, reservations: { [job.id]: { count: 3, settled: 1 } } });
    expectStatus(await live.post(`/bulk_sends/${job.id}/cancel`), 200);
    expect(await organization()).toMatchObject({ credits_reserved: 0, reservations: {} });
    // Delivered again, the cancel settles nothing twice.
    const stream = await t.infra.events.readStream(bulkSendStreamId(job.id));
    await reactor.react(stream[stream.length - 1]);
    expect((await t.infra.events.readStream(organizationStreamId(org.id))).filter((e) => e.type === 'CreditReservationSettled')).toHaveLength(2);
    // The 3-row job fits now.
    expectStatus(await live.post('/bulk_sends', { template_id: template.id, rows: rows(3) }), 200);
  });
});

