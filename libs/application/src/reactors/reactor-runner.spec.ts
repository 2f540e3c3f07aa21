import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { randomUUID } from 'crypto';
import { StoredEvent } from '@dojang/event-store';
import { SqliteEventStore } from '@dojang/event-store/sqlite';
import { SqliteReadStore } from '@dojang/read-store/sqlite';
import { ManualClock } from '../clock';
import { NOTHING_DONE, ParkedEvent, REACTOR_FAILURES, REACTOR_LEASES, Reactor, ReactorLease, ReactorRunner } from './reactor-runner';

/** A reactor whose failures the test decides, recording what it was given. */
class ScriptedReactor implements Reactor {
  readonly name = 'scripted';
  readonly handles = new Set(['Happened']);
  readonly seen: string[] = [];
  failOn = new Set<string>();

  async react(event: StoredEvent): Promise<void | typeof NOTHING_DONE> {
    this.seen.push(event.event_id);
    if (this.failOn.has(event.event_id)) throw new Error(`provider down for ${event.event_id}`);
    // Events appended with `idle: true` are ones it changes nothing for.
    if ((event.data as { idle?: boolean }).idle) return NOTHING_DONE;
  }
}

async function until(condition: () => Promise<boolean> | boolean, what: string): Promise<void> {
  for (let i = 0; i < 200; i++) {
    if (await condition()) return;
    await new Promise((r) => setTimeout(r, 10));
  }
  throw new Error(`timed out waiting for ${what}`);
}

