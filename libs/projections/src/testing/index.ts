import { StoredEvent } from '@dojang/event-store';
import { ReadDoc, Write } from '@dojang/read-store';
import { applyEvents, RowOverlay } from '../apply-events';
import { Projection, RowLookup, rowKey } from '../projection';
import { upcast } from '../upcasters';

/**
 * The projection test kit, for built-in projections and plugins alike: given/when/then over the
 * runner's own pure apply step (`applyEvents`, skip-if-seen included) and upcasters, without a
 * database. Every `then` also checks that applying the `when` events a second time (a replay after
 * a crash, or a second runner) leaves the rows exactly as once.
 *
 * `evolve` sees only the rows `keys` named for that event, as in production, where the runner loads
 * just those for each batch: reading or writing any other row fails the spec, naming the row.
 * (Without this, a spec that keeps every row in one map passes a plugin whose live rows are
 * overwritten from `null` on the next batch.)
 *
 *   const spec = ProjectionSpecification.for(signingTimesProjection);
 *   spec.given([sent(DOC)]).when([completed(DOC)]).then((rows) => expect(rows.get(MONTHS, id)).toMatchObject({ count: 1 }));
 */

/** An event as a spec writes it: positions, revisions, ids and hashes are filled in. */
export interface SpecEvent {
  type: string;
  data?: Record<string, unknown>;
  stream_id?: string;
  metadata?: Partial<StoredEvent['metadata']>;
}

export interface Rows {
  /** The row, without the runner's `_position` / `_generation` stamps; null when absent. */
  get(collection: string, id: string): ReadDoc | null;
  /** Every row of a collection, ordered by id. */
  all(collection: string): ReadDoc[];
}

export class ProjectionSpecificationError extends Error {}

export class ProjectionSpecification {
  private constructor(private readonly projection: Projection) {}

  static for(projection: Projection): ProjectionSpecification {
    return new ProjectionSpecification(projection);
  }

  given(events: Array<SpecEvent | StoredEvent>): When {
    return new When(this.projection, events);
  }
}

class When {
  constructor(
    private readonly projection: Projection,
    private readonly given: Array<SpecEvent | StoredEvent>,
  ) {}

  when(events: Array<SpecEvent | StoredEvent>, options: { times?: number } = {}): Then {
    return new Then(this.projection, this.given, events, options.times ?? 1);
  }

  /** Only the given events: what the rows are after them. */
  then(assert: (rows: Rows) => void): void {
    return this.when([]).then(assert);
  }
}

class Then {
  constructor(
    private readonly projection: Projection,
    private readonly given: Array<SpecEvent | StoredEvent>,
    private readonly events: Array<SpecEvent | StoredEvent>,
    private readonly times: number,
  ) {}

  /**
   * Runs the assertions on the rows after given + when, and fails if applying the `when` events
   * once more (each event alone, as a runner resuming mid-batch would, and the whole batch again)
   * changes any row.
   */
  then(assert: (rows: Rows) => void): void {
    const { overlay, when } = this.run();
    assert(rowsOf(overlay));
    this.assertIdempotent(overlay, when);
  }

  /** Applying the `when` events `times` times (default 2) leaves the rows as applying them once. */
  thenSameAsOnce(): void {
    const once = new Then(this.projection, this.given, this.events, 1).run().overlay;
    const many = this.run(Math.max(this.times, 2)).overlay;
    expectSame(snapshot(many), snapshot(once), `applying the events ${Math.max(this.times, 2)} times`);
  }

  private run(times = this.times): { overlay: RowOverlay; when: StoredEvent[] } {
    const given = stored(this.given, 0);
    const when = stored(this.events, given.length ? given[given.length - 1].global_position : 0);
    const overlay: RowOverlay = new Map();
    this.apply(overlay, given);
    for (let i = 0; i < times; i++) this.apply(overlay, when);
    return { overlay, when };
  }

  private apply(overlay: RowOverlay, events: StoredEvent[]): void {
    // As the runner: upcast first, and every row an event names is loaded (absent = null).
    const upcasted = events.map(upcast);
    for (const e of upcasted) {
      if (!this.projection.handles.has(e.type)) continue;
      for (const k of this.projection.keys(e)) if (!overlay.has(rowKey(k.collection, k.id))) overlay.set(rowKey(k.collection, k.id), null);
    }
    applyEvents(keyedOnly(this.projection), upcasted, 0, overlay, new Map<string, Write>());
  }

