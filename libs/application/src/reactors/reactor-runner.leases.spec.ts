import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { randomUUID } from 'crypto';
import { StoredEvent } from '@dojang/event-store';
import { SqliteEventStore } from '@dojang/event-store/sqlite';
import { ReadStore } from '@dojang/read-store';
import { SqliteReadStore } from '@dojang/read-store/sqlite';
import { PostgresReadStore } from '@dojang/read-store/postgres';
import { createPostgresPool } from '@dojang/postgres';
import { POSTGRES_SKIP_MESSAGE, postgresTestServer, throwawayPostgresDatabase } from '@dojang/postgres/testing/postgres-test-database';
import { Pool } from 'pg';
import { ManualClock } from '../clock';
import { REACTOR_LEASES, REACTOR_RUNNERS, Reactor, ReactorLease, ReactorRunner } from './reactor-runner';

const LEASE_MS = 15_000;

/** Who handled what: one record shared by every runner's copy of a reactor, as workers share the receivers. */
type Handled = Array<{ reactor: string; runner: string; event_id: string }>;

class RecordingReactor implements Reactor {
  readonly handles = new Set(['Happened']);
  /** While set, react() waits for it (an event in flight, e.g. a slow mail server). */
  gate: Promise<void> | null = null;
  constructor(
    readonly name: string,
    private readonly runner: string,
    private readonly handled: Handled,
  ) {}
  async react(event: StoredEvent): Promise<void> {
    this.handled.push({ reactor: this.name, runner: this.runner, event_id: event.event_id });
    await this.gate;
  }
}

async function until(done: () => boolean): Promise<void> {
  for (let i = 0; i < 500 && !done(); i++) await new Promise((r) => setTimeout(r, 5));
  if (!done()) throw new Error('never happened');
}

/**
 * N workers share the reactors through leases in the read store: each reactor is run by one
 * runner at a time, a dead runner's reactors are taken over once its lease expired, and a runner
 * that lost its lease stops. Time is a ManualClock and the renewal timer is off: the test decides
 * when leases are maintained and when they expire. Only the ReadStore port is used, so the same
 * cases run on each read store.
 */
