import { OrganizationEvent, bulkSendDecider, bulkSendStreamId, organizationDecider, organizationStreamId, reservationPastGrace } from '@dojang/domain';
import { BULK_SENDS, ORGANIZATIONS, OrganizationRow } from '@dojang/projections';
import { Clock } from '../clock';
import { Infrastructure } from '../runtime/infrastructure';

export interface ReservationSweepStats {
  /** Reservations given back: no bulk send was started under them. */
  released: number;
  /** Reservations past the grace period whose job exists: left to the job's own settles. */
  withJob: number;
  /** Releases that failed (logged); the next sweep tries them again. */
  failed: number;
}

/** Organizations read per page while looking for reservations. */
const PAGE = 100;

/**
 * A live bulk send reserves credits on its organization's stream before it appends
 * `BulkSendStarted` on its own (the two streams cannot be written in one append). A process
 * killed between the two, or an append that failed and whose best-effort give-back failed too,
 * leaves a reservation no job will ever settle: the organization's credits held for good. This
 * sweep gives such a reservation back once it is ORPHANED_RESERVATION_GRACE_MS old (the
 * organization decider judges that on the stream's own reserved_at):
 *
 * 1. `BulkSendAbandoned` on the job's stream, appended only if that stream is empty. A job that
 *    did start keeps its hold (its rows settle it) and nothing is written; and a start still on its
 *    way (a process frozen past the grace, then resumed) is refused afterwards, instead of running
 *    a job whose credits were given back. Without this fence, "no job yet" read by the sweep could
 *    be stale by the time it releases.
 * 2. `CreditReservationReleased` on the organization's stream, for an abandoned id only.
 *
 * Run by every worker, at least once: each step is decided on its stream (a second sweep finds the
 * id abandoned and the reservation gone, or loses the append and, deciding again, finds them so),
 * so a reservation is released once; a sweep that dies between the steps is finished by the next.
 */
export class OrphanedReservationSweeper {
  constructor(
    private readonly infra: Infrastructure,
    private readonly clock: Clock,
  ) {}

  async sweep(): Promise<ReservationSweepStats> {
    const stats: ReservationSweepStats = { released: 0, withJob: 0, failed: 0 };
    // Paged by id, so organizations with many running jobs cannot hide an orphan past a limit.
    for (let after = ''; ; ) {
      const page = await this.infra.reads.find<OrganizationRow>(ORGANIZATIONS, {
        where: { credits_reserved: { $gt: 0 }, ...(after ? { id: { $gt: after } } : {}) },
        orderBy: [{ field: 'id', direction: 'asc' }],
        limit: PAGE,
      });
      for (const org of page) await this.sweepOrganization(org, stats);
      if (page.length < PAGE) return stats;
      after = page[page.length - 1].id;
    }
  }

  private async sweepOrganization(org: OrganizationRow, stats: ReservationSweepStats): Promise<void> {
    const now = () => this.clock.now().toISOString();
    for (const [reservationId, held] of Object.entries(org.reservations ?? {})) {
      try {
        // An entry projected before reserved_at was kept has none: the stream has it.
        const reservedAt = held.reserved_at ?? (await this.infra.commands.load(organizationDecider, organizationStreamId(org.id))).state.reservations?.[reservationId]?.reserved_at;
        if (!reservedAt || !reservationPastGrace(reservedAt, now())) continue;
        // A job's read row: it started; its rows settle its hold (no read of its stream, however long).
        if (await this.infra.reads.get(BULK_SENDS, reservationId)) {
          stats.withJob++;
          continue;
        }
        // Fence the id before giving its hold back: appended on an empty stream only, so either a
        // job started (its row lagging) and nothing changes, or no start can land after this one.
        const context = { actor: 'system', organization_id: org.id, livemode: true, causation_id: reservationId };
        const job = await this.infra.commands.decide(
          bulkSendDecider,
          bulkSendStreamId(reservationId),
          { type: 'AbandonUnstartedBulkSend', bulk_send_id: reservationId, organization_id: org.id, now: now() },
          context,
          now,
          { newStream: true },
        );
        if (job.state.exists) {
          stats.withJob++;
          continue;
        }
        // Abandoned, now or by an earlier sweep that died before this step.
        const decision = await this.infra.commands.decide(organizationDecider, organizationStreamId(org.id), { type: 'ReleaseOrphanedReservation', reservation_id: reservationId, now: now() }, context, now);
        const released = decision.events.find((e): e is Extract<OrganizationEvent, { type: 'CreditReservationReleased' }> => e.type === 'CreditReservationReleased');
        if (released) {
          stats.released += 1;
          this.infra.logger.warn(
            { organization_id: org.id, reservation_id: reservationId, released: released.data.released },
            'credit reservation released: no bulk send was started under it',
          );
        }
      } catch (err) {
        // One reservation that cannot be released now (the store away) does not keep the others held; the next sweep tries again.
        stats.failed++;
        this.infra.logger.warn({ err, organization_id: org.id, reservation_id: reservationId }, 'credit reservation sweep failed');
      }
    }
  }
}
