import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { randomUUID } from 'crypto';
import { EventStore, StoredEvent } from '@dojang/event-store';
import { SqliteEventStore } from '@dojang/event-store/sqlite';
import { ReadStore } from '@dojang/read-store';
import { SqliteReadStore } from '@dojang/read-store/sqlite';
import { ProjectionRunner } from '@dojang/projections';
import { Reactor, ReactorRunner } from './reactor-runner';
import { isStoreUnavailable, notAStoreError } from '../runtime/store-unavailable';

/** What node-postgres rejects with while the server is stopped. */
const refused = () => Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED', errno: -111, syscall: 'connect' });

/**
 * A store that is "down" while `outage.down`: every asynchronous call rejects as a stopped
 * PostgreSQL server would; subscriptions and close still work (they are local).
 */
function flaky<T extends object>(target: T, outage: { down: boolean; calls: number }): T {
  return new Proxy(target, {
    get(obj, prop, receiver) {
      const value = Reflect.get(obj, prop, receiver) as unknown;
      if (typeof value !== 'function' || prop === 'onAppended' || prop === 'close') return value;
      return (...args: unknown[]) => {
        if (outage.down) {
          outage.calls++;
          return Promise.reject(refused());
        }
        return (value as (...a: unknown[]) => unknown).apply(obj, args);
      };
    },
  });
}

class CountingReactor implements Reactor {
  readonly name = 'counting';
  readonly handles = new Set(['Happened']);
  readonly seen: string[] = [];
  async react(event: StoredEvent): Promise<void> {
    this.seen.push(event.event_id);
  }
}

