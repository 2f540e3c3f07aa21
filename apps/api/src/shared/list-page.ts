import { isStoreUnavailable } from '@dojang/application';
import { Condition, ReadDoc, ReadStore } from '@dojang/read-store';
import { ApiError } from './api-error';

export interface ListPageQuery {
  limit: number;
  starting_after?: string | undefined;
  ending_before?: string | undefined;
}

export interface ListPageOptions<T extends ReadDoc> {
  collection: string;
  where: Record<string, Condition>;
  /** The field the list is ordered by, newest first; unique per row. */
  sortField: keyof T & string;
  /** The cursor's row, or null when it is not an item of this list (other organization, mode, parent). */
  cursor: (id: string) => Promise<T | null>;
  /** "a document", "an event"…: for the 400 message. */
  noun: string;
}

/**
 * One page of a newest-first list, Stripe style: `starting_after` gives the items older than the
 * cursor, `ending_before` the items newer than it (still newest first), and `has_more` says whether
 * more lie beyond the page in the direction travelled.
 */
export async function listPage<T extends ReadDoc>(reads: ReadStore, q: ListPageQuery, o: ListPageOptions<T>): Promise<{ rows: T[]; has_more: boolean }> {
  if (q.starting_after !== undefined && q.ending_before !== undefined) {
    throw ApiError.invalid('ending_before', 'starting_after and ending_before cannot be used together.');
  }
  const param = q.ending_before !== undefined ? 'ending_before' : 'starting_after';
  const id = q.ending_before ?? q.starting_after;
  const where = { ...o.where };
  if (id !== undefined) {
    // A cursor the store could not look up is not "no such row" (400): the failure stands (503).
    const cursor =
      id === ''
        ? null
        : await o.cursor(id).catch((err: unknown) => {
            if (isStoreUnavailable(err)) throw err;
            return null;
          });
    if (!cursor) throw ApiError.invalid(param, `${param} must be the id of ${o.noun} in this list.`);
    where[o.sortField] = { [param === 'ending_before' ? '$gt' : '$lt']: cursor[o.sortField] } as Condition;
  }
  // Going back, read upwards from the cursor, then turn the page the usual way round.
  const backwards = param === 'ending_before' && id !== undefined;
  const rows = await reads.find<T>(o.collection, { where, orderBy: [{ field: o.sortField, direction: backwards ? 'asc' : 'desc' }], limit: q.limit + 1 });
  const page = rows.slice(0, q.limit);
  return { rows: backwards ? page.reverse() : page, has_more: rows.length > q.limit };
}
