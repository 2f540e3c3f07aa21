import {
  DeliveryEvent,
  documentDecider,
  fileDecider,
  organizationDecider,
  sealDecider,
  templateDecider,
  webhookEndpointDecider,
} from '@dojang/domain';
import { StoredEvent } from '@dojang/event-store';
import { upcast } from '@dojang/projections';
import { eventsUpTo } from './document-history';

interface Fold {
  initial: () => unknown;
  evolve: (state: unknown, event: { type: string; data: unknown }) => unknown;
}

const asFold = (d: { initialState: () => unknown; evolve: (s: any, e: any) => unknown }): Fold => ({ initial: d.initialState, evolve: d.evolve });

/** A delivery stream has no decider: its state is the list of deliveries so far. */
const deliveriesFold: Fold = {
  initial: () => ({ deliveries: [] as DeliveryEvent['data'][] }),
  evolve: (s, e) => ({ deliveries: [...(s as { deliveries: unknown[] }).deliveries, e.data] }),
};

/** Each stream kind folds with its own aggregate's evolve, chosen by the stream id's prefix. */
const FOLDS: Array<[string, Fold]> = [
  ['document-', asFold(documentDecider)],
  ['organization-', asFold(organizationDecider)],
  ['file-', asFold(fileDecider)],
  ['template-', asFold(templateDecider)],
  ['seal-', asFold(sealDecider)],
  ['webhook_endpoint-', asFold(webhookEndpointDecider)],
  ['delivery-', deliveriesFold],
];

export function foldFor(streamId: string): Fold | null {
  return FOLDS.find(([prefix]) => streamId.startsWith(prefix))?.[1] ?? null;
}

/** One change of a folded state: the path (`participants[id=…].status`) and the values before and after. */
export type StateChange = { path: string; from?: unknown; to?: unknown };

const isObject = (v: unknown): v is Record<string, unknown> => !!v && typeof v === 'object' && !Array.isArray(v);
const hasIds = (a: unknown[]) => a.every((x) => isObject(x) && typeof x.id === 'string');

/**
 * What changed between two states, as the smallest paths that differ. Arrays of objects with an
 * `id` (participants, fields, keys) are matched by id, so removing one element reads as one removal
 * instead of every later index changing.
 */
export function diffStates(before: unknown, after: unknown, path = ''): StateChange[] {
  if (JSON.stringify(before) === JSON.stringify(after)) return [];
  if (isObject(before) && isObject(after)) {
    const keys = [...new Set([...Object.keys(before), ...Object.keys(after)])];
    return keys.flatMap((k) => diffStates(before[k], after[k], path ? `${path}.${k}` : k));
  }
  if (Array.isArray(before) && Array.isArray(after) && hasIds(before) && hasIds(after)) {
    const byId = (a: unknown[]) => new Map(a.map((x) => [(x as { id: string }).id, x]));
    const b = byId(before);
    const a = byId(after);
    const ids = [...new Set([...b.keys(), ...a.keys()])];
    return ids.flatMap((id) => diffStates(b.get(id), a.get(id), `${path}[id=${id}]`));
  }
  const change: StateChange = { path: path || '.' };
  if (before !== undefined) change.from = before;
  if (after !== undefined) change.to = after;
  return [change];
}

export interface ReplayStep {
  event: StoredEvent;
  changes: StateChange[];
}

/**
 * Folds a stream up to `asOf` (epoch ms; all of it when null) with its aggregate's evolve, after
 * upcasting, and reports what each event changed. Null when the stream kind has no fold.
 */
export function replayStream(streamId: string, events: StoredEvent[], asOf: number | null): { steps: ReplayStep[]; state: unknown } | null {
  const fold = foldFor(streamId);
  if (!fold) return null;
  let state = fold.initial();
  const steps: ReplayStep[] = [];
  for (const stored of eventsUpTo(events, asOf)) {
    const next = fold.evolve(state, upcast(stored));
    steps.push({ event: stored, changes: diffStates(state, next) });
    state = next;
  }
  return { steps, state };
}
