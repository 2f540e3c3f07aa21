import { randomUUID } from 'crypto';
import { EventStore, StoredEvent } from '@dojang/event-store';
import { CoalescingPass, upcast } from '@dojang/projections';
import { ReadDoc, ReadStore } from '@dojang/read-store';
import { isStoreUnavailable } from '../runtime/store-unavailable';

/**
 * A process manager ("saga") fed from the global log. It has side effects (messages, commands),
 * so it runs at least once per event: its checkpoint moves only after `react` finished, and
 * `react` must be idempotent (derive ids from the event, check before sending).
 */
export interface Reactor {
  readonly name: string;
  readonly handles: ReadonlySet<string>;
  /**
   * NOTHING_DONE: the reaction changed nothing anywhere (e.g. a webhook fan-out for an
   * organization without endpoints), so reacting again after a crash would change nothing either.
   * The runner then saves the position as it does for events the reactor ignores (at most once a
   * second) instead of writing the lease for this one event.
   */
  react(event: StoredEvent): Promise<void | typeof NOTHING_DONE>;
}

/** What `Reactor.react` answers when it changed nothing (see there). */
export const NOTHING_DONE = 'nothing_done' as const;

export interface ReactorRunnerOptions {
  batchSize?: number;
  /**
   * `attempt`: 1 for the first failure of this event in this process. Failures of the runner's
   * own upkeep name the reactor `pass` or `leases` (no event: a placeholder of type `pass`/`lease`)
   * and say when it is tried again (`retryInMs`).
   */
  onError?: (reactor: string, event: StoredEvent, err: unknown, attempt: number, retryInMs?: number | null) => void;
  /** Back-off of a pass that failed outside any reactor (reading the log, writing a lease). */
  passRetry?: { baseMs?: number; maxMs?: number };
  /** Called after each reaction, failed or not (metrics, tracing). */
  onReacted?: (reactor: string, event: StoredEvent, startedAt: number, err?: unknown) => void;
  /** After this many failed attempts an event is parked in `reactor_failures` so others still flow. */
  maxAttempts?: number;
  retryDelayMs?: number;
  /** Time for parked events' retries (an injectable clock, so tests never sleep). */
  clock?: { now(): Date };
  /**
   * Waits between the retries of a parked event, then it is given up (`status: 'dead'`). The
   * default retries after 1 and 5 minutes, half an hour, 2, 6, 12 and 24 hours: an outage of the
   * mail or SMS provider delays messages instead of losing them.
   */
  parkedRetryDelaysMs?: number[];
  /**
   * How long a reactor's lease lasts unless renewed (default 15 s). One runner at a time runs a
   * given reactor; a runner that dies holding it is replaced once it expires.
   */
  leaseMs?: number;
  /** How often held leases are renewed and free or expired ones taken (default leaseMs / 3; 0: never, tests call maintainLeases()). */
  leaseRenewIntervalMs?: number;
  /** Who holds a lease, for operators reading `reactor_leases` (default a random id). */
  owner?: string;
  /**
   * Decide leases by the read store's clock when it has one (PostgreSQL's `clock_timestamp()`;
   * default true): a lease is written by one machine and judged expired by another, and a machine
   * whose clock runs ahead would otherwise take a lease its holder still has. The runner measures
   * the offset of `clock` from the server at each lease round. Off, `clock` alone decides.
   */
  storeClock?: boolean;
}

/** Where reactors' positions were kept before leases; read once when a lease row is first made. */
const LEGACY_CHECKPOINT = (name: string) => `reactor:${name}`;
export const REACTOR_FAILURES = 'reactor_failures';
export const REACTOR_LEASES = 'reactor_leases';
/** One row per running runner, renewed with its leases: how many share the reactors. */
export const REACTOR_RUNNERS = 'reactor_runners';
export const DEFAULT_REACTOR_LEASE_MS = 15_000;

/**
 * One row per reactor: who runs it, until when, and how far it got. The position lives in the
 * lease row itself and moves only by compare-and-swap on it, so a runner that lost its lease
 * (paused past the expiry, taken over) can never move the position again: its next write fails
 * and it lets the reactor go.
 */
export interface ReactorLease extends ReadDoc {
  id: string;
  /** null once released (a clean stop): anyone may take it at once. */
  owner: string | null;
  expires_at: string;
  /** Global position of the last event this reactor is done with. */
  position: number;
  _version?: number;
}

interface RunnerRow extends ReadDoc {
  id: string;
  expires_at: string;
  _version?: number;
}

