import { TIMERS, TimerRow } from '@dojang/application';
import { documentStreamId } from '@dojang/domain';
import { client, expectError, expectStatus } from '../support/api-helpers';
import { TestApp } from '../support/test-app';
import { sendDocument, signAs, startDeliveryApp } from '../webhooks/webhook-test-kit';

const DAY = 24 * 3600e3;

describe('reminders', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startDeliveryApp();
  });
  afterAll(() => t.close());

  const settle = async () => {
    await t.infra.runner.trigger();
    await t.worker!.runner.trigger();
  };
  const reminders = async (key: string, documentId: string) =>
    expectStatus(await client(t, key).get(`/outbox?document_id=${documentId}&limit=100`), 200).body.data.filter((m: any) => m.kind === 'reminder');

  it('POST /documents/{id}/remind re-notifies only the participants whose turn it is, with a cooldown; 409 when nobody is pending', async () => {
    const org = await t.createOrg();
    const c = client(t, org.test);
    const doc = await sendDocument(c, {
      participants: [
        { name: '첫째', email: 'first@example.com', signing_order: 1 },
        { name: '둘째', email: 'second@example.com', signing_order: 2 },
        { name: '참조', email: 'cc@example.com', role: 'cc' },
      ],
    });
    const [first, second] = doc.participants;
    const res = expectStatus(await c.post(`/documents/${doc.id}/remind`), 200).body;
    expect(res).toMatchObject({ object: 'reminder', document_id: doc.id, participant_ids: [first.id] });
    await settle();
    const sent = await reminders(org.test, doc.id);
    expect(sent.map((m: any) => [m.participant_id, m.channel, m.to])).toEqual([[first.id, 'email', 'first@example.com']]);
    expect(sent[0].signing_url).toBe(first.signing_url);
    expect(sent[0].subject).toMatch(/알림|Reminder/i);

    const cooled = await c.post(`/documents/${doc.id}/remind`);
    expect([cooled.status, cooled.body.error.code]).toEqual([429, 'reminder_cooldown']);
    expect(cooled.body.error.message).toMatch(/try again in 3600 seconds/);
    t.clock!.advance(3600e3);
    await signAs(t, first.token);
    const next = expectStatus(await c.post(`/documents/${doc.id}/remind`), 200).body;
    expect(next.participant_ids).toEqual([second.id]);

    await signAs(t, second.token);
    t.clock!.advance(3600e3);
    const err = expectError(await c.post(`/documents/${doc.id}/remind`), 409, 'document_not_signable');
    expect(err.message).toMatch(/completed/);
  });

  it('sends automatic reminders every reminder_interval_days until expiry, from durable timers', async () => {
    const org = await t.createOrg();
    await t.admin.changeSettings(org.id, { reminder_interval_days: 1 });
    const c = client(t, org.test);
    const doc = await sendDocument(c, { send: { expires_in_days: 3 } });
    await settle();
    expect(await reminders(org.test, doc.id)).toEqual([]);

    // Day 1 and day 2 remind; day 3 is the deadline, so the document expires instead.
    const seen: number[] = [];
    for (let day = 1; day <= 4; day++) {
      t.clock!.advance(DAY - 1);
      await t.worker!.tick();
      await settle();
      expect((await reminders(org.test, doc.id)).length).toBe(seen[seen.length - 1] ?? 0);
      t.clock!.advance(1);
      await t.worker!.tick();
      await settle();
      seen.push((await reminders(org.test, doc.id)).length);
    }
    expect(seen).toEqual([1, 2, 2, 2]);
    expect(expectStatus(await c.get(`/documents/${doc.id}`), 200).body.status).toBe('expired');

    const stream = await t.infra.events.readStream(documentStreamId(doc.id));
    const reminded = stream.filter((e) => e.type === 'ReminderSent');
    expect(reminded.map((e) => [e.data.automatic, e.metadata.actor])).toEqual([
      [true, 'system'],
      [true, 'system'],
    ]);
    const timers = await t.infra.reads.find<TimerRow>(TIMERS, { where: { document_id: doc.id }, orderBy: [{ field: 'due_at', direction: 'asc' }] });
    expect(timers.map((x) => [x.kind, x.sequence, x.status, x.outcome])).toEqual([
      ['remind_document', 1, 'done', 'ReminderSent'],
      ['remind_document', 2, 'done', 'ReminderSent'],
      ['expire_document', 0, 'done', 'DocumentExpired'],
    ]);
  });

  it('stops automatic reminders once the document is signed, and skips one that would follow a manual reminder too closely', async () => {
    const org = await t.createOrg();
    await t.admin.changeSettings(org.id, { reminder_interval_days: 2 });
    const c = client(t, org.test);
    const a = await sendDocument(c, { send: { expires_in_days: 10 } });
    const b = await sendDocument(c, { send: { expires_in_days: 10 } });
    await settle();
    // a: reminded by hand just before its automatic reminder; b: signed.
    t.clock!.advance(2 * DAY - 60_000);
    expectStatus(await c.post(`/documents/${a.id}/remind`), 200);
    await signAs(t, b.participants[0].token);
    await settle();
    t.clock!.advance(60_000);
    expect(await t.worker!.tick()).toMatchObject({ fired: 0, noop: 1 });
    await settle();
    expect(await reminders(org.test, a.id)).toHaveLength(1);
    expect(await reminders(org.test, b.id)).toHaveLength(0);
    // The schedule goes on for a: two days later the next automatic one goes out.
    t.clock!.advance(2 * DAY);
    expect(await t.worker!.tick()).toMatchObject({ fired: 1 });
    await settle();
    expect(await reminders(org.test, a.id)).toHaveLength(2);
    const timersB = await t.infra.reads.find<TimerRow>(TIMERS, { where: { document_id: b.id } });
    expect(timersB.every((x) => x.status === 'canceled')).toBe(true);
  });

  it('sends no automatic reminders when the organization has none configured', async () => {
    const org = await t.createOrg();
    const c = client(t, org.test);
    const doc = await sendDocument(c, { send: { expires_in_days: 5 } });
    await settle();
    for (let day = 0; day < 4; day++) {
      t.clock!.advance(DAY);
      await t.worker!.tick();
    }
    await settle();
    expect(await reminders(org.test, doc.id)).toEqual([]);
    expect((await t.infra.reads.find<TimerRow>(TIMERS, { where: { document_id: doc.id } })).map((x) => x.kind)).toEqual(['expire_document']);
  });
});
