import { EventStore, StoredEvent } from '@dojang/event-store';
import { ReadDoc, ReadStore, RowConflictError, RowRead, rowVersion, StaleGenerationError, Write } from '@dojang/read-store';
import { Projection, rowKey } from './projection';
import { reconcileVersions } from './projection-status';
import { applyEvents, RowOverlay } from './apply-events';
import { upcast } from './upcasters';
import { CoalescingPass } from './coalescing-pass';

export interface ProjectionRunnerOptions {
  batchSize?: number;
  /** Events per commit while rebuilding from zero (one transaction each; default 1,000). */
  rebuildBatchSize?: number;
  /**
   * Events read and applied at a time while rebuilding (default 500), several of which may make
   * one commit: a step's events are garbage by the next, so they die young instead of living (and
   * being copied by the garbage collector) until their commit.
   */
  rebuildStepSize?: number;
  /**
   * Called after a batch fails (nothing of it was kept); the runner tries again after a back-off
   * (`retry`), and on the next signal, until a pass succeeds: a database that went away and came
   * back is followed again without anyone appending.
   */
  onError?: (err: unknown) => void;
  /** The back-off of those retries (default 250 ms doubling to 10 s, with jitter). */
  retry?: { baseMs?: number; maxMs?: number };
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
  private readonly passes: CoalescingPass;
  private checkpoints: Record<string, number> = {};
  private generations: Record<string, number> = {};
  private reached = 0;
  private waiters: Array<{ position: number; resolve: () => void }> = [];
  private unsubscribe: (() => void) | null = null;
  private stopped = false;
  /**
   * While a rebuild replays from zero: for each collection it emptied, the row keys its events
   * have named so far. A row no event named yet holds no event yet: it is absent, without asking
   * the store (a concurrent runner may have written it, but only from events this replay applies
   * too, so building it from nothing gives the same row). Gone on a reload: another rebuild's
   * progress is not ours.
   */
  private named: Map<string, Set<string>> | null = null;
  private readonly handlers = new Map<string, number[]>();

  constructor(
    private readonly events: EventStore,
    private readonly store: ReadStore,
    readonly projections: Projection[],
    private readonly options: ProjectionRunnerOptions = {},
  ) {
    this.passes = new CoalescingPass(
      () => this.catchUp(),
      () => !this.stopped,
      (err) => this.options.onError?.(err),
      options.retry ?? {},
    );
  }

  /** Returns the projections reset because their version changed (their log is replayed). */
  async init(): Promise<string[]> {
    for (const p of this.projections) for (const c of p.collections) await this.store.ensureCollection(c);
    const reset = await reconcileVersions(this.store, this.projections);
    await this.load();
    return reset;
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
    this.passes.cancel();
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
    await this.replay({ batchSize, stepSize: batchSize, traced: true, onBatch });
  }

  /** Applies the log from the checkpoints on, one commit per `batchSize` events. */
  private async replay(mode: ReplayMode): Promise<void> {
    for (let reloads = 0, conflicts = 0; ; ) {
      try {
        return await this.replayFromCheckpoints(mode);
      } catch (err) {
        if (isRowConflict(err)) {
          // Another runner committed rows this batch had read: nothing of the batch was kept.
          // Read them again from the checkpoints as they now stand (theirs included) and apply
          // the events to the rows as they are. Each conflict means someone else made progress,
          // so this ends; past the bound the pass fails and is retried after a back-off.
          if (++conflicts > MAX_CONFLICT_RETRIES) throw err;
          await new Promise<void>((resolve) => setImmediate(resolve));
          this.named = null;
          await this.load();
          continue;
        }
        // A rebuild reset a projection under us: nothing of the batch was kept. Continue from
        // where the store stands (the rebuild's progress, at its generation).
        if (!isStaleGeneration(err) || ++reloads > 100) throw err;
        // Growing pauses: a reset still dropping its collections (MongoDB) refuses every commit
        // of the projection until it is done.
        await new Promise((resolve) => setTimeout(resolve, Math.min(10 * reloads, 500)));
        this.named = null;
        await this.load();
      }
    }
  }