interface HeldLease {
  version: number;
  position: number;
  /** Epoch ms, by the runner's clock. */
  expiresAt: number;
  /** The position moved past ignored events only and is not saved yet. */
  dirty: boolean;
}

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
export const DEFAULT_PARKED_RETRY_DELAYS_MS = [MINUTE, 5 * MINUTE, 30 * MINUTE, 2 * HOUR, 6 * HOUR, 12 * HOUR, 24 * HOUR];
/** How long one retry of a parked event holds its claim (another worker skips it meanwhile). */
const PARKED_LEASE_MS = 5 * MINUTE;

/** An event a reactor failed on past its retries: retried later on a back-off, until it is given up. */
export interface ParkedEvent extends ReadDoc {
  id: string;
  reactor: string;
  event_id: string;
  stream_id: string;
  stream_revision: number;
  type: string;
  error: string;
  status: 'parked' | 'dead';
  /** Retries after parking so far. */
  retries: number;
  parked_at: string;
  next_attempt_at: string;
  _version?: number;
}

export interface ParkedRetryStats {
  retried: number;
  recovered: number;
  dead: number;
}

export class ReactorRunner {
  /**
   * Passes start from append signals and timers with nobody awaiting them: a failure (the database
   * is away) is reported and the pass retried with back-off until the store answers again; it never
   * rejects, so it can never end the process as an unhandled rejection.
   */
  private readonly passes: CoalescingPass;
  private unsubscribe: (() => void) | null = null;
  private retryTimer: NodeJS.Timeout | null = null;
  private leaseTimer: NodeJS.Timeout | null = null;
  private stopped = true;
  private readonly attempts = new Map<string, number>();
  /** The reactors this runner holds the lease of; it runs only those. */
  private readonly held = new Map<string, HeldLease>();
  /** Writes to one lease row, one at a time (the pass and the renewal timer both write). */
  private readonly leaseWrites = new Map<string, Promise<unknown>>();
  private maintaining: Promise<void> | null = null;
  /**
   * Leases beyond this runner's share, handed back by the pass between two events (never while
   * one of that reactor's events is being handled, whose position would not be saved).
   */
  private readonly handBack = new Set<string>();
  /** Version of this runner's own row in `reactor_runners` (null: not written yet). */
  private heartbeatVersion: number | null = null;
  private savedAt = 0;
  /** The store clock minus this runner's clock, measured at the last lease round (ms). */
  private clockOffsetMs = 0;
  readonly owner: string;

  constructor(
    private readonly events: EventStore,
    private readonly reads: ReadStore,
    private readonly reactors: Reactor[],
    private readonly options: ReactorRunnerOptions = {},
  ) {
    this.owner = options.owner ?? randomUUID();
    this.passes = new CoalescingPass(
      () => this.pass(),
      () => !this.stopped,
      (err, failures, retryInMs) => this.options.onError?.('pass', PASS_EVENT, err, failures, retryInMs),
      options.passRetry ?? {},
    );
  }

  async start(): Promise<void> {
    this.stopped = false;
    await this.reads.ensureCollection({ name: REACTOR_FAILURES });
    await this.reads.ensureCollection({ name: REACTOR_LEASES });
    await this.reads.ensureCollection({ name: REACTOR_RUNNERS });
    this.unsubscribe = this.events.onAppended(() => void this.trigger());
    await this.maintainLeases();
    const every = this.options.leaseRenewIntervalMs ?? Math.floor(this.leaseMs / 3);
    if (every > 0) {
      this.leaseTimer = setInterval(() => {
        this.maintainLeases().catch((err) => this.options.onError?.('leases', LEASE_EVENT, err, 0, every));
      }, every);
      this.leaseTimer.unref();
    }
    await this.trigger();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.unsubscribe?.();
    this.unsubscribe = null;
    if (this.retryTimer) clearTimeout(this.retryTimer);
    if (this.leaseTimer) clearInterval(this.leaseTimer);
    this.leaseTimer = null;
    this.passes.cancel();
    await this.passes.current;
    await this.maintaining?.catch(() => undefined);
    // Released, with the position reached, so another worker takes over at once instead of
    // waiting for the lease to expire. With the database away they expire instead: a stop
    // still completes.
    try {
      for (const name of [...this.held.keys()]) await this.writeLease(name, 'release');
      if (this.heartbeatVersion !== null) await this.reads.commit([{ op: 'delete', collection: REACTOR_RUNNERS, id: this.owner }], {});
    } catch (err) {
      this.options.onError?.('leases', LEASE_EVENT, err, 0, null);
    } finally {
      this.held.clear();
      this.handBack.clear();
      this.heartbeatVersion = null;
    }
  }

  trigger(): Promise<void> {
    return this.passes.trigger();
  }

