import { ReadDoc, ReadStore } from '@dojang/read-store';
import { Projection } from './projection';

/**
 * Per-projection bookkeeping shared by every process on a store (not a projection: written with
 * `putIfVersion`): the version whose rows are stored, and the last error a runner hit, so
 * `cli projections status` and the admin endpoint, in other processes, can show it.
 */
export const PROJECTION_STATUS = 'projection_status';

export interface ProjectionStatusRow extends ReadDoc {
  /** The projection's name. */
  id: string;
  version: number;
  last_error: string | null;
  last_error_at: string | null;
  _version?: number;
}

export const projectionVersion = (p: Projection): number => p.version ?? 1;

/**
 * Records each projection's version; a projection whose stored version differs is reset (new
 * generation, checkpoint 0) so the runner replays the log into it. A projection never recorded
 * (an existing data directory, a new plugin) is recorded as is, without a reset: its checkpoint
 * already says how far it is. Of several processes starting at once, the one whose
 * compare-and-set wins resets; the others' runners are fenced by the generation and follow.
 */
export async function reconcileVersions(store: ReadStore, projections: Projection[]): Promise<string[]> {
  await store.ensureCollection({ name: PROJECTION_STATUS });
  const stored = await store.getMany<ProjectionStatusRow>(PROJECTION_STATUS, projections.map((p) => p.name));
  const reset: string[] = [];
  for (const p of projections) {
    const version = projectionVersion(p);
    const row = stored.get(p.name);
    if (!row) {
      await store.putIfVersion(PROJECTION_STATUS, { id: p.name, version, last_error: null, last_error_at: null }, null);
      continue;
    }
    if (row.version === version) continue;
    const { _version, ...rest } = row;
    if (!(await store.putIfVersion(PROJECTION_STATUS, { ...rest, version, last_error: null, last_error_at: null }, _version ?? 0))) continue;
    await store.reset(p.name, p.collections.map((c) => c.name));
    for (const c of p.collections) await store.ensureCollection(c);
    reset.push(p.name);
  }
  return reset;
}

/** Best effort: a store that cannot take the error row is already failing louder elsewhere. */
export async function recordProjectionError(store: ReadStore, names: string[], err: unknown, at: Date): Promise<void> {
  const message = String((err as Error)?.message ?? err).slice(0, 2000);
  await store.ensureCollection({ name: PROJECTION_STATUS });
  const stored = await store.getMany<ProjectionStatusRow>(PROJECTION_STATUS, names);
  for (const name of names) {
    const row = stored.get(name);
    const { _version, ...rest } = row ?? { id: name, version: 1, last_error: null, last_error_at: null };
    await store.putIfVersion(PROJECTION_STATUS, { ...rest, id: name, last_error: message, last_error_at: at.toISOString() }, row ? (_version ?? 0) : null);
  }
}
