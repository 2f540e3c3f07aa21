import { StoredEvent } from '@dojang/event-store';
import { ReadDoc, Write } from '@dojang/read-store';
import { Projection, RowLookup, rowKey } from './projection';

/**
 * Rows as they stand while a batch is applied, keyed by `rowKey(collection, id)`: null = absent.
 * Every row an event's `keys` name must be present (as a row or null) before it is applied.
 */
export type RowOverlay = Map<string, ReadDoc | null>;

/**
 * The runner's apply step, pure: no store, no clock. The runner loads the rows first and commits
 * `pending` after; the projection test kit (`@dojang/projections/testing`) calls this same
 * function, so a plugin's spec checks exactly what production does, skip-if-seen included.
 *
 * An event is skipped when any row it names already carries its position or a later one (a
 * replay after a crash between write and checkpoint, or another runner got there first): this is
 * what makes projections idempotent, so `evolve` itself need not be.
 *
 * `pending` holds one write per row: a later event's write to a row replaces an earlier one's
 * (the row's last state wins), so a batch writes each row it touches once, however many events
 * touched it. `rowKeys`, when the caller has them already (the runner makes them to load the
 * rows), are each event's `keys` as row keys, in order; the events are then only handled ones.
 */
export function applyEvents(
  projection: Projection,
  events: StoredEvent[],
  generation: number,
  overlay: RowOverlay,
  pending: Map<string, Write>,
  rowKeys?: string[][],
): void {
  const lookup: RowLookup = (collection, id) => overlay.get(rowKey(collection, id)) ?? null;
  for (let i = 0; i < events.length; i++) {
    const event = events[i];
    let keys = rowKeys?.[i];
    if (!keys) {
      if (!projection.handles.has(event.type)) continue;
      keys = projection.keys(event).map((k) => rowKey(k.collection, k.id));
    }
    const position = event.global_position;
    if (keys.some((key) => isAt(overlay.get(key), position))) continue;
    for (const w of projection.evolve(event, lookup)) {
      if (w.op === 'put') {
        const key = rowKey(w.collection, w.doc.id);
        // A copy: the projection's object may be shared (a constant, the event's own data).
        const doc: ReadDoc = { ...w.doc, _position: position };
        // Generation 0 is left unwritten, so rows of a never-rebuilt projection stay as they were.
        if (generation > 0) doc._generation = generation;
        overlay.set(key, doc);
        pending.set(key, { op: 'put', collection: w.collection, doc });
      } else {
        const key = rowKey(w.collection, w.id);
        overlay.set(key, null);
        pending.set(key, { ...w, generation });
      }
    }
  }
}

/** The row already carries this position or a later one. */
function isAt(row: ReadDoc | null | undefined, position: number): boolean {
  return row?._position !== undefined && row._position >= position;
}