  /** The reactors this runner runs now (the others are leased by other runners). */
  get heldReactors(): string[] {
    return this.reactors.filter((r) => this.held.has(r.name)).map((r) => r.name);
  }

  private get leaseMs(): number {
    return this.options.leaseMs ?? DEFAULT_REACTOR_LEASE_MS;
  }

  /**
   * Shares the reactors among the live runners: renews this runner's own row and the leases it
   * holds, hands back what it holds beyond its share (ceil(reactors / live runners)), and takes
   * free ones (never made, released, or expired: their runner died) up to its share. The
   * background timer does it every leaseMs / 3; a lease taken starts a pass from the position
   * its last holder saved.
   */
  maintainLeases(): Promise<void> {
    this.maintaining ??= (async () => {
      try {
        const live = await this.heartbeat();
        const share = Math.ceil(this.reactors.length / live);
        for (const name of this.heldReactors) await this.writeLease(name, 'renew');
        this.handBack.clear();
        for (const name of this.heldReactors.slice(share)) this.handBack.add(name);
        let gained = false;
        for (const reactor of this.reactors) {
          if (this.stopped || this.held.size - this.handBack.size >= share) break;
          if (!this.held.has(reactor.name) && (await this.acquire(reactor.name))) gained = true;
        }
        // Not awaited: a long pass (a slow provider) must not hold up the renewals.
        if ((gained || this.handBack.size > 0) && !this.stopped) void this.trigger();
      } finally {
        this.maintaining = null;
      }
    })();
    return this.maintaining;
  }

  /** Renews this runner's row; returns how many runners are alive (itself included). */
  private async heartbeat(): Promise<number> {
    await this.measureClockOffset();
    const now = this.leaseNow();
    const doc: RunnerRow = { id: this.owner, expires_at: new Date(now + this.leaseMs).toISOString() };
    if (!(await this.reads.putIfVersion(REACTOR_RUNNERS, doc, this.heartbeatVersion))) {
      // Removed by another runner that took this one for dead (it slept past its lease): written anew.
      const row = await this.reads.get<RunnerRow>(REACTOR_RUNNERS, this.owner);
      this.heartbeatVersion = row ? (row._version ?? 0) : null;
      if (!(await this.reads.putIfVersion(REACTOR_RUNNERS, doc, this.heartbeatVersion))) return 1;
    }
    this.heartbeatVersion = (this.heartbeatVersion ?? 0) + 1;
    const rows = await this.reads.find<RunnerRow>(REACTOR_RUNNERS, { limit: 1000 });
    const live = rows.filter((r) => Date.parse(r.expires_at) > now);
    // Rows of runners dead for a whole lease more are cleared, so the table stays small.
    const gone = rows.filter((r) => Date.parse(r.expires_at) <= now - this.leaseMs);
    if (gone.length) await this.reads.commit(gone.map((r) => ({ op: 'delete' as const, collection: REACTOR_RUNNERS, id: r.id })), {});
    return Math.max(1, live.length);
  }

  private async acquire(name: string): Promise<boolean> {
    const now = this.leaseNow();
    const row = await this.reads.get<ReactorLease>(REACTOR_LEASES, name);
    if (row && row.owner !== null && Date.parse(row.expires_at) > now) return false;
    const position = row ? row.position : await this.reads.getCheckpoint(LEGACY_CHECKPOINT(name));
    const expiresAt = now + this.leaseMs;
    const doc: ReactorLease = { id: name, owner: this.owner, expires_at: new Date(expiresAt).toISOString(), position };
    const version = row ? (row._version ?? 0) : null;
    if (!(await this.reads.putIfVersion(REACTOR_LEASES, doc, version))) return false;
    this.held.set(name, { version: (version ?? 0) + 1, position, expiresAt, dirty: false });
    return true;
  }

  /**
   * Saves the held lease's position and extends it ('renew'), or hands it back ('release').
   * Compare-and-swap on the row's version: if it fails, another runner took the lease (this one
   * was presumed dead), and this runner lets the reactor go.
   */
  private writeLease(name: string, mode: 'renew' | 'release'): Promise<boolean> {
    const previous = this.leaseWrites.get(name) ?? Promise.resolve();
    const write = previous.then(async () => {
      const lease = this.held.get(name);
      if (!lease) return false;
      const now = this.leaseNow();
      const expiresAt = mode === 'release' ? now : now + this.leaseMs;
      const doc: ReactorLease = {
        id: name,
        owner: mode === 'release' ? null : this.owner,
        expires_at: new Date(expiresAt).toISOString(),
        position: lease.position,
      };
      const ok = await this.reads.putIfVersion(REACTOR_LEASES, doc, lease.version);
      if (ok && mode === 'renew') Object.assign(lease, { version: lease.version + 1, expiresAt, dirty: false });
      if (!ok || mode === 'release') {
        if (this.held.get(name) === lease) this.held.delete(name);
      }
      return ok;
    });
    const settled = write.catch(() => undefined);
    this.leaseWrites.set(name, settled);
    void settled.then(() => {
      if (this.leaseWrites.get(name) === settled) this.leaseWrites.delete(name);
    });
    return write;
  }

