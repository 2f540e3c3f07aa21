import { randomBytes } from 'crypto';
import { hostname } from 'os';
import { DocumentCommand, DocumentState, DomainError, documentDecider, documentStreamId } from '@dojang/domain';
import { ORGANIZATIONS, OrganizationRow } from '@dojang/projections';
import { Clock } from '../clock';
import { Infrastructure } from '../runtime/infrastructure';
import { newTimer, nextReminderDue, quietOf } from './document-timers.reactor';
import { TIMERS, TIMERS_COLLECTION, TimerRow, reminderTimerId } from './timers';

/**
 * An automatic reminder is skipped when any reminder went out this recently. It also makes a
 * re-fire harmless: if a worker dies after appending ReminderSent but before marking the timer
 * done, the next claimant's reminder meets this cooldown instead of mailing everyone twice.
 */
export const AUTOMATIC_REMINDER_COOLDOWN_SECONDS = 60 * 60;
export const DEFAULT_TIMER_LEASE_MS = 60_000;

export interface TickStats {
  fired: number;
  /** Fired, but the command had nothing to do or was refused (already finished, cooldown…). */
  noop: number;
  lost: number;
  errors: number;
}

export interface TimerServiceOptions {
  leaseMs?: number;
  batchSize?: number;
  onError?: (err: unknown, timerId: string) => void;
  /**
   * Fires an `archive_timestamp` timer (the archive job, archive/archive-timestamper.ts): its
   * outcome, and when to look again if the timer is not done (`retry_at`). Absent: such timers end
   * with the outcome `archive_disabled`.
   */
  archive?: (timer: TimerRow) => Promise<{ outcome: string; retry_at?: string }>;
}

/**
 * Fires due timers through the generic command handler. Idempotent end to end: a claim is a
 * compare-and-swap on the timer row; ExpireDocument is a no-op unless the document is still sent
 * and overdue; automatic reminders carry a cooldown; follow-up timers are insert-if-absent.
 */
export class TimerService {
  readonly owner = `${hostname()}:${process.pid}:${randomBytes(4).toString('hex')}`;
  private current: Promise<TickStats> | null = null;

  constructor(
    private readonly infra: Infrastructure,
    private readonly clock: Clock,
    private readonly options: TimerServiceOptions = {},
  ) {}

  async init(): Promise<void> {
    await this.infra.reads.ensureCollection(TIMERS_COLLECTION);
  }

  /** Fires every timer due now. Concurrent calls queue, like WebhookDispatcher.dispatchDue. */
  async tick(): Promise<TickStats> {
    while (this.current) await this.current.catch(() => undefined);
    const pass = this.pass().finally(() => {
      if (this.current === pass) this.current = null;
    });
    this.current = pass;
    return pass;
  }

  private async pass(): Promise<TickStats> {
    const stats: TickStats = { fired: 0, noop: 0, lost: 0, errors: 0 };
    const seen = new Set<string>();
    const batchSize = this.options.batchSize ?? 100;
    for (;;) {
      const due = await this.infra.reads.find<TimerRow>(TIMERS, {
        where: { status: { $in: ['pending', 'firing'] }, claimable_at: { $lte: this.clock.now().toISOString() } },
        orderBy: [{ field: 'claimable_at', direction: 'asc' }],
        limit: batchSize,
      });
      const fresh = due.filter((t) => !seen.has(t.id));
      if (fresh.length === 0) return stats;
      for (const timer of fresh) {
        seen.add(timer.id);
        try {
          await this.fire(timer, stats);
        } catch (err) {
          stats.errors++;
          this.options.onError?.(err, timer.id);
        }
      }
      if (due.length < batchSize) return stats;
    }
  }

  private async fire(timer: TimerRow, stats: TickStats): Promise<void> {
    const version = timer._version ?? 0;
    const now = this.clock.now();
    const claimed: TimerRow = {
      ...timer,
      status: 'firing',
      claimable_at: new Date(now.getTime() + (this.options.leaseMs ?? DEFAULT_TIMER_LEASE_MS)).toISOString(),
      lease_owner: this.owner,
    };
    if (!(await this.infra.reads.putIfVersion(TIMERS, claimed, version))) {
      stats.lost++;
      return;
    }
    const nowIso = () => this.clock.now().toISOString();
    if (timer.kind === 'archive_timestamp') return this.fireArchive(timer, claimed, version, stats);
    const command: DocumentCommand =
      timer.kind === 'expire_document'
        ? { type: 'ExpireDocument', now: nowIso() }
        : { type: 'RemindParticipants', automatic: true, cooldown_seconds: AUTOMATIC_REMINDER_COOLDOWN_SECONDS, now: nowIso() };
    let outcome: string;
    let state: DocumentState;
    try {
      const decision = await this.infra.commands.decide(
        documentDecider,
        documentStreamId(timer.document_id),
        command,
        { actor: 'system', organization_id: timer.organization_id, livemode: timer.livemode, causation_id: timer.id, correlation_id: timer.id },
        nowIso,
      );
      state = decision.state;
      outcome = decision.events.map((e) => e.type).join(',') || 'nothing_to_do';
    } catch (err) {
      if (!(err instanceof DomainError)) throw err;
      // Finished, nobody left to remind, or reminded very recently: the timer has done its job.
      state = (await this.infra.commands.load(documentDecider, documentStreamId(timer.document_id))).state;
      outcome = err.code;
    }

    let followUp: TimerRow | null = null;
    if (timer.kind === 'remind_document' && state.status === 'sent') {
      const org = await this.infra.reads.get<OrganizationRow>(ORGANIZATIONS, timer.organization_id);
      const due = nextReminderDue(timer.due_at, org?.reminder_interval_days, state.expires_at, quietOf(org));
      if (due) followUp = newTimer({ ...timer, id: reminderTimerId(timer.document_id, timer.sequence + 1), due_at: due, sequence: timer.sequence + 1 }, nowIso());
    }
    if (followUp) await this.infra.reads.putIfVersion(TIMERS, followUp, null);

    const done: TimerRow = { ...claimed, status: 'done', lease_owner: null, fired_at: nowIso(), outcome };
    if (!(await this.infra.reads.putIfVersion(TIMERS, done, version + 1))) {
      stats.lost++;
      return;
    }
    if (outcome === 'DocumentExpired' || outcome === 'ReminderSent') stats.fired++;
    else stats.noop++;
  }

  /** The archive job's timer: done once it extended the file, back to pending (with its new due date) otherwise. */
  private async fireArchive(timer: TimerRow, claimed: TimerRow, version: number, stats: TickStats): Promise<void> {
    const result = this.options.archive ? await this.options.archive(timer) : { outcome: 'archive_disabled' };
    const nowIso = this.clock.now().toISOString();
    const next: TimerRow = result.retry_at
      ? { ...claimed, status: 'pending', due_at: result.retry_at, claimable_at: result.retry_at, lease_owner: null, fired_at: nowIso, outcome: result.outcome }
      : { ...claimed, status: 'done', lease_owner: null, fired_at: nowIso, outcome: result.outcome };
    if (!(await this.infra.reads.putIfVersion(TIMERS, next, version + 1))) {
      stats.lost++;
      return;
    }
    if (result.outcome === 'DocumentArchiveTimestamped') stats.fired++;
    else stats.noop++;
  }
}
