import { DomainError, OrganizationEvent, organizationDecider, organizationStreamId, reservationPastGrace } from '@dojang/domain';
import { ORGANIZATIONS, OrganizationRow } from '@dojang/projections';
import { Clock } from '../clock';
import { Infrastructure } from '../infrastructure';
import { bulkSendExists } from './bulk-send.service';

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
 * sweep gives such reservations back: one older than ORPHANED_RESERVATION_GRACE_MS (judged by the
 * decider on the organization's stream, not only by the read model) whose bulk-send stream does
 * not exist is released with `CreditReservationReleased`.
 *
 * A reservation whose job exists is never touched: its rows settle it. Run by every worker, at
 * least once: two sweeps of the same reservation both decide on the organization's stream, and the
 * second finds it gone (or loses the append and, deciding again, finds it gone): released once.
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
      // The read model's time is a first filter only (an entry projected before it was kept has
      // none and is looked at); the decider judges the grace on the stream's own reserved_at.
      if (!reservationPastGrace(held.reserved_at, now())) continue;
      try {
        if (await bulkSendExists(this.infra, reservationId)) {
          stats.withJob++;
          continue;
        }
        const decision = await this.infra.commands.execute(
          organizationDecider,
          organizationStreamId(org.id),
          { type: 'ReleaseOrphanedReservation', reservation_id: reservationId, now: now() },
          { actor: 'system', organization_id: org.id, livemode: true, causation_id: reservationId },
          now,
        );
        const released = decision.events.find((e): e is Extract<OrganizationEvent, { type: 'CreditReservationReleased' }> => e.type === 'CreditReservationReleased');
        if (released) {
          stats.released += 1;
          this.infra.logger.warn(
            { organization_id: org.id, reservation_id: reservationId, released: released.data.released },
            'credit reservation released: no bulk send was started under it',
          );
        }
      } catch (err) {
        // Younger than the grace on the stream (a read row without reserved_at): the next sweep looks again.
        if (err instanceof DomainError && err.code === 'reservation_in_grace') continue;
        // One reservation that cannot be released now (the store away) does not keep the others held; the next sweep tries again.
        stats.failed++;
        this.infra.logger.warn({ err, organization_id: org.id, reservation_id: reservationId }, 'credit reservation sweep failed');
      }
    }
  }
}
