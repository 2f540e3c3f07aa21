import { QuietHours, deferPastQuietHours, quietHoursOf, timeZoneOf } from '@dojang/domain';
import { StoredEvent } from '@dojang/event-store';
import { ORGANIZATIONS, OrganizationRow } from '@dojang/projections';
import { Clock } from '../clock';
import { Infrastructure } from '../runtime/infrastructure';
import { Reactor } from '../reactors/reactor-runner';
import { TIMERS, TIMERS_COLLECTION, TimerRow, expiryTimerId, reminderTimerId } from './timers';

export const DAY_MS = 24 * 60 * 60 * 1000;
const TERMINAL = ['DocumentCompleted', 'DocumentCanceled', 'DocumentExpired', 'DocumentDeclined', 'DocumentTrashed'];

export function newTimer(
  fields: Pick<TimerRow, 'id' | 'kind' | 'document_id' | 'organization_id' | 'livemode' | 'due_at' | 'sequence'>,
  now: string,
): TimerRow {
  return { ...fields, claimable_at: fields.due_at, status: 'pending', lease_owner: null, fired_at: null, outcome: null, created_at: now };
}

/**
 * The next automatic reminder after `from`, or null: only while reminders are on for the
 * organization (reminder_interval_days) and strictly before the document expires.
 */
export function nextReminderDue(
  from: string,
  intervalDays: number | null | undefined,
  expiresAt: string | null,
  /** The organization's zone and quiet hours: a reminder due at night waits for the morning there. */
  quiet?: { timeZone: string; hours: QuietHours | null },
): string | null {
  if (!intervalDays || intervalDays < 1) return null;
  let due = new Date(Date.parse(from) + intervalDays * DAY_MS).toISOString();
  if (quiet) due = deferPastQuietHours(due, quiet.timeZone, quiet.hours);
  if (expiresAt && Date.parse(due) >= Date.parse(expiresAt)) return null;
  return due;
}

/** The zone and quiet hours of an organization row, for nextReminderDue. */
export const quietOf = (org: OrganizationRow | null | undefined) => ({ timeZone: timeZoneOf(org), hours: quietHoursOf(org) });

/**
 * The expiry and reminder saga's scheduling half: a sent document gets a timer at its expires_at,
 * and, when its organization has reminder_interval_days, its first automatic reminder; once the
 * document is finished its pending timers are canceled. Timers are created insert-if-absent under
 * ids derived from the document, so replaying the log never resets or doubles them.
 */
export class DocumentTimersReactor implements Reactor {
  readonly name = 'document_timers';
  readonly handles = new Set(['DocumentSent', ...TERMINAL]);

  constructor(
    private readonly infra: Infrastructure,
    private readonly clock: Clock,
  ) {}

  async init(): Promise<void> {
    await this.infra.reads.ensureCollection(TIMERS_COLLECTION);
  }

  async react(event: StoredEvent): Promise<void> {
    const documentId = event.stream_id.slice('document-'.length);
    const organizationId = String(event.metadata.organization_id ?? '');
    const livemode = Boolean(event.metadata.livemode);
    const now = this.clock.now().toISOString();
    if (event.type === 'DocumentSent') {
      const data = event.data as { sent_at: string; expires_at: string | null };
      if (data.expires_at) {
        await this.infra.reads.putIfVersion(
          TIMERS,
          newTimer({ id: expiryTimerId(documentId), kind: 'expire_document', document_id: documentId, organization_id: organizationId, livemode, due_at: data.expires_at, sequence: 0 }, now),
          null,
        );
      }
      // The organization's settings as of the send.
      if (!(await this.infra.projections.waitFor(event.global_position))) throw new Error(`projections have not reached position ${event.global_position} yet`);
      const org = await this.infra.reads.get<OrganizationRow>(ORGANIZATIONS, organizationId);
      const due = nextReminderDue(data.sent_at, org?.reminder_interval_days, data.expires_at, quietOf(org));
      if (due) {
        await this.infra.reads.putIfVersion(
          TIMERS,
          newTimer({ id: reminderTimerId(documentId, 1), kind: 'remind_document', document_id: documentId, organization_id: organizationId, livemode, due_at: due, sequence: 1 }, now),
          null,
        );
      }
      return;
    }
    // Finished: nothing left to expire or remind. (Firing would be a no-op anyway; this keeps the table small.)
    const pending = await this.infra.reads.find<TimerRow>(TIMERS, { where: { document_id: documentId, status: 'pending' } });
    for (const timer of pending) {
      await this.infra.reads.putIfVersion(TIMERS, { ...timer, status: 'canceled', outcome: event.type, fired_at: null }, timer._version ?? 0);
    }
  }
}