describe('ReactorRunner', () => {
  let dir: string;
  let events: SqliteEventStore;
  let reads: SqliteReadStore;
  let clock: ManualClock;
  let reactor: ScriptedReactor;
  const runners: ReactorRunner[] = [];

  const append = async (stream: string, data: Record<string, unknown> = {}): Promise<string> => {
    const event_id = randomUUID();
    await events.append(stream, [{ event_id, type: 'Happened', data, metadata: { occurred_at: clock.now().toISOString(), actor: 'test', schema_version: 1 } }], 'any');
    return event_id;
  };
  const runner = (parkedRetryDelaysMs?: number[]) => {
    const r = new ReactorRunner(events, reads, [reactor], { maxAttempts: 3, retryDelayMs: 1, clock, ...(parkedRetryDelaysMs ? { parkedRetryDelaysMs } : {}) });
    runners.push(r);
    return r;
  };
  const parked = async (id: string) => reads.get<ParkedEvent>(REACTOR_FAILURES, `scripted:${id}`);
  /** One event the reactor fails on, run until it is parked. */
  const parkOne = async (parkedRetryDelaysMs?: number[]) => {
    const failing = await append('s-1');
    reactor.failOn.add(failing);
    const r = runner(parkedRetryDelaysMs);
    await r.start();
    await until(async () => (await parked(failing)) !== null, 'the event to be parked');
    return { failing, r };
  };

  beforeEach(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'dojang-reactor-'));
    events = new SqliteEventStore(path.join(dir, 'events.sqlite'));
    reads = new SqliteReadStore(path.join(dir, 'read.sqlite'));
    clock = new ManualClock(new Date('2026-11-22T09:00:00.000Z'));
    reactor = new ScriptedReactor();
  });
  afterEach(async () => {
    for (const r of runners.splice(0)) await r.stop();
    await events.close();
    await reads.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('retries a failing event a few times, then parks it so the events after it still flow', async () => {
    const failing = await append('s-1');
    const after = await append('s-2');
    reactor.failOn.add(failing);
    await runner().start();
    await until(async () => (await parked(failing)) !== null && reactor.seen.includes(after), 'the event to be parked');
    expect(reactor.seen.filter((id) => id === failing)).toHaveLength(3);
    expect(await parked(failing)).toMatchObject({
      reactor: 'scripted',
      event_id: failing,
      stream_id: 's-1',
      stream_revision: 0,
      status: 'parked',
      retries: 0,
      error: `provider down for ${failing}`,
      parked_at: '2026-11-22T09:00:00.000Z',
      next_attempt_at: '2026-11-22T09:01:00.000Z',
    });
    expect((await reads.get<ReactorLease>(REACTOR_LEASES, 'scripted'))?.position).toBe(2);
  });

  it('writes the lease after a reaction that did something, not after each one that changed nothing; the stop saves where it got to', async () => {
    const leaseWrites: number[] = [];
    const putIfVersion = reads.putIfVersion.bind(reads);
    jest.spyOn(reads, 'putIfVersion').mockImplementation(async (collection, doc, version) => {
      if (collection === REACTOR_LEASES) leaseWrites.push((doc as ReactorLease).position);
      return putIfVersion(collection, doc, version);
    });
    for (let i = 0; i < 10; i++) await append(`s-${i}`, { idle: true });
    const acted = await append('s-10');
    const r = runner();
    await r.start();
    await until(async () => (await reads.get<ReactorLease>(REACTOR_LEASES, 'scripted'))?.position === 11, 'the saved position');
    expect(reactor.seen).toContain(acted);
    // Taken at 0, then saved with the event that did something (a renewal may add one): not eleven writes.
    expect(leaseWrites[0]).toBe(0);
    expect(leaseWrites.length).toBeLessThanOrEqual(3);
    expect(leaseWrites[leaseWrites.length - 1]).toBe(11);
    // Nine idle events after it, in one append (so one pass takes them all): handed to the reactor,
    // no write each (at most the once-a-second save of skipped positions), saved by the stop's release.
    const idle = Array.from({ length: 9 }, () => ({ event_id: randomUUID(), type: 'Happened', data: { idle: true }, metadata: { occurred_at: clock.now().toISOString(), actor: 'test', schema_version: 1 } }));
    const before = leaseWrites.length;
    await events.append('s-11', idle, 'any');
    await r.catchUp();
    expect(reactor.seen).toHaveLength(20);
    expect(leaseWrites.length - before).toBeLessThanOrEqual(1);
    await r.stop();
    runners.splice(runners.indexOf(r), 1);
    expect((await reads.get<ReactorLease>(REACTOR_LEASES, 'scripted'))?.position).toBe(20);
    // The next runner starts where the stop saved: nothing is handed to the reactor again.
    const next = runner();
    await next.start();
    await next.catchUp();
    expect(reactor.seen).toHaveLength(20);
  });

  it('retries a parked event once it is due, and forgets it when it succeeds', async () => {
    const { failing, r } = await parkOne();
    const tries = reactor.seen.length;

    expect(await r.retryParked()).toEqual({ retried: 0, recovered: 0, dead: 0 });
    clock.advance(60_000);
    reactor.failOn.clear();
    expect(await r.retryParked()).toEqual({ retried: 1, recovered: 1, dead: 0 });
    expect(reactor.seen.slice(tries)).toEqual([failing]);
    expect(await parked(failing)).toBeNull();
    expect(await r.retryParked()).toEqual({ retried: 0, recovered: 0, dead: 0 });
  });

  it('backs off between retries and gives up after the last one, keeping the row for an operator', async () => {
    const { failing, r } = await parkOne([1_000, 5_000]);

    clock.advance(1_000);
    expect(await r.retryParked()).toEqual({ retried: 1, recovered: 0, dead: 0 });
    expect(await parked(failing)).toMatchObject({ status: 'parked', retries: 1, next_attempt_at: '2026-11-22T09:00:06.000Z' });
    clock.advance(4_999);
    expect(await r.retryParked()).toEqual({ retried: 0, recovered: 0, dead: 0 });
    clock.advance(1);
    expect(await r.retryParked()).toEqual({ retried: 1, recovered: 0, dead: 1 });
    expect(await parked(failing)).toMatchObject({ status: 'dead', retries: 2, error: `provider down for ${failing}` });
    clock.advance(24 * 3_600_000);
    expect(await r.retryParked()).toEqual({ retried: 0, recovered: 0, dead: 0 });
  });

  it('lets only one of two workers retry a parked event', async () => {
    const { failing, r: a } = await parkOne();
    const b = runner();
    const tries = reactor.seen.length;
    clock.advance(60_000);
    reactor.failOn.clear();
    const [ra, rb] = await Promise.all([a.retryParked(), b.retryParked()]);
    expect(ra.retried + rb.retried).toBe(1);
    expect(reactor.seen.slice(tries)).toEqual([failing]);
    expect(await parked(failing)).toBeNull();
  });
});