  /**
   * Whether this runner may still run the reactor: its lease is held and, by its own clock, not
   * about to expire (renewed first when it is). Checked before each event, so a runner that slept
   * past its lease does not react to an event the new holder will handle too.
   */
  private async stillHeld(name: string): Promise<boolean> {
    const lease = this.held.get(name);
    if (!lease) return false;
    if (lease.expiresAt - this.leaseNow() > this.leaseMs / 3) return true;
    // Near or past its expiry (the renewal timer fell behind, or the process slept): renewed
    // first. Past it, the renewal succeeds only if no other runner took the lease meanwhile.
    return this.writeLease(name, 'renew');
  }

  private async saveSkipped(): Promise<void> {
    this.savedAt = Date.now();
    for (const [name, lease] of [...this.held]) if (lease.dirty) await this.writeLease(name, 'renew');
  }

  /**
   * Brings every reactor up to the head of the log. Goes through the same single-flight pass as the
   * append signal: two passes at once would hand the same event to a reactor twice.
   */
  catchUp(): Promise<void> {
    return this.passes.trigger();
  }

  /** One pass: one read of the log per batch for all the reactors this runner holds. */
  private async pass(): Promise<void> {
    const batchSize = this.options.batchSize ?? 200;
    const blocked = new Set<string>();
    for (;;) {
      for (const name of [...this.handBack]) {
        this.handBack.delete(name);
        await this.writeLease(name, 'release');
      }
      const active = this.reactors.filter((r) => this.held.has(r.name) && !blocked.has(r.name));
      if (active.length === 0) return;
      const from = Math.min(...active.map((r) => this.held.get(r.name)!.position));
      const batch = (await this.events.readAll(from, batchSize)).map(upcast);
      if (batch.length === 0) return;
      for (const reactor of active) {
        for (const event of batch) {
          const lease = this.held.get(reactor.name);
          if (!lease) break;
          if (event.global_position <= lease.position) continue;
          if (reactor.handles.has(event.type)) {
            if (!(await this.stillHeld(reactor.name))) break;
            const outcome = await this.reactOnce(reactor, event);
            if (!outcome) {
              blocked.add(reactor.name);
              break;
            }
            lease.position = event.global_position;
            // A reaction that changed nothing is saved like an ignored event: replaying it changes nothing.
            if (outcome === NOTHING_DONE) {
              lease.dirty = true;
              continue;
            }
            // A handled event is saved at once: a crash replays at most the one in flight.
            if (!(await this.writeLease(reactor.name, 'renew'))) break;
          } else {
            lease.position = event.global_position;
            lease.dirty = true;
          }
        }
      }
      // Skipping events a reactor ignores needs no durability: after a crash it would skip them
      // again. So those positions are saved at most once a second (and with each renewal).
      if (Date.now() - this.savedAt >= 1000) await this.saveSkipped();
      if (batch.length < batchSize) return;
      if (this.stopped) return;
    }
  }

  /** False: failed, try again later; NOTHING_DONE: reacted and changed nothing; true: reacted (or parked). */
  private async reactOnce(reactor: Reactor, event: StoredEvent): Promise<boolean | typeof NOTHING_DONE> {
    const key = `${reactor.name}:${event.event_id}`;
    const startedAt = Date.now();
    try {
      const outcome = await reactor.react(event);
      this.options.onReacted?.(reactor.name, event, startedAt);
      this.attempts.delete(key);
      return outcome === NOTHING_DONE ? NOTHING_DONE : true;
    } catch (err) {
      this.options.onReacted?.(reactor.name, event, startedAt, err);
      // The store is away, not the event at fault: the whole pass fails and is retried with
      // back-off until it answers again, and the event keeps its attempts for real failures.
      if (isStoreUnavailable(err)) throw err;
      const n = (this.attempts.get(key) ?? 0) + 1;
      this.options.onError?.(reactor.name, event, err, n);
      this.attempts.set(key, n);
      if (n >= (this.options.maxAttempts ?? 5)) {
        this.attempts.delete(key);
        const now = this.now();
        const parked: ParkedEvent = {
          id: key,
          reactor: reactor.name,
          event_id: event.event_id,
          stream_id: event.stream_id,
          stream_revision: event.stream_revision,
          type: event.type,
          error: errorText(err),
          status: 'parked',
          retries: 0,
          parked_at: now.toISOString(),
          next_attempt_at: new Date(now.getTime() + this.retryDelays[0]).toISOString(),
        };
        await this.reads.commit([{ op: 'put', collection: REACTOR_FAILURES, doc: parked }], {});
        return true;
      }
      if (!this.stopped && !this.retryTimer) {
        this.retryTimer = setTimeout(() => {
          this.retryTimer = null;
          void this.trigger();
        }, (this.options.retryDelayMs ?? 1000) * n);
        this.retryTimer.unref();
      }
      return false;
    }
  }

