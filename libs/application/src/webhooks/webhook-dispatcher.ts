import { randomBytes } from 'crypto';
import { hostname } from 'os';
import { DomainError, webhookEndpointDecider, webhookEndpointStreamId, webhookSigningSecrets } from '@dojang/domain';
import { WEBHOOK_ENDPOINTS, WebhookEndpointRow, backoffDelay } from '@dojang/projections';
import {
  DEFAULT_WEBHOOK_TIMEOUT_MS,
  MAX_WEBHOOK_ATTEMPTS,
  ResolvedAddress,
  WebhookDeliveryResult,
  buildWebhookHeaders,
  deliverWebhook,
  isSuccessfulDelivery,
  nextRetryDelayMs,
  shouldDisableEndpoint,
} from '@dojang/webhooks';
import { Clock } from '../clock';
import { Infrastructure } from '../runtime/infrastructure';
import { isStoreUnavailable } from '../runtime/store-unavailable';
import { WEBHOOK_DELIVERIES, WEBHOOK_DELIVERIES_COLLECTION, WebhookAttempt, WebhookDeliveryRow } from './webhook-deliveries';
import { WebhookSecretBox } from './webhook-secret-box';

export interface WebhookDispatcherOptions {
  /** Per attempt; default 10 s. */
  timeoutMs?: number;
  /**
   * How long a claimed attempt stays reserved for its worker. Must outlast the timeout: if the
   * worker dies, the delivery becomes due again when its lease ends and another worker retries it.
   */
  leaseMs?: number;
  /** Deliveries sent in parallel by one worker. */
  concurrency?: number;
  /** Rows read per query. */
  batchSize?: number;
  /** Jitter source for the retry schedule (tests pin it). */
  random?: () => number;
  /** DNS for the connect-time address check (tests simulate answers). */
  resolveHost?: (hostname: string) => Promise<ResolvedAddress[]>;
  /** Replaces the HTTP call (benchmarks and fault injection); defaults to deliverWebhook. */
  deliver?: typeof deliverWebhook;
  onError?: (err: unknown, deliveryId?: string) => void;
  /** Waits between tries to record an outcome while the store is away (tests skip them). */
  sleep?: (ms: number) => Promise<void>;
}

export interface DispatchStats {
  attempted: number;
  succeeded: number;
  retrying: number;
  failed: number;
  canceled: number;
  /** Claims lost to another worker, or results dropped because another worker took over. */
  lost: number;
  errors: number;
}

const emptyStats = (): DispatchStats => ({ attempted: 0, succeeded: 0, retrying: 0, failed: 0, canceled: 0, lost: 0, errors: 0 });

export const DEFAULT_WEBHOOK_LEASE_MS = 60_000;

const iso = (ms: number) => new Date(ms).toISOString();

/**
 * Sends due webhook deliveries. A delivery is claimed before it is sent: one compare-and-swap on
 * its row (version check) marks it `delivering`, records the attempt as started, and moves
 * `next_attempt_at` to the end of a lease. Only the claimant sends, and only a writer holding the
 * version it claimed at can record the outcome. A worker killed mid-attempt leaves the row
 * `delivering`; when the lease ends any worker claims it again, notes the interrupted attempt,
 * and resends the same bytes under the same webhook-id.
 */
export class WebhookDispatcher {
  readonly owner = `${hostname()}:${process.pid}:${randomBytes(4).toString('hex')}`;
  private readonly box: WebhookSecretBox;
  private current: Promise<DispatchStats> | null = null;
  private stopped = false;

  constructor(
    private readonly infra: Infrastructure,
    private readonly clock: Clock,
    private readonly options: WebhookDispatcherOptions = {},
  ) {
    this.box = WebhookSecretBox.fromConfig(infra.config);
  }

  async init(): Promise<void> {
    await this.infra.reads.ensureCollection(WEBHOOK_DELIVERIES_COLLECTION);
  }

  /**
   * Attempts every delivery due now (including retries whose time has come and attempts whose
   * worker's lease ran out). Calls made while a pass is running wait for it and then run their
   * own, so when the promise resolves everything due at call time has been attempted.
   */
  async dispatchDue(): Promise<DispatchStats> {
    while (this.current) await this.current.catch(() => undefined);
    if (this.stopped) return emptyStats();
    const pass = this.pass().finally(() => {
      if (this.current === pass) this.current = null;
    });
    this.current = pass;
    return pass;
  }

  /** Lets the running pass finish; later calls do nothing. */
  async stop(): Promise<void> {
    this.stopped = true;
    await this.current?.catch(() => undefined);
  }

