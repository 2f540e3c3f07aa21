import type { StoredEvent } from '@dojang/event-store';
import type { Projection } from '@dojang/projections';
import type { ReadDoc, Write } from '@dojang/read-store';

/**
 * Worked example of a projection plugin (docs/EXTENDING.md): the median time to sign, per
 * organization, mode (test/live) and month.
 *
 * Time to sign = from the document's first `DocumentSent` (`sent_at`) to its `DocumentCompleted`
 * (`completed_at`): how long the whole signing round took, every signer included. It counts in
 * the month (UTC, YYYY-MM) the document completed. Canceled, declined or expired documents never
 * complete and are not counted.
 *
 * Register it with PROJECTIONS=examples/projections/signing-times.ts (or the compiled .js); read it
 * with `npm run cli -- report report_signing_times --org ORG_ID`.
 */

/** One row per sent document: when it was sent, until it completes. */
export const SENT_DOCUMENTS = 'report_signing_sent';
/** One row per organization, mode and month: the durations and their median. */
export const SIGNING_TIMES = 'report_signing_times';

export interface SentDocumentRow extends ReadDoc {
  organization_id: string;
  livemode: boolean;
  sent_at: string;
  completed_at: string | null;
}

export interface SigningTimesRow extends ReadDoc {
  /** `${organization_id}:${test|live}:${month}` */
  id: string;
  organization_id: string;
  livemode: boolean;
  month: string;
  documents: number;
  median_seconds: number;
  /** Sorted; kept so the median stays exact as documents complete (a month is small). */
  durations_seconds: number[];
}

const documentId = (e: StoredEvent) => e.stream_id.slice('document-'.length);

const monthRowId = (doc: SentDocumentRow, completedAt: string) => `${doc.organization_id}:${doc.livemode ? 'live' : 'test'}:${completedAt.slice(0, 7)}`;

export function median(sorted: number[]): number {
  if (sorted.length === 0) return 0;
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

export const signingTimesProjection: Projection = {
  name: 'signing_times',
  version: 1,
  collections: [{ name: SENT_DOCUMENTS }, { name: SIGNING_TIMES, indexes: [['organization_id', 'month']] }],
  handles: new Set(['DocumentSent', 'DocumentCompleted']),
  // Served at GET /v1/extensions/signing_times/monthly (?month=2026-03) and …/monthly/{id}: this
  // organization's rows for the key's mode, auditor keys included.
  endpoints: [{ name: 'monthly', collection: SIGNING_TIMES, description: 'Time to sign per month', filters: ['month'] }],

  // Every row evolve reads or writes: the runner loads them, and skips an event any of them has
  // already seen, which is what makes a replay harmless.
  keys(event) {
    const id = documentId(event);
    if (event.type === 'DocumentSent') return [{ collection: SENT_DOCUMENTS, id }];
    const completedAt = String(event.data.completed_at);
    // The month row's id needs the organization and mode: both are on every event's metadata.
    const doc = { organization_id: String(event.metadata.organization_id), livemode: event.metadata.livemode === true } as SentDocumentRow;
    return [
      { collection: SENT_DOCUMENTS, id },
      { collection: SIGNING_TIMES, id: monthRowId(doc, completedAt) },
    ];
  },

  evolve(event, rows): Write[] {
    const id = documentId(event);
    const sent = rows(SENT_DOCUMENTS, id) as SentDocumentRow | null;
    if (event.type === 'DocumentSent') {
      if (sent) return []; // sent again (resend): the clock started at the first send
      const doc: SentDocumentRow = {
        id,
        organization_id: String(event.metadata.organization_id),
        livemode: event.metadata.livemode === true,
        sent_at: String(event.data.sent_at),
        completed_at: null,
      };
      return [{ op: 'put', collection: SENT_DOCUMENTS, doc }];
    }
    // DocumentCompleted
    if (!sent || sent.completed_at) return [];
    const completedAt = String(event.data.completed_at);
    const seconds = Math.max(0, (Date.parse(completedAt) - Date.parse(sent.sent_at)) / 1000);
    const rowId = monthRowId(sent, completedAt);
    const month = rows(SIGNING_TIMES, rowId) as SigningTimesRow | null;
    const durations = [...(month?.durations_seconds ?? []), seconds].sort((a, b) => a - b);
    const row: SigningTimesRow = {
      id: rowId,
      organization_id: sent.organization_id,
      livemode: sent.livemode,
      month: completedAt.slice(0, 7),
      documents: durations.length,
      median_seconds: median(durations),
      durations_seconds: durations,
    };
    return [
      { op: 'put', collection: SENT_DOCUMENTS, doc: { ...sent, completed_at: completedAt } },
      { op: 'put', collection: SIGNING_TIMES, doc: row },
    ];
  },
};

export default signingTimesProjection;
