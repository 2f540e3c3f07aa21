import { EventStore, StoredEvent } from '@dojang/event-store';
import { CoalescingPass, upcast } from '@dojang/projections';
import { ReadStore } from '@dojang/read-store';

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
  onError?: (reactor: string, event: StoredEvent, err: unknown) => void;
  /** After this many failed attempts an event is parked in `reactor_failures` so others still flow. */
  maxAttempts?: number;
  retryDelayMs?: number;
}

const CHECKPOINT = (name: string) => `reactor:${name}`;
export const REACTOR_FAILURES = 'reactor_failures';

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
    try {
      await reactor.react(event);
      this.attempts.delete(key);
      return true;
    } catch (err) {
      this.options.onError?.(reactor.name, event, err);
      const n = (this.attempts.get(key) ?? 0) + 1;
      this.attempts.set(key, n);
      if (n >= (this.options.maxAttempts ?? 5)) {
        this.attempts.delete(key);
        await this.reads.commit(
          [
            {
              op: 'put',
              collection: REACTOR_FAILURES,
              doc: { id: key, reactor: reactor.name, event_id: event.event_id, type: event.type, error: String((err as Error)?.message ?? err) },
            },
          ],
          {},
        );
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
}
