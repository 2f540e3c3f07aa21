import { EventStore, StoredEvent } from '@dojang/event-store';
import { ReadDoc, ReadStore, StaleGenerationError, Write } from '@dojang/read-store';
import { Projection, RowKey, rowKey } from './projection';
import { reconcileVersions } from './projection-status';
import { applyEvents } from './apply-events';
import { upcast } from './upcasters';
import { CoalescingPass } from './coalescing-pass';

export interface ProjectionRunnerOptions {
  batchSize?: number;
  /** Events per commit while rebuilding from zero (one transaction each). */
  rebuildBatchSize?: number;
  /** Called after a batch fails; the runner retries on the next signal. */
  onError?: (err: unknown) => void;
  /** Called after a batch is committed (metrics, tracing: one span per event in its own trace). */
  onApplied?: (batch: StoredEvent[], startedAt: number) => void;
}

/**
 * Feeds projections from the global log. Each batch of events becomes one commit: the row writes
 * of every projection plus their checkpoints (one SQLite transaction). A row remembers the global
 * position of the last event applied to it (`_position`), so replaying an event is a no-op and two
 * runners on the same store (the server and the CLI) converge instead of fighting.
 *
 * A rebuild starts a new generation of its projection. Runners still at the old one (a server
 * while the CLI rebuilds) have their commits refused, reload checkpoints and generations, and go
 * on from where the rebuild stands; rows of an older generation count as absent.
 */
export class ProjectionRunner {
  private readonly passes = new CoalescingPass(
    () => this.catchUp(),
    () => !this.stopped,
    (err) => this.options.onError?.(err),
  );
  private checkpoints: Record<string, number> = {};
  private generations: Record<string, number> = {};
  private reached = 0;
  private waiters: Array<{ position: number; resolve: () => void }> = [];
  private unsubscribe: (() => void) | null = null;
  private stopped = false;

  constructor(
    private readonly events: EventStore,
    private readonly store: ReadStore,
    readonly projections: Projection[],
    private readonly options: ProjectionRunnerOptions = {},
  ) {}

  async init(): Promise<void> {
    for (const p of this.projections) for (const c of p.collections) await this.store.ensureCollection(c);
    await reconcileVersions(this.store, this.projections);
    await this.load();
  }

  private async load(): Promise<void> {
    const names = this.projections.map((p) => p.name);
    this.generations = await this.store.getGenerations(names);
    this.checkpoints = await this.store.getCheckpoints(names);
    this.reached = this.minCheckpoint();
  }

  /** Starts following the log: catch up now, then on every append signal. */
  async start(): Promise<void> {
    await this.init();
    this.stopped = false;
    this.unsubscribe = this.events.onAppended(() => void this.trigger());
    await this.trigger();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.unsubscribe?.();
    this.unsubscribe = null;
    await this.passes.current;
  }

  /** Position every projection has reached. */
  get position(): number {
    return this.reached;
  }

