import { Controller, Get, Inject } from '@nestjs/common';
import { Infrastructure, measureProjectionLag } from '@dojang/application';
import { ApiError } from '../shared/api-error';
import { Public } from '../shared/auth.guard';
import { INFRA } from '../shared/infrastructure.token';
import { HealthResponse, ReadinessResponse } from '../openapi/response-schemas';

const STORE_TIMEOUT_MS = 2000;

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
  constructor(@Inject(INFRA) private readonly infra: Infrastructure) {}

  /** Liveness: the process answers. A load balancer should route by `/v1/health/ready`. */
  @Public()
  @Get()
  async health(): Promise<HealthResponse> {
    const head = await this.infra.events.headPosition();
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
    return {
      status: 'ready' as const,
      store: this.infra.storeKind,
      max_lag_events: Math.max(0, ...lags.map((l) => l.events)),
    };
  }
}