  private async replayFromCheckpoints({ batchSize, stepSize, traced, onBatch }: ReplayMode): Promise<void> {
    let from = this.minCheckpoint();
    for (;;) {
      const startedAt = Date.now();
      const batch = newBatch();
      // Before the batch's first read: a store that can tell nothing was committed since skips the row checks.
      batch.since = await this.store.changeMark?.();
      let read = 0;
      let last: StoredEvent[] = [];
      let exhausted = false;
      // Read and applied `stepSize` events at a time: a step's events are garbage by the next.
      while (read < batchSize) {
        const want = Math.min(stepSize, batchSize - read);
        last = (await this.events.readAll(from, want)).map(upcast);
        if (last.length > 0) {
          await this.applyStep(last, batch);
          read += last.length;
          from = last[last.length - 1].global_position;
        }
        if (last.length < want) {
          exhausted = true;
          break;
        }
      }
      if (read === 0) return;
      await this.commitBatch(batch, from);
      // A rebuild's replay is not traced: its events were traced when first projected.
      if (traced) this.options.onApplied?.(last, startedAt);
      onBatch?.(from, read);
      if (exhausted || this.stopped) return;
      // The store calls may all complete synchronously (SQLite): without this, a long replay
      // would never let timers, I/O or signals (stop on Ctrl-C) in until its very end.
      await new Promise<void>((resolve) => setImmediate(resolve));
    }
  }

  private minCheckpoint(): number {
    if (this.projections.length === 0) return Number.MAX_SAFE_INTEGER;
    return Math.min(...this.projections.map((p) => this.checkpoints[p.name] ?? 0));
  }

  /**
   * Applies events to the batch's rows: every row they touch is read up front, one query per
   * collection (in chunks), never one per event; rows the batch already holds are not read again.
   * Then the pure apply step, shared with the projection test kit, runs over them.
   */
  private async applyStep(events: StoredEvent[], batch: Batch): Promise<void> {
    const { overlay, pending, reads } = batch;
    const projections = this.projections;
    // Each projection's events, in log order: one pass over the step, not one per projection.
    const checkpoints = projections.map((p) => this.checkpoints[p.name] ?? 0);
    const todos: StoredEvent[][] = projections.map(() => []);
    for (const event of events) {
      for (const i of this.handlersOf(event.type)) if (event.global_position > checkpoints[i]) todos[i].push(event);
    }
    for (let p = 0; p < projections.length; p++) {
      const todo = todos[p];
      if (todo.length === 0) continue;
      const projection = projections[p];
      const generation = this.generations[projection.name] ?? 0;
      // Each event's row keys, made once here and handed to the apply step.
      const todoKeys = new Array<string[]>(todo.length);
      // collection -> id -> row key, for the rows the overlay does not hold yet.
      const missing = new Map<string, Map<string, string>>();
      const named = this.named;
      try {
        for (let e = 0; e < todo.length; e++) {
          const keys = projection.keys(todo[e]);
          const rowKeys = new Array<string>(keys.length);
          for (let i = 0; i < keys.length; i++) {
            const { collection, id } = keys[i];
            const key = rowKey(collection, id);
            rowKeys[i] = key;
            if (overlay.has(key)) continue;
            const seen = named?.get(collection);
            if (seen && !seen.has(key)) {
              seen.add(key);
              overlay.set(key, null);
              // Absent by the replay's reasoning: the commit checks it still is (another runner
              // at this generation may have written it meanwhile, from events this batch skips).
              reads.push({ collection, id, found: null });
              // Past this many, remembering costs more memory than the reads it saves.
              if (seen.size > MAX_NAMED_ROWS) named!.delete(collection);
              continue;
            }
            let ids = missing.get(collection);
            if (!ids) missing.set(collection, (ids = new Map()));
            ids.set(id, key);
          }
          todoKeys[e] = rowKeys;
        }
      } catch (err) {
        throw new ProjectionFailedError(projection.name, err);
      }
      for (const [collection, ids] of missing) {
        const all = [...ids.keys()];
        for (let i = 0; i < all.length; i += PREFETCH_CHUNK) {
          const chunk = all.slice(i, i + PREFETCH_CHUNK);
          const found = await this.store.getMany(collection, chunk);
          for (const id of chunk) {
            const row = found.get(id);
            overlay.set(ids.get(id)!, current(row, generation, projection.name));
            // As found, whatever its generation: the commit checks no one has moved it since.
            reads.push({ collection, id, found: rowVersion(row) });
          }
        }
      }
      try {
        applyEvents(projection, todo, generation, overlay, pending, todoKeys);
      } catch (err) {
        throw new ProjectionFailedError(projection.name, err);
      }
    }
  }

  /** Indexes (in `projections`) of the projections that handle an event type. */
  private handlersOf(type: string): number[] {
    let found = this.handlers.get(type);
    if (!found) {
      found = [];
      for (let i = 0; i < this.projections.length; i++) if (this.projections[i].handles.has(type)) found.push(i);
      this.handlers.set(type, found);
    }
    return found;
  }