  /** Resolves once every projection has applied the log up to `position` (read-your-writes). */
  waitFor(position: number, timeoutMs = 5000): Promise<boolean> {
    if (this.reached >= position) return Promise.resolve(true);
    void this.trigger();
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        this.waiters = this.waiters.filter((w) => w !== waiter);
        resolve(false);
      }, timeoutMs);
      const waiter = {
        position,
        resolve: () => {
          clearTimeout(timer);
          resolve(true);
        },
      };
      this.waiters.push(waiter);
    });
  }

  /** Runs a catch-up pass; concurrent triggers coalesce into one more pass. */
  trigger(): Promise<void> {
    return this.passes.trigger();
  }

  /** Processes every event currently in the log. */
  async catchUp(onBatch?: (position: number, events: number) => void, batchSize = this.options.batchSize ?? 500): Promise<void> {
    for (let reloads = 0; ; ) {
      const from = this.minCheckpoint();
      const startedAt = Date.now();
      const batch = (await this.events.readAll(from, batchSize)).map(upcast);
      if (batch.length === 0) return;
      try {
        await this.applyBatch(batch);
        this.options.onApplied?.(batch, startedAt);
      } catch (err) {
        // A rebuild reset a projection under us: nothing of the batch was kept. Continue from
        // where the store stands (the rebuild's progress, at its generation).
        if (!isStaleGeneration(err) || ++reloads > 100) throw err;
        await this.load();
        continue;
      }
      onBatch?.(batch[batch.length - 1].global_position, batch.length);
      if (batch.length < batchSize || this.stopped) return;
    }
  }

  private minCheckpoint(): number {
    if (this.projections.length === 0) return Number.MAX_SAFE_INTEGER;
    return Math.min(...this.projections.map((p) => this.checkpoints[p.name] ?? 0));
  }

  private async applyBatch(batch: StoredEvent[]): Promise<void> {
    // Rows as they stand after the events applied so far in this batch.
    const overlay = new Map<string, ReadDoc | null>();
    const pending = new Map<string, Write>();
    const last = batch[batch.length - 1].global_position;
    const next: Record<string, number> = {};

    for (const projection of this.projections) {
      const checkpoint = this.checkpoints[projection.name] ?? 0;
      const generation = this.generations[projection.name] ?? 0;
      // Every row the batch touches is read up front, one query per collection (in chunks): no
      // round trip per event (a rebuild reads thousands of events per batch). Then the pure apply
      // step, shared with the projection test kit, runs over the whole batch.
      const todo = batch.filter((e) => e.global_position > checkpoint && projection.handles.has(e.type));
      let keys: RowKey[];
      try {
        keys = todo.flatMap((e) => projection.keys(e)).filter((k) => !overlay.has(rowKey(k.collection, k.id)));
      } catch (err) {
        throw new ProjectionFailedError(projection.name, err);
      }
      for (const [collection, ids] of groupBy(keys)) {
        for (let i = 0; i < ids.length; i += PREFETCH_CHUNK) {
          const chunk = ids.slice(i, i + PREFETCH_CHUNK);
          const found = await this.store.getMany(collection, chunk);
          for (const id of chunk) overlay.set(rowKey(collection, id), current(found.get(id), generation, projection.name));
        }
      }
      try {
        applyEvents(projection, todo, generation, overlay, pending);
      } catch (err) {
        throw new ProjectionFailedError(projection.name, err);
      }
      next[projection.name] = Math.max(checkpoint, last);
    }

    await this.store.commit(
      [...pending.values()],
      next,
      Object.fromEntries(this.projections.map((p) => [p.name, this.generations[p.name] ?? 0])),
    );
    Object.assign(this.checkpoints, next);
    this.reached = this.minCheckpoint();
    const ready = this.waiters.filter((w) => w.position <= this.reached);
    this.waiters = this.waiters.filter((w) => w.position > this.reached);
    for (const w of ready) w.resolve();
  }

  /**
   * Drops the named projections' read models and replays the whole log into them, in batches of
   * `rebuildBatchSize` events (one commit each). `onProgress` hears after every batch how far the
   * replay is and where the log ended when it started.
   */
  async rebuild(names?: string[], onProgress?: (progress: RebuildProgress) => void): Promise<string[]> {
    const targets = this.projections.filter((p) => !names || names.length === 0 || names.includes(p.name));
    const unknown = (names ?? []).filter((n) => !this.projections.some((p) => p.name === n));
    if (unknown.length) throw new Error(`unknown projection(s): ${unknown.join(', ')}`);
    await this.passes.current;
    for (const p of targets) {
      this.generations[p.name] = await this.store.reset(p.name, p.collections.map((c) => c.name));
      for (const c of p.collections) await this.store.ensureCollection(c);
      this.checkpoints[p.name] = 0;
    }
    const head = await this.events.headPosition();
    let events = 0;
    await this.catchUp(
      (position, count) => {
        events += count;
        onProgress?.({ position, head, events });
      },
      this.options.rebuildBatchSize ?? 5_000,
    );
    return targets.map((p) => p.name);
  }
}

export interface RebuildProgress {
  /** Global position replayed so far. */
  position: number;
  /** The log's last position when the rebuild started. */
  head: number;
  /** Events read so far. */
  events: number;
}

/** Ids per getMany: well under SQLite's bound-parameter limit, and a modest MongoDB `$in`. */
const PREFETCH_CHUNK = 1_000;

/**
 * A stored row as this runner may build on it: a row of an older generation is leftover from
 * before a rebuild (absent); one of a newer generation means this runner is the stale one.
 */
function current(row: ReadDoc | undefined, generation: number, projection: string): ReadDoc | null {
  if (!row) return null;
  const rowGeneration = typeof row._generation === 'number' ? row._generation : 0;
  if (rowGeneration > generation) throw new StaleGenerationError([projection]);
  return rowGeneration < generation ? null : row;
}

/** A projection's own code threw: named, so status can show which projection is stuck. */
export class ProjectionFailedError extends Error {
  constructor(
    readonly projection: string,
    readonly cause: unknown,
  ) {
    super(`projection ${projection} failed: ${(cause as Error)?.message ?? String(cause)}`);
    this.name = 'ProjectionFailedError';
  }
}

function isStaleGeneration(err: unknown): boolean {
  // By name too: jest gives each test file its own copy of the class.
  return err instanceof StaleGenerationError || (err as Error)?.name === 'StaleGenerationError';
}

function groupBy(keys: Array<{ collection: string; id: string }>): Map<string, string[]> {
  // Sets: a rebuild batch names thousands of rows, often the same ones (an organization's row).
  const sets = new Map<string, Set<string>>();
  for (const k of keys) {
    let ids = sets.get(k.collection);
    if (!ids) sets.set(k.collection, (ids = new Set()));
    ids.add(k.id);
  }
  return new Map([...sets].map(([collection, ids]) => [collection, [...ids]]));
}
