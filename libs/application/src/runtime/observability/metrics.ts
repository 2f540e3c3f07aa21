import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';

/** Seconds buckets from 1 ms to 10 s: API calls, appends and PDF jobs all land inside. */
const SECONDS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

export type MessageOutcome = 'outbox' | 'sent' | 'failed' | 'not_configured' | 'dropped';

/**
 * The process's Prometheus metrics (`GET /metrics`; the worker serves its own on METRICS_PORT).
 * One registry per process (not prom-client's global one), so several apps in one test process
 * never clash. Gauges that describe shared state (projection lag, parked messages) are computed
 * when scraped, by collectors the process registers.
 */
export class Metrics {
  readonly registry = new Registry();

  readonly httpRequestDuration = new Histogram({
    name: 'dojang_http_request_duration_seconds',
    help: 'HTTP requests by method, route template and status.',
    labelNames: ['method', 'route', 'status'] as const,
    buckets: SECONDS,
    registers: [this.registry],
  });

  readonly appendDuration = new Histogram({
    name: 'dojang_event_store_append_duration_seconds',
    help: 'Event store appends, from the call to the durable acknowledgement.',
    labelNames: ['outcome'] as const,
    buckets: SECONDS,
    registers: [this.registry],
  });

  readonly projectionLagEvents = new Gauge({
    name: 'dojang_projection_lag_events',
    help: 'Events in the log that a projection has not applied yet.',
    labelNames: ['projection'] as const,
    registers: [this.registry],
    collect: () => this.runCollectors(),
  });

  readonly projectionLagSeconds = new Gauge({
    name: 'dojang_projection_lag_seconds',
    help: 'Age of the oldest event a projection has not applied yet (0 when caught up).',
    labelNames: ['projection'] as const,
    registers: [this.registry],
  });

  readonly reactorParked = new Gauge({
    name: 'dojang_reactor_parked',
    help: 'Events a reactor failed on and parked for a later retry.',
    registers: [this.registry],
  });

  readonly reactorDead = new Gauge({
    name: 'dojang_reactor_dead',
    help: 'Parked events given up after the last retry: an operator must look.',
    registers: [this.registry],
  });

  readonly webhookDeliveries = new Counter({
    name: 'dojang_webhook_deliveries_total',
    help: 'Webhook delivery attempts by outcome (succeeded, retrying, failed, canceled).',
    labelNames: ['outcome'] as const,
    registers: [this.registry],
  });

  readonly messages = new Counter({
    name: 'dojang_messages_total',
    help: 'E-mails and SMS by channel and outcome (outbox = test mode).',
    labelNames: ['channel', 'outcome'] as const,
    registers: [this.registry],
  });

  readonly signingCertificateRefusals = new Counter({
    name: 'dojang_signing_certificate_refusals_total',
    help: 'Signatures and timestamps refused because the certificate that would make them is revoked, expired or not yet valid (503 signing_certificate_invalid).',
    labelNames: ['reason'] as const,
    registers: [this.registry],
  });

  readonly pdfJobs = new Counter({
    name: 'dojang_pdf_jobs_total',
    help: 'PDF and image jobs by kind and outcome.',
    labelNames: ['kind', 'outcome'] as const,
    registers: [this.registry],
  });

  readonly pdfJobDuration = new Histogram({
    name: 'dojang_pdf_job_duration_seconds',
    help: 'PDF and image jobs by kind.',
    labelNames: ['kind'] as const,
    buckets: SECONDS,
    registers: [this.registry],
  });

  private readonly collectors = new Set<() => Promise<void>>();
  private collecting: Promise<void> | null = null;

  constructor(options: { defaultMetrics?: boolean } = {}) {
    if (options.defaultMetrics !== false) collectDefaultMetrics({ register: this.registry });
  }

  /** Runs before each scrape (e.g. reads checkpoints and the log head into the lag gauges). */
  addCollector(collect: () => Promise<void>): () => void {
    this.collectors.add(collect);
    return () => this.collectors.delete(collect);
  }

  /** Times `work` into a histogram; the outcome label says whether it threw. */
  async time<T>(histogram: Histogram<'outcome'>, work: () => Promise<T>): Promise<T> {
    const end = histogram.startTimer();
    try {
      const result = await work();
      end({ outcome: 'ok' });
      return result;
    } catch (err) {
      end({ outcome: 'error' });
      throw err;
    }
  }

  /** The text exposition format. */
  async expose(): Promise<string> {
    return this.registry.metrics();
  }

  get contentType(): string {
    return this.registry.contentType;
  }

  // A scrape reads every metric; the collectors behind the first gauge run once per scrape,
  // and a failing collector leaves its gauges as they were rather than failing the scrape.
  private async runCollectors(): Promise<void> {
    this.collecting ??= Promise.all([...this.collectors].map((c) => c().catch(() => undefined)))
      .then(() => undefined)
      .finally(() => (this.collecting = null));
    await this.collecting;
  }
}
