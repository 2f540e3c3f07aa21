import { OrphanedReservationSweeper } from '@dojang/application';
import { BulkSendCommand, ORPHANED_RESERVATION_GRACE_MS, OrganizationCommand, bulkSendDecider, bulkSendStreamId, organizationDecider, organizationStreamId } from '@dojang/domain';
import { API_TEST_OPTIONS, client, expectError, expectStatus } from '../support/api-helpers';
import { employeeTemplate } from '../support/lifecycle';
import { describeOnEachStore, startTestAppOn } from '../support/each-store';
import { bearer, startTestApp, TestApp } from '../support/test-app';

/**
 * A live bulk send reserves credits on its organization's stream, then appends BulkSendStarted on
 * its own. A process killed between the two left a reservation no job would ever settle: the
 * organization's credits held for good, and its later bulk sends refused 402. The worker's sweep
 * releases such a reservation once it is past its grace period, and never one whose job exists.
 */
describeOnEachStore('a credit reservation no bulk send was started under,', (store) => {
  const postgres = store === 'PostgreSQL';
  let t: TestApp;
  beforeAll(async () => {
    // No worker: the test plays it (the sweep), and the running job stays running with its hold.
    t = await startTestAppOn(store, { manualClock: true, worker: false, config: API_TEST_OPTIONS.config });
  }, 180_000);
  afterAll(async () => {
    await t?.close();
  });

  it('is released by the sweep past its grace period, once however many sweep; a running job\'s is untouched', async () => {
    const org = await t.createOrg(`고아 예약 ${postgres}`, 'team');
    await t.admin.grantCredits(org.id, 5, 'purchase');
    const live = client(t, org.live);
    const template = await employeeTemplate(live);
    const rows = (n: number, tag: string) => Array.from({ length: n }, (_, i) => ({ roles: { employee: { name: `직원${i + 1}`, email: `${tag}${i + 1}@example.com` } }, variables: { name: `직원${i + 1}` } }));
    const now = () => t.clock!.now().toISOString();
    const organization = async () => (await t.infra.commands.load(organizationDecider, organizationStreamId(org.id))).state;
    const releases = async () => (await t.infra.events.readStream(organizationStreamId(org.id))).filter((e) => e.type === 'CreditReservationReleased');

    // What a process killed after its reservation and before BulkSendStarted leaves: a hold of 3, no job.
    const ORPHAN = 'bulk_orphaned0000000000000000';
    const reserve: OrganizationCommand = { type: 'ReserveCredits', reservation_id: ORPHAN, count: 3, now: now() };
    await t.infra.commands.decide(organizationDecider, organizationStreamId(org.id), reserve, { actor: 'test', organization_id: org.id, livemode: true }, now);
    expect(await t.infra.events.readStream(bulkSendStreamId(ORPHAN))).toEqual([]);
    // A job that did start holds the 2 left; it is still running (no worker sends its rows).
    const job = expectStatus(await live.post('/bulk_sends', { template_id: template.id, rows: rows(2, 'running') }), 200).body;
    expect(await organization()).toMatchObject({ credits_reserved: 5, reservations: { [ORPHAN]: { count: 3, settled: 0 }, [job.id]: { count: 2, settled: 0 } } });
    expectError(await live.post('/bulk_sends', { template_id: template.id, rows: rows(3, 'refused') }), 402, 'insufficient_credits');

    const sweeper = () => new OrphanedReservationSweeper(t.infra, t.clock!);
    // Within the grace period the job might still be on its way: nothing is released.
    t.clock!.advance(ORPHANED_RESERVATION_GRACE_MS - 1000);
    await t.infra.runner.catchUp();
    expect(await sweeper().sweep()).toEqual({ released: 0, withJob: 0, failed: 0 });
    expect(await releases()).toHaveLength(0);

    // Past it: two workers sweep at once (at least once); the orphan is released once.
    t.clock!.advance(2000);
    const [a, b] = await Promise.all([sweeper().sweep(), sweeper().sweep()]);
    expect(a.released + b.released).toBe(1);
    expect(a.failed + b.failed).toBe(0);
    expect((await releases()).map((e) => e.data)).toEqual([{ reservation_id: ORPHAN, released: 3, reason: 'bulk_send_not_started', released_at: now() }]);
    // The orphan's id is fenced: a start of it still on its way (a frozen process resuming) is refused.
    expect((await t.infra.events.readStream(bulkSendStreamId(ORPHAN))).map((e) => e.type)).toEqual(['BulkSendAbandoned']);
    expect((await t.infra.events.readStream(bulkSendStreamId(job.id))).map((e) => e.type)).toEqual(['BulkSendStarted']);
    const lateStart: BulkSendCommand = {
      type: 'StartBulkSend', bulk_send_id: ORPHAN, organization_id: org.id, livemode: true, template_id: template.id, template_version: 1, row_count: 3,
      rows_blob: { sha256: '0'.repeat(64), byte_size: 2 }, title: null, message: null, expires_in_days: null, invalid_rows: [], now: now(),
    };
    await expect(t.infra.commands.decide(bulkSendDecider, bulkSendStreamId(ORPHAN), lateStart, { actor: 'test', organization_id: org.id, livemode: true }, now, { newStream: true })).rejects.toMatchObject({ code: 'bulk_send_abandoned' });
    // The running job's hold is untouched: its own rows settle it.
    expect(await organization()).toMatchObject({ credits_reserved: 2, reservations: { [job.id]: { count: 2, settled: 0 } } });
    expect((await organization()).reservations).not.toHaveProperty(ORPHAN);

    // The 3 credits are free again: the bulk send refused before is accepted.
    await t.infra.runner.catchUp();
    const accepted = expectStatus(await live.post('/bulk_sends', { template_id: template.id, rows: rows(3, 'accepted') }), 200).body;
    expect((await organization()).credits_reserved).toBe(5);

    // Swept again, long after: the jobs' reservations are theirs, nothing more is released.
    t.clock!.advance(ORPHANED_RESERVATION_GRACE_MS * 3);
    await t.infra.runner.catchUp();
    expect(await sweeper().sweep()).toEqual({ released: 0, withJob: 2, failed: 0 });
    expect(await releases()).toHaveLength(1);
    expect(await organization()).toMatchObject({ credits_reserved: 5, reservations: { [job.id]: { count: 2 }, [accepted.id]: { count: 3 } } });
  });

  /** A bulk send under an Idempotency-Key whose first attempt reserves and then fails: its BulkSendStarted always, its give-back too when asked. */
  async function firstAttemptFails(tag: string, giveBackFails: boolean) {
    const org = await t.createOrg(`${tag} ${postgres}`, 'team');
    await t.admin.grantCredits(org.id, 3, 'purchase');
    const live = client(t, org.live);
    const template = await employeeTemplate(live);
    const rows = [1, 2, 3].map((n) => ({ roles: { employee: { name: `직원${n}`, email: `${tag}${n}@example.com` } }, variables: { name: `직원${n}` } }));
    const organization = async () => (await t.infra.commands.load(organizationDecider, organizationStreamId(org.id))).state;
    const post = () => t.http.post('/v1/bulk_sends').set(bearer(org.live)).set('Idempotency-Key', `${tag}-${postgres}`).send({ template_id: template.id, rows });
    const decide = t.infra.commands.decide.bind(t.infra.commands);
    jest.spyOn(t.infra.commands, 'decide').mockImplementation((async (decider: unknown, streamId: string, ...rest: unknown[]) => {
      const command = rest[0] as { type?: string };
      if (streamId.startsWith('bulk-send-') || (giveBackFails && command?.type === 'SettleReservation')) throw new Error('connection terminated');
      return (decide as (...a: unknown[]) => Promise<unknown>)(decider, streamId, ...rest);
    }) as never);
    jest.spyOn(console, 'error').mockImplementation(() => undefined);
    // 500: the key is given back, so the client's retry runs the route again.
    expect((await post()).status).toBe(500);
    jest.restoreAllMocks();
    return { org, live, template, rows, organization, post };
  }

  it('a retry under the same Idempotency-Key after the sweep gave its first attempt\'s hold back is refused: its id is fenced, nothing is held', async () => {
    const { organization, post } = await firstAttemptFails('swept-retry', true);
    const [orphan] = Object.keys((await organization()).reservations ?? {});
    expect(await organization()).toMatchObject({ credits_reserved: 3, reservations: { [orphan]: { count: 3 } } });
    t.clock!.advance(ORPHANED_RESERVATION_GRACE_MS);
    await t.infra.runner.catchUp();
    expect((await new OrphanedReservationSweeper(t.infra, t.clock!).sweep()).released).toBe(1);
    await t.infra.runner.catchUp();
    const retry = await post();
    expect([retry.status, retry.body.error?.code]).toEqual([409, 'bulk_send_abandoned']);
    expect((await t.infra.events.readStream(bulkSendStreamId(orphan))).map((e) => e.type)).toEqual(['BulkSendAbandoned']);
    expect(await organization()).toMatchObject({ credits_reserved: 0, reservations: {} });
  });

  it('a retry under the same Idempotency-Key after its first attempt gave its own hold back holds the credits again for the job it starts', async () => {
    const { live, template, rows, organization, post } = await firstAttemptFails('given-back-retry', false);
    // The first attempt's catch gave its hold back; its reservation is answered as landed on retry.
    expect(await organization()).toMatchObject({ credits_reserved: 0, reservations: {} });
    await t.infra.runner.catchUp();
    const retry = await post();
    expect(retry.status).toBe(200);
    // Before, the job ran holding nothing: a concurrent send could spend the same credits.
    expect(await organization()).toMatchObject({ credits_reserved: 3, reservations: { [retry.body.id]: { count: 3, settled: 0 } } });
    await t.infra.runner.catchUp();
    expectError(await live.post('/bulk_sends', { template_id: template.id, rows: rows.slice(0, 1) }), 402, 'insufficient_credits');
  });
});