  private async pass(): Promise<DispatchStats> {
    const stats = emptyStats();
    const seen = new Set<string>();
    const batchSize = this.options.batchSize ?? 100;
    const disabledNow = new Set<string>();
    for (;;) {
      if (this.stopped) return stats;
      const due = await this.infra.reads.find<WebhookDeliveryRow>(WEBHOOK_DELIVERIES, {
        where: { status: { $in: ['pending', 'delivering'] }, next_attempt_at: { $lte: this.clock.now().toISOString() } },
        orderBy: [{ field: 'next_attempt_at', direction: 'asc' }],
        limit: batchSize,
      });
      const fresh = due.filter((row) => !seen.has(row.id));
      if (fresh.length === 0) return stats;
      for (const row of fresh) seen.add(row.id);
      await this.pool(fresh, async (row) => {
        try {
          await this.dispatchOne(row, stats, disabledNow);
        } catch (err) {
          stats.errors++;
          this.options.onError?.(err, row.id);
        }
      });
      if (due.length < batchSize) return stats;
    }
  }

  private async pool<T>(items: T[], work: (item: T) => Promise<void>): Promise<void> {
    let next = 0;
    const lanes = Math.max(1, Math.min(this.options.concurrency ?? 8, items.length));
    await Promise.all(
      Array.from({ length: lanes }, async () => {
        while (next < items.length) await work(items[next++]);
      }),
    );
  }

  private async dispatchOne(row: WebhookDeliveryRow, stats: DispatchStats, disabledNow: Set<string>): Promise<void> {
    const version = row._version ?? 0;
    const now = this.clock.now();
    const attempts = row.attempts.map((a) => ({ ...a }));
    // The previous claimant's lease ran out before it recorded anything: it was killed or hung.
    if (row.status === 'delivering') {
      const last = attempts[attempts.length - 1];
      if (last && last.finished_at === null) {
        attempts[attempts.length - 1] = {
          ...last,
          finished_at: now.toISOString(),
          error_code: 'interrupted',
          error: 'the worker stopped before recording the outcome (lease expired); the receiver may have received this attempt',
        };
      }
    }

    const endpoint = await this.infra.reads.get<WebhookEndpointRow>(WEBHOOK_ENDPOINTS, row.endpoint_id);
    const unusable = !endpoint || endpoint.deleted ? 'endpoint_deleted' : endpoint.status !== 'enabled' || disabledNow.has(endpoint.id) ? 'endpoint_disabled' : null;
    if (unusable || row.attempt_count >= MAX_WEBHOOK_ATTEMPTS) {
      const status = unusable ? 'canceled' : 'failed';
      const done: WebhookDeliveryRow = {
        ...row,
        attempts,
        status,
        next_attempt_at: null,
        lease_owner: null,
        updated_at: now.toISOString(),
        completed_at: now.toISOString(),
        ...(unusable ? { canceled_reason: unusable } : {}),
      };
      if (await this.infra.reads.putIfVersion(WEBHOOK_DELIVERIES, done, version)) {
        stats[status]++;
        this.infra.metrics.webhookDeliveries.inc({ outcome: status });
      }
      else stats.lost++;
      return;
    }

    const claimed = this.claim(row, attempts, now);
    const attemptNo = claimed.attempt_count;
    const started = claimed.attempts[claimed.attempts.length - 1];
    if (!(await this.infra.reads.putIfVersion(WEBHOOK_DELIVERIES, claimed, version))) {
      stats.lost++;
      return;
    }
    stats.attempted++;

    // The fence, just before the request: a worker frozen between its claim and its send (past its
    // lease) finds the row moved on, or its lease over, and sends nothing.
    const fence = await this.stillHeld(claimed, version + 1);
    if (fence) {
      stats.lost++;
      this.infra.logger.warn({ delivery_id: row.id, webhook_id: row.webhook_id, attempt: attemptNo, reason: fence }, 'webhook delivery attempt dropped: its claim no longer holds');
      return;
    }
    const result = await this.send(row, endpoint!, now);
    const finished = this.clock.now();
    const attempt: WebhookAttempt = {
      ...started,
      finished_at: finished.toISOString(),
      status_code: result.status,
      error_code: result.errorCode ?? null,
      error: result.error ?? null,
      duration_ms: result.durationMs,
      response_body: result.responseBodySnippet ?? null,
    };
    const base = { ...claimed, attempts: [...attempts, attempt], lease_owner: null, updated_at: finished.toISOString() };
    let outcome: WebhookDeliveryRow;
    let gone = false;
    if (isSuccessfulDelivery(result)) {
      outcome = { ...base, status: 'succeeded', next_attempt_at: null, completed_at: finished.toISOString() };
    } else if (shouldDisableEndpoint(result.status)) {
      gone = true;
      outcome = { ...base, status: 'failed', next_attempt_at: null, completed_at: finished.toISOString() };
    } else {
      const delay = nextRetryDelayMs(attemptNo, this.options.random);
      outcome =
        delay === null
          ? { ...base, status: 'failed', next_attempt_at: null, completed_at: finished.toISOString() }
          : { ...base, status: 'pending', next_attempt_at: iso(finished.getTime() + delay) };
    }
    if (!(await this.recordOutcome(outcome, version + 1))) {
      // Our lease ran out and another worker claimed the delivery: its record wins.
      stats.lost++;
      this.infra.logger.warn({ delivery_id: row.id, webhook_id: row.webhook_id, attempt: attemptNo }, 'webhook delivery outcome dropped: another worker took the delivery over');
      return;
    }
    if (outcome.status === 'succeeded') stats.succeeded++;
    else if (outcome.status === 'failed') stats.failed++;
    else stats.retrying++;
    this.infra.metrics.webhookDeliveries.inc({ outcome: outcome.status === 'pending' ? 'retrying' : outcome.status });
    if (outcome.status !== 'succeeded') {
      // The endpoint's URL is not logged: integrators put credentials in query strings.
      this.infra.logger.warn(
        { delivery_id: row.id, endpoint_id: row.endpoint_id, status_code: result.status, error_code: result.errorCode ?? null, next_attempt_at: outcome.next_attempt_at },
        'webhook delivery attempt failed',
      );
    }
    if (gone) {
      disabledNow.add(row.endpoint_id);
      await this.disableGone(row);
    }
  }

