import { randomUUID } from 'crypto';
import { Client, Pool, PoolClient } from 'pg';
import { createPostgresPool } from '@dojang/postgres';
import { POSTGRES_SKIP_MESSAGE, postgresTestServer, throwawayPostgresDatabase } from '@dojang/postgres/testing/postgres-test-database';
import { lostReplyProxy } from '@dojang/postgres/testing/lost-reply-proxy';
import { AppendOutcomeUnknownError, DuplicateEventError, NewEvent, StoredEvent, WrongExpectedRevisionError } from './event-store.port';
import { verifyChain } from './hash-chain';
import { PostgresEventStore, PostgresEventStoreOptions } from './postgres-event-store.adapter';

const server = postgresTestServer();

/** Holds its first append's transaction open (positions drawn, lock held) until `release()`. */
class HeldOpenEventStore extends PostgresEventStore {
  private held = false;
  private open!: () => void;
  private gate = new Promise<void>((resolve) => (this.open = resolve));
  private signalReached!: () => void;
  readonly reached = new Promise<void>((resolve) => (this.signalReached = resolve));

  release(): void {
    this.open();
  }

  protected override async beforeCommit(): Promise<void> {
    if (this.held) return;
    this.held = true;
    this.signalReached();
    await this.gate;
  }
}

/** Records what `SHOW synchronous_commit` says inside each append transaction. */
class SettingsProbeEventStore extends PostgresEventStore {
  readonly seen: string[] = [];

  protected override async beforeCommit(client: PoolClient): Promise<void> {
    const { rows } = await client.query<{ synchronous_commit: string }>('SHOW synchronous_commit');
    this.seen.push(rows[0].synchronous_commit);
  }
}