  private assertIdempotent(overlay: RowOverlay, when: StoredEvent[]): void {
    const before = snapshot(overlay);
    const again = new Map(overlay);
    this.apply(again, when);
    expectSame(snapshot(again), before, 'applying the when events twice');
    for (const e of when) {
      const single = new Map(overlay);
      this.apply(single, [e]);
      expectSame(snapshot(single), before, `replaying ${e.type} (position ${e.global_position}) alone`);
    }
  }
}

/**
 * The projection with an `evolve` that may touch only the rows its `keys` named for the event. The
 * runner loads exactly those rows per batch: another row reads as null (or as whatever another
 * event of the same batch happened to load), and a write to it lands on top of a row the runner
 * never read, so the kit refuses both, whatever the rows hold in the spec.
 */
function keyedOnly(projection: Projection): Projection {
  return {
    ...projection,
    evolve(event, rows) {
      const named = new Set(projection.keys(event).map((k) => rowKey(k.collection, k.id)));
      const refuse = (what: 'read' | 'wrote', collection: string, id: string) =>
        new ProjectionSpecificationError(
          `projection ${projection.name}: evolve ${what} row ${collection}/${id} for ${event.type} (position ${event.global_position}), ` +
            `but keys(event) did not name it (it named: ${[...named].map((k) => k.replace('\u0000', '/')).join(', ') || 'nothing'}). ` +
            `The runner loads only the rows keys names, so in production this row ${what === 'read' ? 'reads as null or stale' : 'is overwritten without being read'}. ` +
            `Add it to keys.`,
        );
      const lookup: RowLookup = (collection, id) => {
        if (!named.has(rowKey(collection, id))) throw refuse('read', collection, id);
        return rows(collection, id);
      };
      const writes = projection.evolve(event, lookup);
      for (const w of writes) {
        const id = w.op === 'put' ? w.doc.id : w.id;
        if (!named.has(rowKey(w.collection, id))) throw refuse('wrote', w.collection, id);
      }
      return writes;
    },
  };
}

/** Gives spec events what the log would: increasing positions, per-stream revisions, metadata. */
function stored(events: Array<SpecEvent | StoredEvent>, after: number): StoredEvent[] {
  const revisions = new Map<string, number>();
  return events.map((e, i) => {
    if (isStored(e)) return e;
    const stream = e.stream_id ?? 'spec-stream';
    const revision = revisions.get(stream) ?? 0;
    revisions.set(stream, revision + 1);
    return {
      event_id: `00000000-0000-4000-8000-${String(after + i + 1).padStart(12, '0')}`,
      type: e.type,
      data: e.data ?? {},
      stream_id: stream,
      stream_revision: revision,
      global_position: after + i + 1,
      metadata: { occurred_at: '2026-03-02T09:00:00.000Z', actor: 'spec', schema_version: 1, prev_hash: '', hash: '', ...(e.metadata ?? {}) },
    } as StoredEvent;
  });
}

function isStored(e: SpecEvent | StoredEvent): e is StoredEvent {
  return typeof (e as StoredEvent).global_position === 'number' && typeof (e as StoredEvent).event_id === 'string';
}

function strip(doc: ReadDoc): ReadDoc {
  const { _position, _generation, ...rest } = doc;
  return rest as ReadDoc;
}

function rowsOf(overlay: RowOverlay): Rows {
  return {
    get: (collection, id) => {
      const row = overlay.get(rowKey(collection, id));
      return row ? strip(row) : null;
    },
    all: (collection) =>
      [...overlay.entries()]
        .filter(([key, row]) => row && key.startsWith(`${collection}\u0000`))
        .map(([, row]) => strip(row!))
        .sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0)),
  };
}

function snapshot(overlay: RowOverlay): Record<string, unknown> {
  return Object.fromEntries([...overlay.entries()].filter(([, row]) => row !== null).sort(([a], [b]) => (a < b ? -1 : 1)));
}

function expectSame(actual: Record<string, unknown>, expected: Record<string, unknown>, what: string): void {
  const a = JSON.stringify(actual);
  const b = JSON.stringify(expected);
  if (a === b) return;
  const changed = [...new Set([...Object.keys(actual), ...Object.keys(expected)])]
    .filter((k) => JSON.stringify(actual[k]) !== JSON.stringify(expected[k]))
    .map((k) => `  ${k.replace('\u0000', '/')}:\n    expected ${JSON.stringify(expected[k])}\n    received ${JSON.stringify(actual[k])}`);
  throw new ProjectionSpecificationError(`not idempotent: ${what} changed rows\n${changed.join('\n')}`);
}