async function until(condition: () => boolean, what: string, ms = 5000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

/**
 * Issue 24 §1: a database outage ended the worker. Passes start from append signals and timers
 * that nobody awaits; a pass that failed rejected with no handler and Node exited. Now a failure
 * is reported, the pass retried with back-off, and the runner resumes by itself when the store
 * answers again, without any new append to wake it.
 */
describe('runners through a store outage', () => {
  let dir: string;
  let sqliteEvents: SqliteEventStore;
  let sqliteReads: SqliteReadStore;
  let events: EventStore;
  let reads: ReadStore;
  const outage = { down: false, calls: 0 };
  const unhandled: unknown[] = [];
  const onUnhandled = (reason: unknown) => unhandled.push(reason);

  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'dojang-outage-'));
    sqliteEvents = new SqliteEventStore(path.join(dir, 'events.sqlite'));
    sqliteReads = new SqliteReadStore(path.join(dir, 'read.sqlite'));
    Object.assign(outage, { down: false, calls: 0 });
    events = flaky<EventStore>(sqliteEvents, outage);
    reads = flaky<ReadStore>(sqliteReads, outage);
    unhandled.length = 0;
    process.on('unhandledRejection', onUnhandled);
  });
  afterEach(async () => {
    process.off('unhandledRejection', onUnhandled);
    await sqliteEvents.close();
    await sqliteReads.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  const append = async (): Promise<string> => {
    const event_id = randomUUID();
    // Appended behind the flaky wrapper's back: the log moves while the runner cannot read it.
    await sqliteEvents.append(`s-${event_id}`, [{ event_id, type: 'Happened', data: {}, metadata: { occurred_at: new Date().toISOString(), actor: 'test', schema_version: 1 } }], 'any');
    return event_id;
  };

  it('a reactor pass that fails on the store is reported, retried with back-off, and resumes when the store is back', async () => {
    const reactor = new CountingReactor();
    const errors: Array<{ reactor: string; retryInMs: number | null | undefined }> = [];
    const runner = new ReactorRunner(events, reads, [reactor], {
      leaseRenewIntervalMs: 0,
      passRetry: { baseMs: 20, maxMs: 80 },
      onError: (name, _event, _err, _attempt, retryInMs) => errors.push({ reactor: name, retryInMs }),
    });
    await runner.start();
    const first = await append();
    await until(() => reactor.seen.includes(first), 'the first event');

    outage.down = true;
    const during = await append();
    // Let the append signal's pass fail and its retries fail too.
    await until(() => errors.length >= 3, 'failed passes to be reported');
    expect(errors.every((e) => e.reactor === 'pass' && typeof e.retryInMs === 'number' && e.retryInMs <= 80)).toBe(true);
    expect(reactor.seen).not.toContain(during);

    outage.down = false;
    // No append wakes it: the back-off retry alone brings it up to the head.
    await until(() => reactor.seen.includes(during), 'the event appended during the outage');
    expect(reactor.seen.filter((id) => id === during)).toHaveLength(1);
    expect(unhandled).toEqual([]);
    await runner.stop();
  });

  it('an outage in the middle of a reaction does not count against the event (it is not parked)', async () => {
    let failNext = 3;
    const seen: string[] = [];
    const reactor: Reactor = {
      name: 'fragile',
      handles: new Set(['Happened']),
      async react(event) {
        if (failNext-- > 0) throw refused();
        seen.push(event.event_id);
      },
    };
    const runner = new ReactorRunner(events, reads, [reactor], { leaseRenewIntervalMs: 0, maxAttempts: 2, passRetry: { baseMs: 10, maxMs: 20 }, onError: () => undefined });
    await runner.start();
    const id = await append();
    await runner.trigger();
    await until(() => seen.includes(id), 'the event after the store came back');
    expect(await sqliteReads.find('reactor_failures', {})).toEqual([]);
    expect(unhandled).toEqual([]);
    await runner.stop();
  });

  it('stops cleanly while the store is down (its leases are left to expire)', async () => {
    const runner = new ReactorRunner(events, reads, [new CountingReactor()], { leaseRenewIntervalMs: 0, passRetry: { baseMs: 10, maxMs: 20 }, onError: () => undefined });
    await runner.start();
    outage.down = true;
    await expect(runner.stop()).resolves.toBeUndefined();
    expect(unhandled).toEqual([]);
  });

  it('a projection pass that fails is retried until the store answers, without a new append', async () => {
    const applied: number[] = [];
    const runner = new ProjectionRunner(
      events,
      reads,
      [
        {
          name: 'seen',
          version: 1,
          collections: [{ name: 'seen_rows' }],
          handles: new Set(['Happened']),
          keys: (e: StoredEvent) => [{ collection: 'seen_rows', id: e.event_id }],
          evolve: (e: StoredEvent) => {
            applied.push(e.global_position);
            return [{ op: 'put', collection: 'seen_rows', doc: { id: e.event_id } }];
          },
        },
      ],
      { onError: () => undefined, retry: { baseMs: 10, maxMs: 40 } },
    );
    await runner.start();
    outage.down = true;
    const id = await append();
    await new Promise((r) => setTimeout(r, 100));
    expect(outage.calls).toBeGreaterThan(0);
    outage.down = false;
    await until(() => runner.position > 0, 'the projection to catch up');
    expect(await sqliteReads.get('seen_rows', id)).not.toBeNull();
    expect(unhandled).toEqual([]);
    await runner.stop();
  });
});

describe('isStoreUnavailable', () => {
  it.each([
    ['ECONNREFUSED', refused()],
    ['a terminated backend', Object.assign(new Error('terminating connection due to administrator command'), { code: '57P01' })],
    ['a dropped connection', new Error('Connection terminated unexpectedly')],
    ['a pool wait that ran out', new Error('timeout exceeded when trying to connect')],
    ['SQLITE_BUSY', Object.assign(new Error('database is locked'), { code: 'SQLITE_BUSY' })],
    ['a Mongo network error', Object.assign(new Error('connection closed'), { name: 'MongoNetworkError' })],
    ['a wrapped cause', new Error('append failed', { cause: refused() })],
  ])('counts %s as the store being unavailable', (_what, err) => {
    expect(isStoreUnavailable(err)).toBe(true);
  });

  it.each([
    ['a constraint violation', Object.assign(new Error('duplicate key'), { code: '23505' })],
    ['a plain error', new Error('provider down')],
    ['nothing', undefined],
    ['a mail server that refused the connection (the provider, not the store)', notAStoreError(refused())],
  ])('does not count %s', (_what, err) => {
    expect(isStoreUnavailable(err)).toBe(false);
  });
});