function leaseCases(name: string, openReads: (dir: string) => Promise<ReadStore>, closeReads: (reads: ReadStore) => Promise<void>) {
  describe(`ReactorRunner leases (several workers on one ${name} read store)`, () => {
    let dir: string;
    let events: SqliteEventStore;
    let reads: ReadStore;
    let clock: ManualClock;
    let handled: Handled;
    const runners: ReactorRunner[] = [];

    const append = async (n = 1): Promise<string[]> => {
      const ids: string[] = [];
      for (let i = 0; i < n; i++) {
        const event_id = randomUUID();
        await events.append(`s-${randomUUID()}`, [{ event_id, type: 'Happened', data: {}, metadata: { occurred_at: clock.now().toISOString(), actor: 'test', schema_version: 1 } }], 'no_stream');
        ids.push(event_id);
      }
      return ids;
    };
    const reactorsOf = new Map<string, RecordingReactor[]>();
    const runner = (owner: string, names = ['alpha', 'beta']) => {
      const reactors = names.map((n) => new RecordingReactor(n, owner, handled));
      reactorsOf.set(owner, reactors);
      const r = new ReactorRunner(events, reads, reactors, {
        clock,
        owner,
        leaseMs: LEASE_MS,
        leaseRenewIntervalMs: 0,
        // The ManualClock decides here (on PostgreSQL too): the store's clock has its own spec.
        storeClock: false,
      });
      runners.push(r);
      return r;
    };
    const settle = async (...rs: ReactorRunner[]) => {
      for (let i = 0; i < 2; i++) for (const r of rs) await r.trigger();
    };
    const by = (reactor: string) => handled.filter((h) => h.reactor === reactor);

    beforeEach(async () => {
      dir = fs.mkdtempSync(path.join(os.tmpdir(), 'dojang-leases-'));
      events = new SqliteEventStore(path.join(dir, 'events.sqlite'));
      reads = await openReads(dir);
      // A store shared by the cases (PostgreSQL) starts each one without leases, runners or positions.
      for (const collection of [REACTOR_LEASES, REACTOR_RUNNERS]) {
        await reads.ensureCollection({ name: collection });
        const rows = await reads.find(collection, { limit: 1000 });
        if (rows.length) await reads.commit(rows.map((r) => ({ op: 'delete' as const, collection, id: r.id })), {});
      }
      await reads.commit([], { 'reactor:alpha': 0, 'reactor:beta': 0 });
      clock = new ManualClock(new Date('2026-11-24T08:00:00.000Z'));
      handled = [];
    });
    afterEach(async () => {
      for (const r of runners.splice(0)) await r.stop();
      await events.close();
      await closeReads(reads);
      fs.rmSync(dir, { recursive: true, force: true });
    });

    it('two runners split the reactors between them, and every event reaches each reactor exactly once', async () => {
      const a = runner('worker-a');
      const b = runner('worker-b');
      await a.start();
      expect(a.heldReactors).toEqual(['alpha', 'beta']);
      await b.start();
      // a sees a second runner alive and hands back what is beyond its share (between two events,
      // in its pass); b takes it.
      await a.maintainLeases();
      await a.trigger();
      await b.maintainLeases();
      expect(a.heldReactors).toEqual(['alpha']);
      expect(b.heldReactors).toEqual(['beta']);

      const ids = await append(6);
      await settle(a, b);
      for (const reactor of ['alpha', 'beta']) {
        expect(by(reactor).map((h) => h.event_id).sort()).toEqual([...ids].sort());
      }
      expect(new Set(by('alpha').map((h) => h.runner))).toEqual(new Set(['worker-a']));
      expect(new Set(by('beta').map((h) => h.runner))).toEqual(new Set(['worker-b']));
    });

    it('hands a reactor back only between two of its events, with the position of the one in flight', async () => {
      const a = runner('worker-a');
      await a.start();
      let open: () => void = () => undefined;
      reactorsOf.get('worker-a')![1].gate = new Promise<void>((resolve) => (open = resolve));
      const [first] = await append(1);
      const pass = a.trigger();
      await until(() => by('beta').length === 1);
      // beta's event is in flight when a learns it must hand beta back.
      const b = runner('worker-b');
      await b.start();
      await a.maintainLeases();
      await b.maintainLeases();
      expect(b.heldReactors).toEqual([]);
      open();
      await pass;
      await a.trigger();
      await b.maintainLeases();
      expect(a.heldReactors).toEqual(['alpha']);
      expect(b.heldReactors).toEqual(['beta']);
      await settle(a, b);
      expect(by('beta')).toEqual([{ reactor: 'beta', runner: 'worker-a', event_id: first }]);
    });

    it("takes over a dead runner's reactors once its lease expired, from the position it saved", async () => {
      const [done] = await append(1);
      // What a worker SIGKILLed while holding both leases leaves behind: its rows, nothing else.
      await reads.ensureCollection({ name: REACTOR_LEASES });
      await reads.ensureCollection({ name: REACTOR_RUNNERS });
      const expires_at = new Date(clock.now().getTime() + LEASE_MS).toISOString();
      await reads.putIfVersion(REACTOR_RUNNERS, { id: 'dead-worker', expires_at }, null);
      for (const id of ['alpha', 'beta']) await reads.putIfVersion(REACTOR_LEASES, { id, owner: 'dead-worker', expires_at, position: 1 }, null);

      const b = runner('worker-b');
      await b.start();
      const waiting = await append(2);
      await settle(b);
      expect(b.heldReactors).toEqual([]);
      expect(handled).toEqual([]);

      clock.advance(LEASE_MS - 1);
      await b.maintainLeases();
      expect(b.heldReactors).toEqual([]);
      clock.advance(1);
      await b.maintainLeases();
      expect(b.heldReactors).toEqual(['alpha', 'beta']);
      await settle(b);
      for (const reactor of ['alpha', 'beta']) expect(by(reactor).map((h) => h.event_id)).toEqual(waiting);
      expect(handled.some((h) => h.event_id === done)).toBe(false);
      expect(await reads.get<ReactorLease>(REACTOR_LEASES, 'alpha')).toMatchObject({ owner: 'worker-b', position: 3 });
    });

    it('a runner that slept past its lease lets the reactor go instead of handling an event the new holder handles', async () => {
      const a = runner('worker-a', ['alpha']);
      await a.start();
      const [first] = await append(1);
      await settle(a);
      expect(by('alpha').map((h) => h.runner)).toEqual(['worker-a']);

      // a misses its renewals (a long pause); b finds the lease expired and takes it.
      clock.advance(LEASE_MS);
      const b = runner('worker-b', ['alpha']);
      await b.start();
      expect(b.heldReactors).toEqual(['alpha']);

      const [second] = await append(1);
      await settle(a, b);
      expect(a.heldReactors).toEqual([]);
      expect(by('alpha')).toEqual([
        { reactor: 'alpha', runner: 'worker-a', event_id: first },
        { reactor: 'alpha', runner: 'worker-b', event_id: second },
      ]);
    });

    it('a runner that stops hands its reactors back at once, with its position', async () => {
      const a = runner('worker-a');
      await a.start();
      const first = await append(2);
      await settle(a);
      const b = runner('worker-b');
      await b.start();
      expect(b.heldReactors).toEqual([]);
      await a.stop();
      await b.maintainLeases();
      expect(b.heldReactors).toEqual(['alpha', 'beta']);
      const later = await append(1);
      await settle(b);
      for (const reactor of ['alpha', 'beta']) {
        expect(by(reactor).map((h) => h.event_id)).toEqual([...first, ...later]);
        expect(by(reactor).map((h) => h.runner)).toEqual(['worker-a', 'worker-a', 'worker-b']);
      }
    });

    it('starts from the checkpoint a reactor had before leases existed', async () => {
      await append(2);
      await reads.commit([], { 'reactor:alpha': 2 });
      const later = await append(1);
      const a = runner('worker-a', ['alpha']);
      await a.start();
      await settle(a);
      expect(by('alpha').map((h) => h.event_id)).toEqual(later);
    });
  });
}

leaseCases(
  'SQLite',
  async (dir) => new SqliteReadStore(path.join(dir, 'read.sqlite')),
  (reads) => reads.close(),
);

const pgServer = postgresTestServer();
if (pgServer) {
  let pool: Pool;
  afterAll(async () => {
    await pool?.end();
  });
  const database = throwawayPostgresDatabase(pgServer, 'dojang_reactor_leases');
  beforeAll(() => {
    pool = createPostgresPool(database.url(), { max: 4, applicationName: 'reactor-leases-spec' });
  });
  leaseCases(
    'PostgreSQL',
    async () => {
      const store = new PostgresReadStore(pool);
      await store.init();
      return store;
    },
    // The pool is shared by the cases and ended once, after them.
    async () => undefined,
  );
} else {
  describe.skip(`ReactorRunner leases on PostgreSQL (${POSTGRES_SKIP_MESSAGE})`, () => {
    it('is skipped', () => undefined);
  });
}
