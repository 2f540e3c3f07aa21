/** How a failed pass is retried: exponential back-off from `baseMs` up to `maxMs`, with jitter. */
export interface PassRetry {
  /** First wait after a failure (default 250 ms); doubled per failure in a row. */
  baseMs?: number;
  /** Upper bound of the wait (default 10 s). */
  maxMs?: number;
}

/**
 * The wait before retry number `failures` (1 for the first): exponential, capped, and spread over
 * its upper half at random so that processes that lost the same database at the same moment do
 * not all come back in step.
 */
export function backoffDelay(failures: number, { baseMs = 250, maxMs = 10_000 }: PassRetry = {}, random = Math.random): number {
  const ceiling = Math.min(maxMs, baseMs * 2 ** Math.max(0, Math.min(30, failures - 1)));
  return Math.round(ceiling / 2 + random() * (ceiling / 2));
}

/**
 * Runs a catch-up pass at most once at a time: a trigger during a pass asks for one more pass
 * after it, however many triggers arrive. Both runners (projections, reactors) follow the log so.
 *
 * A pass runs in the background (started by an append signal or a timer, nobody awaiting it), so
 * with an `onError` a failure is reported there and never rejects the trigger; with `retry` too, the
 * pass is tried again after a back-off until one succeeds (the database came back), whether or not
 * anything else triggers it: a quiet log would otherwise leave the work undone until the next append.
 */
export class CoalescingPass {
  private running: Promise<void> | null = null;
  private again = false;
  private failures = 0;
  private retryTimer: NodeJS.Timeout | null = null;

  constructor(
    private readonly pass: () => Promise<void>,
    private readonly keepGoing: () => boolean = () => true,
    private readonly onError?: (err: unknown, failures: number, retryInMs: number | null) => void,
    private readonly retry?: PassRetry,
  ) {}

  trigger(): Promise<void> {
    if (this.running) {
      this.again = true;
      return this.running;
    }
    this.running = (async () => {
      try {
        do {
          this.again = false;
          await this.pass();
        } while (this.again && this.keepGoing());
        this.failures = 0;
      } catch (err) {
        if (!this.onError) throw err;
        this.failures++;
        const wait = this.retry && this.keepGoing() ? backoffDelay(this.failures, this.retry) : null;
        this.onError(err, this.failures, wait);
        if (wait !== null) this.scheduleRetry(wait);
      } finally {
        this.running = null;
      }
    })();
    return this.running;
  }

  private scheduleRetry(wait: number): void {
    if (this.retryTimer) return;
    this.retryTimer = setTimeout(() => {
      this.retryTimer = null;
      if (this.keepGoing()) void this.trigger();
    }, wait);
    // A retry never keeps a process alive on its own.
    this.retryTimer.unref();
  }

  /** Drops a scheduled retry (the owner stops). */
  cancel(): void {
    if (this.retryTimer) clearTimeout(this.retryTimer);
    this.retryTimer = null;
  }

  /** Consecutive failed passes (0 after a success). */
  get failing(): number {
    return this.failures;
  }

  /** The pass in progress, if any (to wait for it before stopping). */
  get current(): Promise<void> | null {
    return this.running;
  }
}
