import { Controller, Get, Inject } from '@nestjs/common';
import { Infrastructure, REACTOR_LEASES, REACTOR_RUNNERS, ReactorLease, measureProjectionLag } from '@dojang/application';
import { ApiError } from '../shared/api-error';
import { Public } from '../shared/auth.guard';
import { INFRA } from '../shared/infrastructure.token';
import { HealthResponse, ReadinessResponse } from '../openapi/response-schemas';

const STORE_TIMEOUT_MS = 2000;
/** Readiness writes to the store at most this often (a counter row), so a probe storm costs little. */
/** Readiness turns 503 within this long of the store refusing writes (issue 33 asks ≤ 5 s). */
export const WRITE_PROBE_MS = 1000;
const MINUTE_MS = 60_000;

const EVENT_STORE_NAMES = { sqlite: 'sqlite', postgres: 'postgresql', 'esdb+mongo': 'eventstoredb' } as const;
const READ_STORE_NAMES = { sqlite: 'sqlite', postgres: 'postgresql', 'esdb+mongo': 'mongodb' } as const;

function within<T>(work: Promise<T>, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} did not answer within ${STORE_TIMEOUT_MS} ms`)), STORE_TIMEOUT_MS);
  });
  return Promise.race([work, timeout]).finally(() => clearTimeout(timer));
}

@Controller('health')
export class HealthHttpController {
  private workerTables = false;
  private lastHead = 0;
  /** When the last write probe succeeded (this process's clock). */
  private lastWriteOk = 0;

  constructor(@Inject(INFRA) private readonly infra: Infrastructure) {}

  /**
   * Why no worker runs the reactors, or null when one does: a live row in `reactor_runners`
   * (renewed by every worker each lease round), and no reactor whose lease ran out a whole lease
   * ago without being taken over (its worker froze or died and no other took its share). Times
   * by the store's clock, as the workers decide their leases.
   */
  private async missingWorker(): Promise<string | null> {
    const { reads } = this.infra;
    if (!this.workerTables) {
      await reads.ensureCollection({ name: REACTOR_RUNNERS });
      await reads.ensureCollection({ name: REACTOR_LEASES });
      this.workerTables = true;
    }
    const now = (reads.serverTime ? await reads.serverTime() : new Date()).getTime();
    const runners = await reads.find<{ id: string; expires_at: string }>(REACTOR_RUNNERS, { limit: 1000 });
    if (!runners.some((r) => Date.parse(r.expires_at) > now)) return 'No live worker runs the reactors (messages, webhooks, timers): start one (ROLE=worker).';
    const leaseMs = this.infra.config.reactorLeaseMs;
    const leases = await reads.find<ReactorLease>(REACTOR_LEASES, { limit: 1000 });
    const orphan = leases.find((l) => l.owner !== null && Date.parse(l.expires_at) < now - leaseMs);
    if (orphan) {
      const ago = Math.round((now - Date.parse(orphan.expires_at)) / 1000);
      return `Reactor ${orphan.id} has not been run for ${ago} s: its worker's lease ran out and no worker took it over.`;
    }
    return null;
  }

  /**
   * A store that answers reads but refuses writes (read-only after a failover, a full disk) takes
   * every write to 503: readiness must say so too. One counter upsert, the cheapest write the
   * stores have, at most once per WRITE_PROBE_MS.
   */
  private async writeProbe(): Promise<void> {
    const now = Date.now();
    if (now - this.lastWriteOk < WRITE_PROBE_MS) return;
    await this.infra.reads.incrementWindow('health:write-probe', now - (now % MINUTE_MS), MINUTE_MS);
    this.lastWriteOk = Date.now();
  }

  /** Liveness: the process answers. A load balancer should route by `/v1/health/ready`. */
  @Public()
  @Get()
  async health(): Promise<HealthResponse> {
    // Liveness must not fail with the database: a process restarted for an outage it cannot fix
    // only comes back to the same outage. The last head it read stands in meanwhile.
    const head = await within(this.infra.events.headPosition(), 'the event store').then(
      (h) => (this.lastHead = h),
      () => this.lastHead,
    );
    return {
      status: 'ok' as const,
      store: this.infra.storeKind,
      event_store: EVENT_STORE_NAMES[this.infra.storeKind],
      read_store: READ_STORE_NAMES[this.infra.storeKind],
      log_position: head,
      projections_position: this.infra.projections.position,
    };
  }

  /**
   * Readiness: 200 only when the stores answer and every projection is within
   * READY_MAX_LAG_EVENTS of the log head (a process that would answer reads from stale models, or
   * whose database is gone, is taken out of rotation); otherwise 503 with the reason.
   */
  @Public()
  @Get('ready')
  async ready(): Promise<ReadinessResponse> {
    const names = this.infra.runner.projections.map((p) => p.name);
    let lags;
    try {
      await within(this.infra.events.headPosition(), 'the event store');
      lags = await within(measureProjectionLag(this.infra.events, this.infra.reads, names, new Date()), 'the read store');
    } catch (err) {
      throw new ApiError(503, 'api_error', 'not_ready', `A store is unavailable: ${(err as Error).message}`);
    }
    try {
      await within(this.writeProbe(), 'a write to the store');
    } catch (err) {
      throw new ApiError(503, 'api_error', 'not_ready', `The store refuses writes: ${(err as Error).message}`);
    }
    const limit = this.infra.config.readyMaxLagEvents;
    const behind = lags.filter((l) => l.events > limit);
    if (behind.length > 0) {
      const worst = behind.reduce((a, b) => (b.events > a.events ? b : a));
      throw new ApiError(
        503,
        'api_error',
        'not_ready',
        `Projection ${worst.projection} is ${worst.events} events (${Math.round(worst.seconds)} s) behind the log; the limit is ${limit}.`,
      );
    }
    // Few events waiting, but for long: whoever projects (on PostgreSQL the process holding the
    // projector seat) is frozen or gone, and every write waits for it.
    const secondsLimit = this.infra.config.readyMaxLagSeconds;
    const stale = lags.filter((l) => l.events > 0 && l.seconds > secondsLimit);
    if (stale.length > 0) {
      const worst = stale.reduce((a, b) => (b.seconds > a.seconds ? b : a));
      throw new ApiError(
        503,
        'api_error',
        'not_ready',
        `Projection ${worst.projection} has had events waiting for ${Math.round(worst.seconds)} s (the limit is ${secondsLimit} s): the process that runs the projections is stalled or gone.`,
      );
    }
    // With ROLE=api the reactors (messages, webhooks, timers) run in separate workers: an API
    // whose workers are all dead or frozen accepts documents nobody will send.
    if (this.infra.config.role === 'api') {
      let missing: string | null;
      try {
        missing = await within(this.missingWorker(), 'the read store');
      } catch (err) {
        throw new ApiError(503, 'api_error', 'not_ready', `A store is unavailable: ${(err as Error).message}`);
      }
      if (missing) throw new ApiError(503, 'api_error', 'not_ready', missing);
    }
    return {
      status: 'ready' as const,
      store: this.infra.storeKind,
      max_lag_events: Math.max(0, ...lags.map((l) => l.events)),
    };
  }
}
