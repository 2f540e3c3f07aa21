import { EventStore, StoredEvent } from '@dojang/event-store';
import { ReadDoc, ReadStore, Write } from '@dojang/read-store';
import { Projection, rowKey } from './projection';
import { upcast } from './upcasters';
import { CoalescingPass } from './coalescing-pass';

export interface ProjectionRunnerOptions {
  batchSize?: number;
  /** Called after a batch fails; the runner retries on the next signal. */
  onError?: (err: unknown) => void;
}

/**
 * Feeds projections from the global log. Each batch of events becomes one commit: the row writes
 * of every projection plus their checkpoints (one SQLite transaction). A row remembers the global
 * position of the last event applied to it (`_position`), so replaying an event is a no-op and two
 * runners on the same store (the server and the CLI) converge instead of fighting.
 */
export class ProjectionRunner {
  private readonly passes = new CoalescingPass(
    () => this.catchUp(),
    () => !this.stopped,
    (err) => this.options.onError?.(err),
  );
  private checkpoints: Record<string, number> = {};
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
    this.checkpoints = await this.store.getCheckpoints(this.projections.map((p) => p.name));
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
  async catchUp(): Promise<void> {
    const batchSize = this.options.batchSize ?? 500;
    for (;;) {
      const from = this.minCheckpoint();
      const batch = (await this.events.readAll(from, batchSize)).map(upcast);
      if (batch.length === 0) return;
      await this.applyBatch(batch);
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
      for (const event of batch) {
        if (event.global_position <= checkpoint || !projection.handles.has(event.type)) continue;
        const keys = projection.keys(event);
        const missing = keys.filter((k) => !overlay.has(rowKey(k.collection, k.id)));
        for (const [collection, ids] of groupBy(missing)) {
          const found = await this.store.getMany(collection, ids);
          for (const id of ids) overlay.set(rowKey(collection, id), found.get(id) ?? null);
        }
        // Already applied (a replay after a crash between write and checkpoint, or another runner).
        const seen = keys.some((k) => {
          const row = overlay.get(rowKey(k.collection, k.id));
          return row?._position !== undefined && row._position >= event.global_position;
        });
        if (seen) continue;
        const writes = projection.evolve(event, (collection, id) => overlay.get(rowKey(collection, id)) ?? null);
        for (const w of writes) {
          const key = rowKey(w.collection, w.op === 'put' ? w.doc.id : w.id);
          if (w.op === 'put') {
            const doc = { ...w.doc, _position: event.global_position };
            overlay.set(key, doc);
            pending.set(key, { op: 'put', collection: w.collection, doc });
          } else {
            overlay.set(key, null);
            pending.set(key, w);
          }
        }
      }
      next[projection.name] = Math.max(checkpoint, last);
    }

    await this.store.commit([...pending.values()], next);
    Object.assign(this.checkpoints, next);
    this.reached = this.minCheckpoint();
    const ready = this.waiters.filter((w) => w.position <= this.reached);
    this.waiters = this.waiters.filter((w) => w.position > this.reached);
    for (const w of ready) w.resolve();
  }

  /** Drops the named projections' read models and replays the whole log into them. */
  async rebuild(names?: string[]): Promise<string[]> {
    const targets = this.projections.filter((p) => !names || names.length === 0 || names.includes(p.name));
    const unknown = (names ?? []).filter((n) => !this.projections.some((p) => p.name === n));
    if (unknown.length) throw new Error(`unknown projection(s): ${unknown.join(', ')}`);
    await this.passes.current;
    for (const p of targets) {
      await this.store.reset(p.name, p.collections.map((c) => c.name));
      for (const c of p.collections) await this.store.ensureCollection(c);
      this.checkpoints[p.name] = 0;
    }
    await this.catchUp();
    return targets.map((p) => p.name);
  }
}

function groupBy(keys: Array<{ collection: string; id: string }>): Map<string, string[]> {
  const out = new Map<string, string[]>();
  for (const k of keys) {
    const list = out.get(k.collection) ?? [];
    if (!list.includes(k.id)) list.push(k.id);
    out.set(k.collection, list);
  }
  return out;
}
