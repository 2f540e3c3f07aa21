import { EventStore } from '@dojang/event-store';
import { PROJECTION_STATUS, Projection, ProjectionStatusRow, projectionVersion } from '@dojang/projections';
import { ReadStore } from '@dojang/read-store';
import { measureProjectionLag } from './runtime/observability/lag';

export interface ProjectionStatus {
  name: string;
  version: number;
  /** Global position the projection has applied up to. */
  checkpoint: number;
  /** Events in the log after the checkpoint (at least; see LAG_SCAN_LIMIT). */
  lag_events: number;
  /** Age of the oldest unapplied event; 0 when caught up. */
  lag_seconds: number;
  /** Bumped by every rebuild or version reset. */
  generation: number;
  last_error: string | null;
  last_error_at: string | null;
}

/**
 * Each projection's position, lag, generation and last error, from what the store shares, so the
 * CLI and the admin endpoint report the same wherever the runners are.
 */
export async function projectionStatus(events: EventStore, reads: ReadStore, projections: Projection[], now = new Date()): Promise<ProjectionStatus[]> {
  const names = projections.map((p) => p.name);
  const lags = await measureProjectionLag(events, reads, names, now);
  const generations = await reads.getGenerations(names);
  await reads.ensureCollection({ name: PROJECTION_STATUS });
  const rows = await reads.getMany<ProjectionStatusRow>(PROJECTION_STATUS, names);
  return projections.map((p, i) => ({
    name: p.name,
    version: projectionVersion(p),
    checkpoint: lags[i].checkpoint,
    lag_events: lags[i].events,
    lag_seconds: Math.round(lags[i].seconds * 1000) / 1000,
    generation: generations[p.name] ?? 0,
    last_error: rows.get(p.name)?.last_error ?? null,
    last_error_at: rows.get(p.name)?.last_error_at ?? null,
  }));
}

/** A fixed-width table for terminals. */
export function formatProjectionStatus(rows: ProjectionStatus[]): string {
  const header = ['PROJECTION', 'VERSION', 'CHECKPOINT', 'LAG EVENTS', 'LAG SECONDS', 'GENERATION', 'LAST ERROR'];
  const body = rows.map((r) => [
    r.name,
    String(r.version),
    String(r.checkpoint),
    String(r.lag_events),
    String(r.lag_seconds),
    String(r.generation),
    r.last_error ? `${r.last_error_at} ${r.last_error.split('\n')[0].slice(0, 80)}` : '-',
  ]);
  const widths = header.map((h, i) => Math.max(h.length, ...body.map((b) => b[i].length)));
  return [header, ...body].map((cells) => cells.map((c, i) => (i === cells.length - 1 ? c : c.padEnd(widths[i]))).join('  ')).join('\n');
}

/**
 * Projections recorded on this store (some process ran them: `projection_status`) that this
 * process has not loaded: a plugin the server runs, missing from this process's PROJECTIONS.
 */
export async function unloadedProjections(reads: ReadStore, projections: Projection[]): Promise<string[]> {
  await reads.ensureCollection({ name: PROJECTION_STATUS });
  const loaded = new Set(projections.map((p) => p.name));
  const recorded = await reads.find<ProjectionStatusRow>(PROJECTION_STATUS, {});
  return recorded.map((r) => r.id).filter((name) => !loaded.has(name)).sort();
}

/** What to do about projections a process was asked for or has seen but not loaded. */
export function pluginsNotLoadedHint(configured: string[]): string {
  return `Plugins are loaded from PROJECTIONS (${configured.length ? `here: ${configured.join(',')}` : 'unset in this process'}): set it to the same modules as the server's.`;
}