describe('the worker sweeps orphaned credit reservations', () => {
  let t: TestApp;
  // No background loops (tickIntervalMs 0): the test calls the worker's sweep itself.
  beforeAll(async () => {
    t = await startTestApp({ manualClock: true, worker: { tickIntervalMs: 0 } });
  });
  afterAll(() => t.close());

  it('Worker.sweepReservations gives a reservation without a job back past its grace period', async () => {
    const org = await t.createOrg('워커 스윕', 'team');
    await t.admin.grantCredits(org.id, 2, 'purchase');
    const now = () => t.clock!.now().toISOString();
    const reserve: OrganizationCommand = { type: 'ReserveCredits', reservation_id: 'bulk_orphanedbyworker00000000', count: 2, now: now() };
    await t.infra.commands.decide(organizationDecider, organizationStreamId(org.id), reserve, { actor: 'test', organization_id: org.id, livemode: true }, now);
    t.clock!.advance(ORPHANED_RESERVATION_GRACE_MS);
    await t.infra.runner.catchUp();
    expect(await t.worker!.sweepReservations()).toEqual({ released: 1, withJob: 0, failed: 0 });
    expect((await t.infra.commands.load(organizationDecider, organizationStreamId(org.id))).state).toMatchObject({ credits_reserved: 0, reservations: {} });
  });
});
