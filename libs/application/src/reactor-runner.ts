import { EventStore, StoredEvent } from '@dojang/event-store';
import { CoalescingPass, upcast } from '@dojang/projections';
import { ReadDoc, ReadStore } from '@dojang/read-store';

/**
 * A process manager ("saga") fed from the global log. It has side effects (messages, commands),
 * so it runs at least once per event: its checkpoint moves only after `react` finished, and
 * `react` must be idempotent (derive ids from the event, check before sending).
 */
export interface Reactor {
  readonly name: string;
  readonly handles: ReadonlySet<string>;
  react(event: StoredEvent): Promise<void>;
}

export interface ReactorRunnerOptions {
  batchSize?: number;
  /** `attempt`: 1 for the first failure of this event in this process. */
  onError?: (reactor: string, event: StoredEvent, err: unknown, attempt: number) => void;
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
}

const CHECKPOINT = (name: string) => `reactor:${name}`;
export const REACTOR_FAILURES = 'reactor_failures';

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
  private readonly passes = new CoalescingPass(
    () => this.pass(),
    () => !this.stopped,
  );
  private unsubscribe: (() => void) | null = null;
  private retryTimer: NodeJS.Timeout | null = null;
  private stopped = true;
  private readonly attempts = new Map<string, number>();

  constructor(
    private readonly events: EventStore,
    private readonly reads: ReadStore,
    private readonly reactors: Reactor[],
    private readonly options: ReactorRunnerOptions = {},
  ) {}

  async start(): Promise<void> {
    this.stopped = false;
    await this.reads.ensureCollection({ name: REACTOR_FAILURES });
    this.unsubscribe = this.events.onAppended(() => void this.trigger());
    await this.trigger();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.unsubscribe?.();
    this.unsubscribe = null;
    if (this.retryTimer) clearTimeout(this.retryTimer);
    await this.passes.current;
    await this.saveSkipped();
  }

  trigger(): Promise<void> {
    return this.passes.trigger();
  }

  private checkpoints: Record<string, number> | null = null;
  private unsaved: Record<string, number> = {};
  private savedAt = 0;

  private async saveSkipped(): Promise<void> {
    const pending = this.unsaved;
    this.unsaved = {};
    this.savedAt = Date.now();
    if (Object.keys(pending).length) await this.reads.commit([], pending);
  }

  /**
   * Brings every reactor up to the head of the log. Goes through the same single-flight pass as the
   * append signal: two passes at once would hand the same event to a reactor twice.
   */
  catchUp(): Promise<void> {
    return this.passes.trigger();
  }

  /** One pass: one read of the log per batch for all reactors. */
  private async pass(): Promise<void> {
    const batchSize = this.options.batchSize ?? 200;
    this.checkpoints ??= await this.reads.getCheckpoints(this.reactors.map((r) => CHECKPOINT(r.name)));
    const cp = this.checkpoints;
    const blocked = new Set<string>();
    for (;;) {
      const active = this.reactors.filter((r) => !blocked.has(r.name));
      if (active.length === 0) return;
      const from = Math.min(...active.map((r) => cp[CHECKPOINT(r.name)] ?? 0));
      const batch = (await this.events.readAll(from, batchSize)).map(upcast);
      if (batch.length === 0) return;
      const moved: Record<string, number> = {};
      for (const reactor of active) {
        const name = CHECKPOINT(reactor.name);
        for (const event of batch) {
          if (event.global_position <= (cp[name] ?? 0)) continue;
          if (reactor.handles.has(event.type)) {
            if (!(await this.reactOnce(reactor, event))) {
              blocked.add(reactor.name);
              break;
            }
            // A handled event is checkpointed at once: a crash replays at most the one in flight.
            cp[name] = event.global_position;
            await this.reads.commit([], { [name]: event.global_position });
            delete moved[name];
          } else {
            cp[name] = event.global_position;
            moved[name] = event.global_position;
          }
        }
      }
      // Skipping events a reactor ignores needs no durability: after a crash it would skip them
      // again. So those checkpoints are saved at most once a second, not once per append.
      if (Object.keys(moved).length) {
        Object.assign(this.unsaved, moved);
        if (Date.now() - this.savedAt >= 1000) await this.saveSkipped();
      }
      if (batch.length < batchSize) return;
      if (this.stopped) return;
    }
  }

  private async reactOnce(reactor: Reactor, event: StoredEvent): Promise<boolean> {
    const key = `${reactor.name}:${event.event_id}`;
    const startedAt = Date.now();
    try {
      await reactor.react(event);
      this.options.onReacted?.(reactor.name, event, startedAt);
      this.attempts.delete(key);
      return true;
    } catch (err) {
      this.options.onReacted?.(reactor.name, event, startedAt, err);
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

function errorText(err: unknown): string {
  return String((err as Error)?.message ?? err);
}
