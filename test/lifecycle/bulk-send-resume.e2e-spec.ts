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
    await t.infra.commands.decide(bulkSendDecider, bulkSendStreamId(id), { type: 'RecordRowSent', row: 1, document_id: first.document_id, external_id: 'E-1', now: new Date().toISOString() }, ctx, () => new Date().toISOString());
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

  /** A job of `n` one-signer rows started through the service (no worker runs: the test plays it). */
  const startJob = async (name: string, n: number, livemode = false) => {
    const org = await t.createOrg(name, 'team');
    if (livemode) await t.admin.grantCredits(org.id, n, 'purchase');
    const c = client(t, livemode ? org.live : org.test);
    const template = await employeeTemplate(c, { content: '<p>{{employee_name}}님의 근로계약서</p>', roles: [{ role: 'employee', auth: 'none' }] });
    const rows = Array.from({ length: n }, (_, i) => ({ row: i + 1, roles: { employee: { name: `직원${i + 1}`, email: `w${i + 1}@example.com` } }, variables: { employee_name: `직원${i + 1}` }, values: {}, metadata: {}, external_id: null }));
    const ctx = { actor: 'test', organization_id: org.id, livemode };
    const { id } = await t.app.get(BulkSendService).start({ organization_id: org.id, livemode, template_id: template.id, rows }, ctx);
    return { id, org, stream: bulkSendStreamId(id), sender: new TemplateSender(t.infra, t.app.get(DocumentPdfService), systemClock) };
  };
  /** Each row's document made once (one DocumentCreated), and the job's stream holds one outcome per row. */
  const expectOneDocumentPerRow = async (id: string, n: number) => {
    const state = (await t.infra.commands.load(bulkSendDecider, bulkSendStreamId(id))).state;
    expect(state).toMatchObject({ status: 'completed', sent_count: n, failed_count: 0 });
    for (let row = 1; row <= n; row++) {
      expect([row, state.sent[row]]).toEqual([row, bulkRowDocumentId(id, row)]);
      const created = (await t.infra.events.readStream(`document-${bulkRowDocumentId(id, row)}`)).filter((e) => e.type === 'DocumentCreated');
      expect([row, created.length]).toEqual([row, 1]);
    }
    const types = (await t.infra.events.readStream(bulkSendStreamId(id))).map((e) => e.type);
    expect(types.filter((type) => type === 'BulkSendRowSent')).toHaveLength(n);
    expect(types.filter((type) => type === 'BulkSendCompleted')).toHaveLength(1);
  };

  /**
   * Delivers the job's events to `reactor` in order, each once, as the runner would, and counts the
   * reactor's reads of `counted` (the test's own reads are not counted): how many events, and how
   * many reads of the whole stream.
   */
  const reactThrough = async (stream: string, reactor: BulkSendReactor, counted: string) => {
    let reacting = false;
    const reads = { events: 0, whole: 0 };
    const readStream = t.infra.events.readStream.bind(t.infra.events);
    const spy = jest.spyOn(t.infra.events, 'readStream').mockImplementation(async (...args) => {
      const events = await readStream(...args);
      if (reacting && args[0] === counted) {
        reads.events += events.length;
        if (!args[1]?.fromRevision) reads.whole++;
      }
      return events;
    });
    try {
      for (let i = 0; ; i++) {
        const events = await readStream(stream);
        if (i >= events.length) break;
        if (!reactor.handles.has(events[i].type)) continue;
        reacting = true;
        await reactor.react(events[i]).finally(() => (reacting = false));
      }
    } finally {
      spy.mockRestore();
    }
    return reads;
  };

  it("reads only the job's events appended since its last window, not its whole stream per window", async () => {
    const rows = 24;
    const { id, stream, sender } = await startJob('창구 회사', rows);
    const reads = await reactThrough(stream, new BulkSendReactor(t.infra, sender, systemClock, { window: 2 }), stream);
    await expectOneDocumentPerRow(id, rows);
    const length = (await t.infra.events.readStream(stream)).length;
    // 12 windows. Reading the whole stream twice per window read 2 × (1 + 3 + … + 23) ≈ 290
    // events. Now: one whole read when the job is first seen, each window only what was appended
    // since (nothing: its own last append is kept), and one whole read for each outcome of the
    // last append delivered after the job completed (it is forgotten then, and settled again).
    expect(reads.whole).toBeLessThanOrEqual(3);
    expect(reads.events).toBeLessThanOrEqual(3 * length);
  });

  it("settles a live job's credits per window reading only what its organization's stream gained since, not the whole stream", async () => {
    const rows = 12;
    const { id, org, stream, sender } = await startJob('정산 회사', rows, true);
    const orgStream = organizationStreamId(org.id);
    const reads = await reactThrough(stream, new BulkSendReactor(t.infra, sender, systemClock, { window: 2 }), orgStream);
    await expectOneDocumentPerRow(id, rows);
    // Every row settled: nothing held any more.
    expect((await t.infra.commands.load(organizationDecider, orgStream)).state).toMatchObject({ credits_reserved: 0, reservations: {} });
    // 6 windows, each settling: the organization's stream was read whole 8 times; now once, when
    // the worker first settles for the organization.
    expect(reads.whole).toBe(1);
  });

  it('a row whose text no store can keep fails, and the job completes instead of retrying it forever (issue 33 §12)', async () => {
    const { id, stream, sender } = await startJob('저장 불가 회사', 3);
    // As a job recorded before rows were checked for such text: row 2 brings a NUL to the store,
    // which refuses its append (UnstorableEventError) on every try.
    const legacy = Object.create(sender) as TemplateSender;
    legacy.send = (input, ...rest) => sender.send(input.document_id === bulkRowDocumentId(id, 2) ? { ...input, metadata: { note: '메모\u0000' } } : input, ...rest);
    await reactThrough(stream, new BulkSendReactor(t.infra, legacy, systemClock, { window: 2 }), stream);
    const state = (await t.infra.commands.load(bulkSendDecider, stream)).state;
    expect(state).toMatchObject({ status: 'completed', sent_count: 2, failed_count: 1 });
    const failure = (await t.infra.events.readStream(stream)).find((e) => e.type === 'BulkSendRowFailed');
    expect(failure?.data).toMatchObject({ row: 2, code: 'invalid_parameter', message: expect.stringContaining('Row 2') });
    expect((await t.infra.events.readStream(`document-${bulkRowDocumentId(id, 2)}`)).length).toBe(0);
  });

  it('two workers on one job, each keeping its state between windows: every row sent once, whoever records it', async () => {
    const rows = 8;
    const { id, stream, sender } = await startJob('두 작업자 회사', rows);
    const events = () => t.infra.events.readStream(stream);
    const b = new BulkSendReactor(t.infra, sender, systemClock, { window: 2 });
    // Worker A is slow: while it sends its first window, worker B (handed the same BulkSendStarted)
    // sends and records the same rows, so A's append finds them recorded and writes nothing.
    let raced = false;
    const slowSender = Object.create(sender) as TemplateSender;
    slowSender.send = async (...args: Parameters<TemplateSender['send']>) => {
      if (!raced) {
        raced = true;
        await b.react((await events())[0]);
      }
      return sender.send(...args);
    };
    const a = new BulkSendReactor(t.infra, slowSender, systemClock, { window: 2 });
    await a.react((await events())[0]);
    expect((await events()).map((e) => e.type)).toEqual(['BulkSendStarted', 'BulkSendRowSent', 'BulkSendRowSent']);
    // Then both are handed every event, in turns, at least once: A goes on from what B wrote.
    for (let i = 0; ; i++) {
      const all = await events();
      if (i >= all.length) break;
      if (!a.handles.has(all[i].type)) continue;
      await (i % 2 ? a : b).react(all[i]);
      await (i % 2 ? b : a).react(all[i]);
    }
    await expectOneDocumentPerRow(id, rows);
    // A redelivery of everything to both, and to a fresh worker, changes nothing.
    const before = (await events()).length;
    const fresh = new BulkSendReactor(t.infra, sender, systemClock, { window: 2 });
    for (const e of await events()) if (a.handles.has(e.type)) for (const r of [a, b, fresh]) await r.react(e);
    expect((await events()).length).toBe(before);
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

