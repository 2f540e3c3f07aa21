import { EventStore } from '@dojang/event-store';
import { ReadStore } from '@dojang/read-store';

export interface ProjectionLag {
  projection: string;
  checkpoint: number;
  /** Events after the checkpoint (capped at LAG_SCAN_LIMIT: "at least this many"). */
  events: number;
  /** Age of the oldest unapplied event; 0 when caught up. */
  seconds: number;
}

/** How far one lag measurement reads; beyond it the lag is reported as at least this. */
export const LAG_SCAN_LIMIT = 10_000;

/**
 * How far each projection is behind the log, from the shared checkpoints (so any process can tell,
 * whichever runs the projections). Positions are not dense on every store (EventStoreDB uses commit
 * positions), so lag is counted in events read after the checkpoint, not as a subtraction.
 */
export async function measureProjectionLag(events: EventStore, reads: ReadStore, names: string[], now: Date): Promise<ProjectionLag[]> {
  const checkpoints = await reads.getCheckpoints(names);
  const byCheckpoint = new Map<number, { events: number; seconds: number }>();
  for (const checkpoint of new Set(names.map((n) => checkpoints[n] ?? 0))) {
    const pending = await events.readAll(checkpoint, LAG_SCAN_LIMIT);
    const oldest = pending[0] ? Date.parse(String(pending[0].metadata.occurred_at)) : NaN;
    byCheckpoint.set(checkpoint, {
      events: pending.length,
      seconds: Number.isFinite(oldest) ? Math.max(0, (now.getTime() - oldest) / 1000) : 0,
    });
  }
  return names.map((projection) => {
    const checkpoint = checkpoints[projection] ?? 0;
    return { projection, checkpoint, ...byCheckpoint.get(checkpoint)! };
  });
}
