import { Clock } from '../clock';
import { Infrastructure } from '../runtime/infrastructure';
import { Reactor } from '../reactors/reactor-runner';
import { DocumentTimersReactor } from '../timers/document-timers.reactor';
import { TickStats, TimerService, TimerServiceOptions } from '../timers/timer-service';
import { WebhookDeliveryReactor } from './webhook-delivery.reactor';
import { WebhookDispatcher, WebhookDispatcherOptions } from './webhook-dispatcher';

export interface DeliveryLoopOptions {
  /**
   * How often the worker looks for due timers and webhook deliveries. 0 turns the background loop
   * off (tests drive `tick()` and `webhooks.dispatchDue()` themselves with a ManualClock).
   * Default 1000 ms.
   */
  tickIntervalMs?: number;
  webhooks?: WebhookDispatcherOptions;
  timers?: TimerServiceOptions;
}

export const DEFAULT_TICK_INTERVAL_MS = 1000;

/**
 * Everything time-driven in the worker: the reactors that write due-dates (delivery rows, document
 * timers) and the loop that claims and fires them. State lives in the read store, so a restarted
 * worker continues exactly where the last one stopped.
 */
export class DeliveryLoop {
  readonly webhooks: WebhookDispatcher;
  readonly timers: TimerService;
  readonly reactors: Reactor[];
  private interval: NodeJS.Timeout | null = null;
  private running: Promise<void> | null = null;
  private stopped = false;

  constructor(
    private readonly infra: Infrastructure,
    clock: Clock,
    private readonly options: DeliveryLoopOptions = {},
  ) {
    const log = (what: string) => (err: unknown, id?: string) => infra.logger.warn({ err, id }, `${what} failed`);
    this.webhooks = new WebhookDispatcher(infra, clock, { onError: log('webhook delivery'), ...(options.webhooks ?? {}) });
    this.timers = new TimerService(infra, clock, { onError: log('timer'), ...(options.timers ?? {}) });
    this.reactors = [new WebhookDeliveryReactor(infra, clock, () => this.nudge()), new DocumentTimersReactor(infra, clock)];
  }

  private get intervalMs(): number {
    return this.options.tickIntervalMs ?? DEFAULT_TICK_INTERVAL_MS;
  }

  async init(): Promise<void> {
    await this.webhooks.init();
    await this.timers.init();
  }

  start(): void {
    if (this.intervalMs <= 0 || this.interval) return;
    this.interval = setInterval(() => this.nudge(), this.intervalMs);
    this.interval.unref();
  }

  /** Fires due timers (expiry, automatic reminders). */
  tick(): Promise<TickStats> {
    return this.timers.tick();
  }

  /** A background pass now (new deliveries go out at once rather than on the next interval). */
  private nudge(): void {
    if (this.intervalMs <= 0 || this.stopped || this.running) return;
    this.running = (async () => {
      try {
        await this.timers.tick();
        await this.webhooks.dispatchDue();
      } catch (err) {
        this.infra.logger.error({ err }, 'delivery loop failed');
      } finally {
        this.running = null;
      }
    })();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.interval) clearInterval(this.interval);
    this.interval = null;
    await this.running;
    await this.webhooks.stop();
  }
}
