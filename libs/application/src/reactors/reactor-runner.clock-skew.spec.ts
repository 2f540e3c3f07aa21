import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { randomUUID } from 'crypto';
import { StoredEvent } from '@dojang/event-store';
import { SqliteEventStore } from '@dojang/event-store/sqlite';
import { ReadStore } from '@dojang/read-store';
import { SqliteReadStore } from '@dojang/read-store/sqlite';
import { Clock, ManualClock } from '../clock';
import { Reactor, ReactorRunner } from './reactor-runner';

const LEASE_MS = 15_000;

/** A read store with a server clock of its own, as PostgreSQL has (`clock_timestamp()`). */
function withServerClock(reads: ReadStore, server: Clock): ReadStore {
  return new Proxy(reads, {
    get(obj, prop, receiver) {
      if (prop === 'serverTime') return async () => server.now();
      const value = Reflect.get(obj, prop, receiver) as unknown;
      return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(obj) : value;
    },
  });
}

/** A machine clock `skewMs` off the true time. */
const skewed = (truth: ManualClock, skewMs: number): Clock => ({ now: () => new Date(truth.now().getTime() + skewMs) });

/**
 * Issue 24 §9: a runner judged another machine's lease by its own clock, so a machine whose clock
 * ran more than a lease ahead took leases their holder still had: two workers ran one reactor.
 * Leases are now decided by the store's clock, whatever each machine's clock says.
 */
describe('reactor leases under clock skew between workers', () => {
  let dir: string;
  let events: SqliteEventStore;
  let sqlite: SqliteReadStore;
  let truth: ManualClock;
  const runners: ReactorRunner[] = [];
  const handled: Array<{ runner: string; event_id: string }> = [];

  const reactor = (runner: string): Reactor => ({
    name: 'mailer',
    handles: new Set(['Happened']),
    react: async (e: StoredEvent) => void handled.push({ runner, event_id: e.event_id }),
  });
  const runner = (owner: string, clock: Clock, storeClock?: boolean) => {
    const reads = withServerClock(sqlite, truth);
    const r = new ReactorRunner(events, reads, [reactor(owner)], { clock, owner, leaseMs: LEASE_MS, leaseRenewIntervalMs: 0, ...(storeClock === undefined ? {} : { storeClock }) });
    runners.push(r);
    return r;
  };

  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'dojang-skew-'));
    events = new SqliteEventStore(path.join(dir, 'events.sqlite'));
    sqlite = new SqliteReadStore(path.join(dir, 'read.sqlite'));
    truth = new ManualClock(new Date('2026-11-24T08:00:00.000Z'));
    handled.length = 0;
  });
  afterEach(async () => {
    for (const r of runners.splice(0)) await r.stop();
    await events.close();
    await sqlite.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  const append = async () => {
    const event_id = randomUUID();
    await events.append(`s-${event_id}`, [{ event_id, type: 'Happened', data: {}, metadata: { occurred_at: truth.now().toISOString(), actor: 'test', schema_version: 1 } }], 'no_stream');
    return event_id;
  };

  it('a worker whose clock runs 30 s ahead does not take a lease its holder still has', async () => {
    const a = runner('worker-a', truth);
    const b = runner('worker-b', skewed(truth, 30_000));
    await a.start();
    expect(a.heldReactors).toEqual(['mailer']);
    await b.start();
    await b.maintainLeases();
    expect(b.heldReactors).toEqual([]);
    const id = await append();
    await a.trigger();
    await b.trigger();
    expect(handled).toEqual([{ runner: 'worker-a', event_id: id }]);

    // Once the holder really is gone past its lease (by the store's clock), the skewed one takes over.
    await a.stop();
    runners.splice(runners.indexOf(a), 1);
    truth.advance(LEASE_MS + 1);
    await b.maintainLeases();
    expect(b.heldReactors).toEqual(['mailer']);
  });

  it('a worker whose clock runs 30 s behind still sees a dead holder expire on time', async () => {
    const a = runner('worker-a', truth);
    await a.start();
    // a dies without releasing (its row and lease stay).
    (a as unknown as { stopped: boolean }).stopped = true;
    runners.splice(runners.indexOf(a), 1);
    const b = runner('worker-b', skewed(truth, -30_000));
    truth.advance(LEASE_MS + 1);
    await b.start();
    expect(b.heldReactors).toEqual(['mailer']);
  });

  it('by its own clock (storeClock: false) the skewed worker would take the held lease: the case the store clock prevents', async () => {
    const a = runner('worker-a', truth, false);
    const b = runner('worker-b', skewed(truth, 30_000), false);
    await a.start();
    await b.start();
    expect(b.heldReactors).toEqual(['mailer']);
    expect(a.heldReactors).toEqual(['mailer']);
  });
});