  private now(): Date {
    return this.options.clock?.now() ?? new Date();
  }

  /** Epoch ms by the clock leases are decided by: the store's, as last measured, else this runner's. */
  private leaseNow(): number {
    return this.now().getTime() + this.clockOffsetMs;
  }

  private async measureClockOffset(): Promise<void> {
    if (this.options.storeClock === false || !this.reads.serverTime) return;
    const before = this.now().getTime();
    const server = (await this.reads.serverTime()).getTime();
    const after = this.now().getTime();
    // The server read its clock somewhere in the round trip: its middle is the best guess.
    this.clockOffsetMs = server - (before + after) / 2;
  }

  private get retryDelays(): number[] {
    const delays = this.options.parkedRetryDelaysMs ?? DEFAULT_PARKED_RETRY_DELAYS_MS;
    return delays.length ? delays : DEFAULT_PARKED_RETRY_DELAYS_MS;
  }

  /**
   * Retries the parked events that are due. Each is claimed first (compare-and-swap on the row,
   * with a lease), so two workers never run the same one at once; a success removes the row, a
   * failure schedules the next retry, and after the last one the event is given up as `dead` (the
   * row stays for an operator to see).
   */
  async retryParked(limit = 50): Promise<ParkedRetryStats> {
    const stats: ParkedRetryStats = { retried: 0, recovered: 0, dead: 0 };
    const now = this.now();
    const due = await this.reads.find<ParkedEvent>(REACTOR_FAILURES, {
      where: { status: 'parked', next_attempt_at: { $lte: now.toISOString() } },
      orderBy: [{ field: 'next_attempt_at', direction: 'asc' }],
      limit,
    });
    for (const row of due) {
      const reactor = this.reactors.find((r) => r.name === row.reactor);
      if (!reactor) continue;
      const version = row._version ?? 0;
      const lease = { ...row, next_attempt_at: new Date(now.getTime() + PARKED_LEASE_MS).toISOString() };
      if (!(await this.reads.putIfVersion(REACTOR_FAILURES, lease, version))) continue;
      stats.retried++;
      let error: unknown = null;
      const event = (await this.events.readStream(row.stream_id)).find((e) => e.event_id === row.event_id);
      if (!event) {
        error = new Error(`event ${row.event_id} is no longer in stream ${row.stream_id}`);
      } else {
        try {
          await reactor.react(upcast(event));
        } catch (err) {
          error = err;
          this.options.onError?.(reactor.name, event, err, (row.retries ?? 0) + 1);
        }
      }
      if (error === null) {
        await this.reads.commit([{ op: 'delete', collection: REACTOR_FAILURES, id: row.id }], {});
        stats.recovered++;
        continue;
      }
      const retries = row.retries + 1;
      const dead = retries >= this.retryDelays.length || !event;
      if (dead) stats.dead++;
      const next: ParkedEvent = {
        ...row,
        error: errorText(error),
        retries,
        status: dead ? 'dead' : 'parked',
        next_attempt_at: dead ? row.next_attempt_at : new Date(now.getTime() + this.retryDelays[retries]).toISOString(),
      };
      await this.reads.putIfVersion(REACTOR_FAILURES, next, version + 1);
    }
    return stats;
  }
}

/** What onError is given for a failure of the lease upkeep itself (no event involved). */
const LEASE_EVENT: StoredEvent = { event_id: '-', stream_id: '-', stream_revision: -1, global_position: 0, type: 'lease', data: {}, metadata: {} } as StoredEvent;
/** What onError is given for a pass that failed outside any reactor (the log or a lease unreadable). */
const PASS_EVENT: StoredEvent = { ...LEASE_EVENT, type: 'pass' };

function errorText(err: unknown): string {
  return String((err as Error)?.message ?? err);
}