if (server) {
  describe('PostgresEventStore', () => {
    const database = throwawayPostgresDatabase(server, 'dojang_events_pg');

    describe('with one pool', () => {
      let pool: Pool;
      const opened: PostgresEventStore[] = [];
      const quiet: PostgresEventStoreOptions = { log: () => undefined };

      beforeAll(() => {
        pool = createPostgresPool(database.url(), { max: 4, applicationName: 'dojang-events-spec' });
      });
      afterEach(async () => {
        await Promise.all(opened.splice(0).map((s) => s.close()));
      });
      afterAll(() => pool.end());

      async function open<T extends PostgresEventStore>(store: T, init = true): Promise<T> {
        opened.push(store);
        if (init) await store.init();
        return store;
      }

      describe('followers never skip an event', () => {
        it('does not show an append that started later before an earlier one still open, and shows both once it commits', async () => {
          const first = await open(new HeldOpenEventStore(pool, quiet));
          const second = await open(new PostgresEventStore(pool, quiet));
          const follower = await open(new PostgresEventStore(pool, quiet));

          // A follower as the projection runner is one: a plain-number checkpoint, moved to the
          // last position it read.
          let checkpoint = await follower.headPosition();
          const seen: StoredEvent[] = [];
          const catchUp = async () => {
            for (;;) {
              const page = await follower.readAll(checkpoint, 100);
              if (page.length === 0) return;
              seen.push(...page);
              checkpoint = page[page.length - 1].global_position;
            }
          };

          const a = event();
          const b = event();
          const appendA = first.append(`held-${randomUUID()}`, [a], 'no_stream');
          await first.reached; // A has drawn its position and holds its transaction open.
          const appendB = second.append(`later-${randomUUID()}`, [b], 'no_stream');
          // B is now either committed (nothing orders it after A) or queued behind A: wait for
          // whichever happens, then read as a follower would.
          const lockWait = { stop: false };
          await Promise.race([appendB, backendWaitingForAdvisoryLock(pool, lockWait)]);
          lockWait.stop = true;
          await catchUp();
          expect(seen.map((e) => e.event_id)).toEqual([]);

          first.release();
          const [resultA, resultB] = await Promise.all([appendA, appendB]);
          await catchUp();
          expect(seen.map((e) => e.event_id)).toEqual([a.event_id, b.event_id]);
          expect(resultB.position).toBeGreaterThan(resultA.position);
        });
      });

      describe('a stalled lock holder', () => {
        it('is ended by the server, so the other writers go on and its own appends are refused', async () => {
          const stalled = await open(new HeldOpenEventStore(pool, { ...quiet, appendIdleTimeoutMs: 200 }));
          const writer = await open(new PostgresEventStore(pool, quiet));
          const stuck = event();
          const appendStuck = stalled.append(`stalled-${randomUUID()}`, [stuck], 'no_stream');
          await stalled.reached; // holds the append lock and sits idle in its transaction
          const next = writer.append(`after-${randomUUID()}`, [event()], 'no_stream');
          const outcome = await Promise.race([
            next.then(() => 'appended'),
            sleep(10_000).then(() => 'still waiting for the append lock after 10 s'),
          ]);
          expect(outcome).toBe('appended');
          stalled.release();
          await expect(appendStuck).rejects.toThrow();
          const { rows } = await pool.query('SELECT 1 FROM events WHERE event_id = $1', [stuck.event_id]);
          expect(rows).toEqual([]);
        });
      });

      describe('group append', () => {
        it('writes the appends of one event-loop round in one transaction', async () => {
          const store = await open(new PostgresEventStore(pool, quiet));
          const streams = Array.from({ length: 8 }, () => `group-${randomUUID()}`);
          await Promise.all(streams.map((s) => store.append(s, [event(), event()], 'no_stream')));
          const { rows } = await pool.query<{ tx: string }>(
            `SELECT DISTINCT xmin::text AS tx FROM events WHERE stream_id = ANY($1)`,
            [streams],
          );
          expect(rows).toHaveLength(1);
        });

        it('rejects only the append the database refuses, and lands the rest of its group', async () => {
          const store = await open(new PostgresEventStore(pool, quiet));
          const [bad, good1, good2] = [`nul-${randomUUID()}`, `ok-${randomUUID()}`, `ok-${randomUUID()}`];
          // jsonb cannot hold U+0000: the group's single INSERT fails, and the store retries each
          // append in its own savepoint.
          const results = await Promise.allSettled([
            store.append(good1, [event()], 'no_stream'),
            store.append(bad, [event('Happened', { title: 'a\u0000b' })], 'no_stream'),
            store.append(good2, [event(), event()], 'no_stream'),
          ]);
          expect(results.map((r) => r.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
          expect(await store.readStream(bad)).toEqual([]);
          expect(await store.readStream(good1)).toHaveLength(1);
          expect(await store.readStream(good2)).toHaveLength(2);
        });
      });

      describe('one round trip per group', () => {
        /** Statements sent on any connection of the pool while `work` runs. */
        async function statements(work: () => Promise<unknown>): Promise<string[]> {
          const sent: string[] = [];
          const original = Client.prototype.query;
          const spy = jest.spyOn(Client.prototype, 'query').mockImplementation(function (this: Client, ...args: unknown[]) {
            sent.push(String(typeof args[0] === 'string' ? args[0] : (args[0] as { text?: string })?.text));
            return (original as (...a: unknown[]) => unknown).apply(this, args) as never;
          } as never);
          try {
            await work();
          } finally {
            spy.mockRestore();
          }
          return sent;
        }

        it('sends a group of new streams and of streams it has just read as one query', async () => {
          const store = await open(new PostgresEventStore(pool, quiet));
          const existing = `known-${randomUUID()}`;
          await store.append(existing, [event()], 'no_stream');
          const [stored] = await store.readStream(existing);
          const sent = await statements(() =>
            Promise.all([
              store.append(`fresh-${randomUUID()}`, [event()], 'no_stream'),
              store.append(existing, [event()], stored.stream_revision),
              store.append(`fresh-${randomUUID()}`, [event(), event()], 'no_stream'),
            ]),
          );
          expect(sent).toHaveLength(1);
          expect(sent[0]).toMatch(/^BEGIN;.*pg_advisory_xact_lock.*INSERT INTO events.*COMMIT$/s);
          const chain = await store.readStream(existing);
          expect(chain.map((e) => e.stream_revision)).toEqual([0, 1]);
          expect(verifyChain(chain).intact).toBe(true);
        });

        it('stores text the SQL literal must escape exactly as given', async () => {
          const store = await open(new PostgresEventStore(pool, quiet));
          const stream = `quotes-${randomUUID()}`;
          const tricky = { title: `it's "quoted" \\ back\\slash $1 $& $' \n 도장 \u{1F58B}`, nested: { a: "'); DROP TABLE events; --" } };
          await store.append(stream, [event('Happened', tricky)], 'no_stream');
          const [back] = await store.readStream(stream);
          expect(back.data).toEqual(tricky);
          expect(verifyChain(await store.readStream(stream)).intact).toBe(true);
        });

        it('refuses, as a wrong revision, an append planned from a head another instance has since moved', async () => {
          const ours = await open(new PostgresEventStore(pool, quiet));
          const theirs = await open(new PostgresEventStore(pool, quiet), false);
          const stream = `moved-${randomUUID()}`;
          await ours.append(stream, [event()], 'no_stream');
          await ours.readStream(stream); // remembers revision 0 as the head
          await theirs.append(stream, [event()], 0);
          const late = event();
          await expect(ours.append(stream, [late], 0)).rejects.toBeInstanceOf(WrongExpectedRevisionError);
          const { rows } = await pool.query('SELECT 1 FROM events WHERE event_id = $1', [late.event_id]);
          expect(rows).toEqual([]);
          // An 'any' append reads the head it does not know and lands after the other's event.
          await ours.append(stream, [event()], 'any');
          const chain = await ours.readStream(stream);
          expect(chain.map((e) => e.stream_revision)).toEqual([0, 1, 2]);
          expect(verifyChain(chain).intact).toBe(true);
        });

        it("refuses 'no_stream' on a stream it knows without writing, and an event id stored by another instance", async () => {
          const ours = await open(new PostgresEventStore(pool, quiet));
          const theirs = await open(new PostgresEventStore(pool, quiet), false);
          const stream = `dup-${randomUUID()}`;
          await ours.append(stream, [event()], 'no_stream');
          await expect(ours.append(stream, [event()], 'no_stream')).rejects.toBeInstanceOf(WrongExpectedRevisionError);
          const taken = event();
          await theirs.append(`other-${randomUUID()}`, [taken], 'no_stream');
          const results = await Promise.allSettled([
            ours.append(`new-${randomUUID()}`, [taken], 'no_stream'),
            ours.append(`new-${randomUUID()}`, [event()], 'no_stream'),
          ]);
          expect(results[0].status).toBe('rejected');
          expect((results[0] as PromiseRejectedResult).reason).toBeInstanceOf(DuplicateEventError);
          expect(results[1].status).toBe('fulfilled');
        });
      });

      describe('a unique violation on an event id when the connection drops', () => {
        it('is never answered as the raw violation: the append is settled like any connection lost mid-append (issue 33 finding 6)', async () => {
          const ours = await open(new PostgresEventStore(pool, quiet));
          const taken = event();
          await ours.append(`first-${randomUUID()}`, [taken], 'no_stream');
          const original = Client.prototype.query;
          // The INSERT fails on events_event_id_key, then the connection is gone: its rollback fails.
          const spy = jest.spyOn(Client.prototype, 'query').mockImplementation(function (this: Client, ...args: unknown[]) {
            if (args[0] === 'ROLLBACK TO SAVEPOINT group_append') return Promise.reject(new Error('Connection terminated unexpectedly')) as never;
            return (original as (...a: unknown[]) => unknown).apply(this, args) as never;
          } as never);
          const fresh = `fresh-${randomUUID()}`;
          let results: PromiseSettledResult<unknown>[];
          try {
            results = await Promise.allSettled([ours.append(`again-${randomUUID()}`, [taken], 'no_stream'), ours.append(fresh, [event()], 'no_stream')]);
          } finally {
            spy.mockRestore();
          }
          for (const r of results) {
            expect(r.status).toBe('rejected');
            const reason = (r as PromiseRejectedResult).reason as { code?: string; message: string };
            expect(reason.code).not.toBe('23505');
            expect(reason.message).toMatch(/^Connection terminated/);
          }
          // Nothing of the group landed (its transaction ended with its connection): a retry is safe.
          expect(await ours.readStream(fresh)).toEqual([]);
          await ours.append(fresh, [event()], 'no_stream');
        });
      });

      describe('wake-ups', () => {
        it('wakes another instance through NOTIFY, with no polling', async () => {
          const listening = await open(new PostgresEventStore(pool, { ...quiet, pollIntervalMs: 3_600_000 }));
          const writer = await open(new PostgresEventStore(pool, quiet), false);
          const signal = listen(listening);
          await writer.append(`notify-${randomUUID()}`, [event()], 'no_stream');
          await signal.next(10_000);
          signal.stop();
        });

        it('keeps noticing other processes\u2019 appends by polling the head while the LISTEN connection is down', async () => {
          const lost = deferred();
          const listening = await open(
            new PostgresEventStore(pool, { pollIntervalMs: 50, reconnectDelayMs: 3_600_000, log: () => lost.resolve() }),
          );
          const writer = await open(new PostgresEventStore(pool, quiet), false);
          const signal = listen(listening);
          await terminateListeners(pool);
          await lost.promise;
          signal.reset();
          await writer.append(`poll-${randomUUID()}`, [event()], 'no_stream');
          await signal.next(10_000);
          signal.stop();
        });

        it('reconnects the LISTEN connection after it is killed', async () => {
          const listening = await open(new PostgresEventStore(pool, { ...quiet, pollIntervalMs: 3_600_000, reconnectDelayMs: 20 }));
          const writer = await open(new PostgresEventStore(pool, quiet), false);
          const signal = listen(listening);
          const killed = await terminateListeners(pool);
          expect(killed).toHaveLength(1);
          await listenerBackendOtherThan(pool, killed);
          signal.reset();
          await writer.append(`reconnect-${randomUUID()}`, [event()], 'no_stream');
          await signal.next(10_000);
          signal.stop();
        });
      });

      describe('a connection lost around COMMIT', () => {
        let proxy: Awaited<ReturnType<typeof lostReplyProxy>>;
        let proxied: Pool;
        beforeAll(async () => {
          proxy = await lostReplyProxy(database.url());
          proxied = createPostgresPool(proxy.url, { max: 3, applicationName: 'dojang-events-lost-reply' });
        });
        afterAll(async () => {
          await proxied.end();
          await proxy.close();
        });

        it('reports an append whose COMMIT landed but whose answer was lost as done, once, with its position', async () => {
          const store = await open(new PostgresEventStore(proxied, quiet));
          const stream = `lost-reply-${randomUUID()}`;
          const events = [event(), event()];
          proxy.arm('lose-commit-reply');
          const result = await store.append(stream, events, 'no_stream');
          expect(proxy.fired()).toBe(1);
          const stored = await store.readStream(stream);
          expect(stored.map((e) => e.event_id)).toEqual(events.map((e) => e.event_id));
          expect(result).toEqual({ next_expected_revision: 1, position: stored[1].global_position });
          // A retry of the same append (same ids) is refused, never doubled.
          await expect(store.append(stream, events, 'no_stream')).rejects.toBeInstanceOf(WrongExpectedRevisionError);
          expect(await store.readStream(stream)).toHaveLength(2);
        });

        it('settles each append of a group the lost answer covered, and the next append chains on', async () => {
          const store = await open(new PostgresEventStore(proxied, quiet));
          const streams = [`lost-group-${randomUUID()}`, `lost-group-${randomUUID()}`];
          proxy.arm('lose-commit-reply');
          const results = await Promise.all(streams.map((s) => store.append(s, [event()], 'no_stream')));
          expect(results.map((r) => r.next_expected_revision)).toEqual([0, 0]);
          await store.append(streams[0], [event()], 0);
          const all = await Promise.all(streams.map((s) => store.readStream(s)));
          expect(all.map((a) => a.length)).toEqual([2, 1]);
          expect(verifyChain(all[0]).intact).toBe(true);
        });

        it('fails with AppendOutcomeUnknownError when the server stays out of reach past the settle time, and the events may have landed', async () => {
          const store = await open(new PostgresEventStore(proxied, { ...quiet, settleTimeoutMs: 400 }));
          const stream = `lost-unknown-${randomUUID()}`;
          const events = [event()];
          proxy.arm('lose-commit-reply', { thenRefuse: true });
          try {
            await expect(store.append(stream, events, 'no_stream')).rejects.toBeInstanceOf(AppendOutcomeUnknownError);
          } finally {
            proxy.restore();
          }
          // It had landed: only the very same events may be retried (their ids refuse a second copy).
          expect((await store.readStream(stream)).map((e) => e.event_id)).toEqual([events[0].event_id]);
        });

        it('reports an append whose COMMIT never reached the server as failed, with nothing written; the same append then lands once', async () => {
          const store = await open(new PostgresEventStore(proxied, quiet));
          const stream = `lost-request-${randomUUID()}`;
          const events = [event()];
          proxy.arm('drop-before-commit');
          await expect(store.append(stream, events, 'no_stream')).rejects.toThrow();
          expect(await store.readStream(stream)).toEqual([]);
          await store.append(stream, events, 'no_stream');
          expect((await store.readStream(stream)).map((e) => e.event_id)).toEqual([events[0].event_id]);
        });
      });

      describe('durable acknowledgement', () => {
        it('commits with synchronous_commit on even when the database default is off', async () => {
          const dbName = new URL(database.url()).pathname.slice(1);
          await pool.query(`ALTER DATABASE "${dbName}" SET synchronous_commit = off`);
          // A fresh pool: the setting applies to new connections.
          const offPool = createPostgresPool(database.url(), { max: 2 });
          try {
            expect((await offPool.query('SHOW synchronous_commit')).rows[0].synchronous_commit).toBe('off');
            const store = await open(new SettingsProbeEventStore(offPool, quiet), false);
            await store.append(`durable-${randomUUID()}`, [event()], 'no_stream');
            expect(store.seen).toEqual(['on']);
          } finally {
            await offPool.end();
            await pool.query(`ALTER DATABASE "${dbName}" RESET synchronous_commit`);
          }
        });
      });
    });
  });
} else {
  console.warn(POSTGRES_SKIP_MESSAGE);
  describe.skip(`PostgresEventStore (${POSTGRES_SKIP_MESSAGE})`, () => {
    it('runs against PostgreSQL', () => undefined);
  });
}

function event(type = 'Happened', data: Record<string, unknown> = {}): NewEvent {
  return {
    event_id: randomUUID(),
    type,
    data,
    metadata: { occurred_at: new Date().toISOString(), actor: 'user_spec', schema_version: 1 },
  };
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

function deferred(): { promise: Promise<void>; resolve: () => void } {
  let resolve!: () => void;
  const promise = new Promise<void>((r) => (resolve = r));
  return { promise, resolve };
}

/** Resolves once some backend of this database waits for an advisory lock (or `until.stop`). */
async function backendWaitingForAdvisoryLock(pool: Pool, until: { stop: boolean }): Promise<void> {
  while (!until.stop) {
    const { rows } = await pool.query(
      `SELECT 1 FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock' AND wait_event = 'advisory'`,
    );
    if (rows.length) return;
    await sleep(10);
  }
}

/** Kills every LISTEN connection of the event stores on this database; returns their pids. */
async function terminateListeners(pool: Pool): Promise<number[]> {
  const { rows } = await pool.query<{ pid: number }>(
    `SELECT pid, pg_terminate_backend(pid) FROM pg_stat_activity
      WHERE datname = current_database() AND application_name LIKE 'dojang-events-listener/%'`,
  );
  return rows.map((r) => r.pid);
}

/** Resolves once a listener connection other than `gone` has run its LISTEN. */
async function listenerBackendOtherThan(pool: Pool, gone: number[]): Promise<void> {
  for (const giveUp = Date.now() + 10_000; Date.now() < giveUp; ) {
    const { rows } = await pool.query(
      `SELECT 1 FROM pg_stat_activity
        WHERE datname = current_database() AND application_name LIKE 'dojang-events-listener/%'
          AND state = 'idle' AND query LIKE 'LISTEN %' AND NOT (pid = ANY($1))`,
      [gone],
    );
    if (rows.length) return;
    await sleep(10);
  }
  throw new Error('no new LISTEN connection within 10 s');
}

/** Counts onAppended signals and waits for the next one. */
function listen(store: PostgresEventStore) {
  let waiters: Array<() => void> = [];
  const state = {
    count: 0,
    stop: () => undefined as void,
    reset() {
      state.count = 0;
    },
    next(timeoutMs: number): Promise<void> {
      if (state.count > 0) return Promise.resolve();
      return new Promise<void>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`no onAppended signal within ${timeoutMs} ms`)), timeoutMs);
        waiters.push(() => {
          clearTimeout(timer);
          resolve();
        });
      });
    },
  };
  state.stop = store.onAppended(() => {
    state.count++;
    const ready = waiters;
    waiters = [];
    for (const w of ready) w();
  });
  return state;
}