  private async send(row: WebhookDeliveryRow, endpoint: WebhookEndpointRow, now: Date): Promise<WebhookDeliveryResult> {
    let secret: string[];
    try {
      // During a rotation's grace period both secrets sign (new first): `v1,<new> v1,<old>`.
      secret = webhookSigningSecrets(endpoint, now).map((ciphertext) => this.box.open(endpoint.id, ciphertext));
    } catch (err) {
      return { status: null, errorCode: 'invalid_request', error: `cannot open the endpoint secret: ${(err as Error).message}`, durationMs: 0 };
    }
    const headers = buildWebhookHeaders({ secret, id: row.webhook_id, timestamp: Math.floor(now.getTime() / 1000), body: row.body });
    const deliver = this.options.deliver ?? deliverWebhook;
    return deliver({
      url: endpoint.url,
      headers,
      body: row.body,
      timeoutMs: this.options.timeoutMs ?? DEFAULT_WEBHOOK_TIMEOUT_MS,
      allowPrivateNetworks: this.infra.config.webhookAllowPrivateNetworks,
      ...(this.options.resolveHost ? { resolveHost: this.options.resolveHost } : {}),
    });
  }

  /**
   * One attempt now, outside the retry schedule: a test delivery or an integrator's redelivery of
   * a finished one. It is claimed like any attempt (so a worker never sends it at the same time)
   * and its outcome is final: a manual attempt that fails is not retried on its own.
   * Returns null when another writer changed the row first.
   */
  /** The row claimed for one more attempt: a started attempt appended, leased to this worker. */
  private claim(row: WebhookDeliveryRow, previous: WebhookAttempt[], now: Date): WebhookDeliveryRow {
    const started: WebhookAttempt = {
      attempt: row.attempt_count + 1,
      started_at: now.toISOString(),
      finished_at: null,
      status_code: null,
      error_code: null,
      error: null,
      duration_ms: null,
      response_body: null,
    };
    return {
      ...row,
      attempts: [...previous, started],
      attempt_count: started.attempt,
      status: 'delivering',
      next_attempt_at: iso(now.getTime() + (this.options.leaseMs ?? DEFAULT_WEBHOOK_LEASE_MS)),
      lease_owner: this.owner,
      updated_at: now.toISOString(),
    };
  }