  /** Commits the batch's writes and moves every projection's checkpoint to `last`. */
  private async commitBatch(batch: Batch, last: number): Promise<void> {
    const next: Record<string, number> = {};
    for (const p of this.projections) next[p.name] = Math.max(this.checkpoints[p.name] ?? 0, last);
    // The rows read go with the writes: the batch's rows were read by several queries outside
    // the commit's transaction, so another runner may have committed between them (one row read
    // before its commit, another after: an event skipped for the fresher row, the staler one then
    // written past it without that event). The store refuses the commit if any row moved.
    await this.store.commit(
      [...batch.pending.values()],
      next,
      Object.fromEntries(this.projections.map((p) => [p.name, this.generations[p.name] ?? 0])),
      { rows: batch.reads, since: batch.since },
    );
    Object.assign(this.checkpoints, next);
    this.reached = this.minCheckpoint();
    const ready = this.waiters.filter((w) => w.position <= this.reached);
    this.waiters = this.waiters.filter((w) => w.position > this.reached);
    for (const w of ready) w.resolve();
  }

  /**
   * Drops the named projections' read models and replays the whole log into them, in batches of
   * `rebuildBatchSize` events (one commit each), as one bulk load where the store has one
   * (`ReadStore.bulkLoad`). `onProgress` hears after every commit how far the replay is and where
   * the log ended when it started.
   */
  async rebuild(names?: string[], onProgress?: (progress: RebuildProgress) => void): Promise<string[]> {
    const targets = this.projections.filter((p) => !names || names.length === 0 || names.includes(p.name));
    const unknown = (names ?? []).filter((n) => !this.projections.some((p) => p.name === n));
    if (unknown.length) throw new Error(`unknown projection(s): ${unknown.join(', ')}`);
    await this.passes.current;
    const load = async () => {
      for (const p of targets) {
        this.generations[p.name] = await this.store.reset(p.name, p.collections.map((c) => c.name));
        for (const c of p.collections) await this.store.ensureCollection(c);
        this.checkpoints[p.name] = 0;
      }
      this.named = new Map(targets.flatMap((p) => p.collections.map((c) => [c.name, new Set<string>()])));
      const head = await this.events.headPosition();
      let events = 0;
      await this.replay({
        batchSize: this.options.rebuildBatchSize ?? DEFAULT_REBUILD_BATCH,
        stepSize: this.options.rebuildStepSize ?? DEFAULT_REBUILD_STEP,
        traced: false,
        onBatch: (position, count) => {
          events += count;
          onProgress?.({ position, head, events });
        },
      });
    };
    const collections = targets.flatMap((p) => p.collections);
    try {
      if (this.store.bulkLoad) await this.store.bulkLoad(collections, load);
      else await load();
    } finally {
      this.named = null;
    }
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

interface ReplayMode {
  batchSize: number;
  /** Events read and applied at a time; several steps may make one commit. */
  stepSize: number;
  /** Whether `onApplied` hears of each commit. */
  traced: boolean;
  onBatch?: (position: number, events: number) => void;
}

/**
 * Events per commit while rebuilding. Fewer than the 5,000 of a first version: the rows of a
 * commit live until it is written, and above a few thousand events the garbage collector spends
 * more copying them than the fewer transactions save.
 */
const DEFAULT_REBUILD_BATCH = 1_000;
const DEFAULT_REBUILD_STEP = 500;

/** One commit's worth of work: the rows as the events applied so far left them, and their writes. */
interface Batch {
  overlay: RowOverlay;
  /** One write per row, the last state wins (a row many events touched is written once). */
  pending: Map<string, Write>;
  /** Every row the overlay took from the store (or assumed absent), as it was then: the commit's fence. */
  reads: RowRead[];
  /** The store's change mark from before the first read (where it has one). */
  since?: unknown;
}

function newBatch(): Batch {
  return { overlay: new Map(), pending: new Map(), reads: [] };
}

/**
 * Conflicts in a row before a pass gives up (and is retried after a back-off): each one means
 * another runner committed, so only a store with many runners racing on every batch gets near it.
 */
const MAX_CONFLICT_RETRIES = 1_000;

/** Row keys a rebuild remembers per collection (a few hundred MB at most). */
const MAX_NAMED_ROWS = 2_000_000;

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

function isRowConflict(err: unknown): boolean {
  // By name too, as below.
  return err instanceof RowConflictError || (err as Error)?.name === 'RowConflictError';
}

function isStaleGeneration(err: unknown): boolean {
  // By name too: jest gives each test file its own copy of the class.
  return err instanceof StaleGenerationError || (err as Error)?.name === 'StaleGenerationError';
}
