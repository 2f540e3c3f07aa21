import { StoredEvent } from '@dojang/event-store';
import { ReadDoc, Write } from '@dojang/read-store';
import { Projection, rowKey } from './projection';

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
 */
export function applyEvents(projection: Projection, events: StoredEvent[], generation: number, overlay: RowOverlay, pending: Map<string, Write>): void {
  for (const event of events) {
    if (!projection.handles.has(event.type)) continue;
    const keys = projection.keys(event);
    const seen = keys.some((k) => {
      const row = overlay.get(rowKey(k.collection, k.id));
      return row?._position !== undefined && row._position >= event.global_position;
    });
    if (seen) continue;
    const writes = projection.evolve(event, (collection, id) => overlay.get(rowKey(collection, id)) ?? null);
    for (const w of writes) {
      const key = rowKey(w.collection, w.op === 'put' ? w.doc.id : w.id);
      if (w.op === 'put') {
        const doc: ReadDoc = { ...w.doc, _position: event.global_position };
        // Generation 0 is left unwritten, so rows of a never-rebuilt projection stay as they were.
        if (generation > 0) doc._generation = generation;
        overlay.set(key, doc);
        pending.set(key, { op: 'put', collection: w.collection, doc });
      } else {
        overlay.set(key, null);
        pending.set(key, { ...w, generation });
      }
    }
  }
}