  async attemptNow(row: WebhookDeliveryRow, endpoint: WebhookEndpointRow): Promise<WebhookDeliveryRow | null> {
    const version = row._version ?? 0;
    const now = this.clock.now();
    const claimed: WebhookDeliveryRow = { ...this.claim(row, row.attempts, now), completed_at: null };
    const started = claimed.attempts[claimed.attempts.length - 1];
    if (!(await this.infra.reads.putIfVersion(WEBHOOK_DELIVERIES, claimed, version))) return null;
    if (await this.stillHeld(claimed, version + 1)) return null;
    const result = await this.send(row, endpoint, now);
    const finished = this.clock.now();
    const attempt: WebhookAttempt = {
      ...started,
      finished_at: finished.toISOString(),
      status_code: result.status,
      error_code: result.errorCode ?? null,
      error: result.error ?? null,
      duration_ms: result.durationMs,
      response_body: result.responseBodySnippet ?? null,
    };
    const { canceled_reason: _dropped, ...rest } = claimed;
    const outcome: WebhookDeliveryRow = {
      ...rest,
      attempts: [...row.attempts, attempt],
      status: isSuccessfulDelivery(result) ? 'succeeded' : 'failed',
      next_attempt_at: null,
      lease_owner: null,
      updated_at: finished.toISOString(),
      completed_at: finished.toISOString(),
    };
    if (!(await this.recordOutcome(outcome, version + 1))) return null;
    this.infra.metrics.webhookDeliveries.inc({ outcome: outcome.status });
    return outcome;
  }

  /**
   * Null while this worker's claim holds (the row is still at the version it claimed at, and the
   * lease has not ended by this worker's clock); else why not. A store error is thrown: the check
   * cannot decide, so nothing is sent (the claim runs out and the delivery is tried again).
   */
  private async stillHeld(claimed: WebhookDeliveryRow, version: number): Promise<string | null> {
    const now = this.clock.now().getTime();
    if (claimed.next_attempt_at && Date.parse(claimed.next_attempt_at) <= now) return 'lease_expired';
    const row = await this.infra.reads.get<WebhookDeliveryRow>(WEBHOOK_DELIVERIES, claimed.id);
    if (!row || (row._version ?? 0) !== version || row.lease_owner !== this.owner) return 'claim_taken_over';
    return null;
  }

  /**
   * Records an attempt's outcome while the claim holds, through store errors: an outcome lost to
   * a dropped connection left the row `delivering` until its lease ended, and the same webhook
   * was sent again a lease later (issue 33, finding 8). A write that landed with its answer lost
   * is recognised by its content. Gives up (throws) once the lease is over: another worker may
   * have taken the delivery by then, and its record wins.
   */
  private async recordOutcome(outcome: WebhookDeliveryRow, version: number): Promise<boolean> {
    const sleep = this.options.sleep ?? ((ms: number) => new Promise<void>((r) => setTimeout(r, ms)));
    const giveUpAt = Date.now() + (this.options.leaseMs ?? DEFAULT_WEBHOOK_LEASE_MS);
    let failed = false;
    for (let failures = 1; ; failures++) {
      try {
        if (await this.infra.reads.putIfVersion(WEBHOOK_DELIVERIES, outcome, version)) return true;
        if (!failed) return false;
        const now = await this.infra.reads.get<WebhookDeliveryRow>(WEBHOOK_DELIVERIES, outcome.id);
        // Compared by the attempt's own times (PostgreSQL's jsonb does not keep key order).
        const mine = outcome.attempts[outcome.attempts.length - 1];
        const theirs = now?.attempts[now.attempts.length - 1];
        return !!now && (now._version ?? 0) === version + 1 && now.status === outcome.status && theirs?.started_at === mine?.started_at && theirs?.finished_at === mine?.finished_at;
      } catch (err) {
        // Only an unreachable store is waited for (not a refusal, nor a worker stopping).
        if (!isStoreUnavailable(err) || this.stopped || Date.now() >= giveUpAt) throw err;
        failed = true;
        await sleep(backoffDelay(failures, { baseMs: 200, maxMs: 5000 }));
      }
    }
  }

  /** 410 Gone: the receiver says the endpoint no longer exists (Standard Webhooks). */
  private async disableGone(row: WebhookDeliveryRow): Promise<void> {
    const now = () => this.clock.now().toISOString();
    let decision;
    try {
      decision = await this.infra.commands.decide(
      webhookEndpointDecider,
      webhookEndpointStreamId(row.endpoint_id),
      { type: 'DisableWebhookEndpoint', reason: 'gone', delivery_id: row.id, now: now() },
      { actor: 'system', organization_id: row.organization_id, livemode: row.livemode, causation_id: row.id },
      now,
    );
    } catch (err) {
      // Deleted meanwhile: nothing left to disable.
      if (err instanceof DomainError && err.kind === 'not_found') return;
      throw err;
    }
    if (decision.position !== null) await this.infra.projections.waitFor(decision.position);
  }
}
