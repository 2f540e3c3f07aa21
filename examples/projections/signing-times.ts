import type { StoredEvent } from '@dojang/event-store';
import type { Projection } from '@dojang/projections';
import type { ReadDoc, Write } from '@dojang/read-store';

/**
 * Worked example of a projection plugin (docs/EXTENDING.md): the time to sign, per organization,
 * mode (test/live) and month, as its median (p50) and 95th percentile (p95).
 *
 * Time to sign = from the document's first `DocumentSent` (`sent_at`) to its `DocumentCompleted`
 * (`completed_at`): how long the whole signing round took, every signer included. It counts in
 * the month (UTC, YYYY-MM) the document completed. Canceled, declined or expired documents never
 * complete and are not counted.
 *
 * Percentiles over unbounded data: a month row cannot keep every duration (a busy organization's
 * row would grow without end, and every completion rewrites it). It keeps a **log histogram**
 * instead: each duration counts in the bucket (γ^(i-1), γ^i] with γ = 1.1, so a month holds at
 * most a couple of hundred counters whatever its volume (1 s to a year is 182 buckets), two months
 * merge by adding counters, and a percentile read from it is within ±4.8 % of the exact one. This
 * is the idea of DDSketch and of HDR histograms, written out in a few lines because `evolve` must be
 * pure: a t-digest (the `tdigest` package) compresses with Math.random, so a replay or a rebuild
 * would write different rows.
 *
 * Register it with PROJECTIONS=examples/projections/signing-times.ts (or the compiled .js); read it
 * with `npm run cli -- report report_signing_times --org ORG_ID`, or over HTTP at
 * GET /v1/extensions/signing_times/monthly (its declared endpoint).
 */

/** One row per sent document: when it was sent, until it completes. */
export const SENT_DOCUMENTS = 'report_signing_sent';
/** One row per organization, mode and month: the histogram of durations and its percentiles. */
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
  /** Estimates read from `histogram`: within ±RELATIVE_ERROR of the exact percentile. */
  p50_seconds: number;
  p95_seconds: number;
  /** Bucket index (as a string: JSON keys) → documents; sparse and bounded (see above). */
  histogram: Record<string, number>;
}

const documentId = (e: StoredEvent) => e.stream_id.slice('document-'.length);

const monthRowId = (doc: SentDocumentRow, completedAt: string) => `${doc.organization_id}:${doc.livemode ? 'live' : 'test'}:${completedAt.slice(0, 7)}`;

/** Bucket growth: each bucket's bounds are a factor GAMMA apart. */
export const GAMMA = 1.1;
/** The worst relative error of a value read back from its bucket: (γ − 1) / (γ + 1). */
export const RELATIVE_ERROR = (GAMMA - 1) / (GAMMA + 1);

/** The bucket of a duration: (γ^(i-1), γ^i]; under a second is bucket 0. */
export function bucketOf(seconds: number): number {
  return seconds < 1 ? 0 : Math.max(1, Math.ceil(Math.log(seconds) / Math.log(GAMMA)));
}

/** The value a bucket stands for: the point of least relative error in its range. */
export function bucketValue(index: number): number {
  return index === 0 ? 0 : Math.round(((2 * GAMMA ** index) / (GAMMA + 1)) * 10) / 10;
}

/** The histogram with one more duration (a new object: rows are values). */
export function record(histogram: Record<string, number>, seconds: number): Record<string, number> {
  const key = String(bucketOf(seconds));
  return { ...histogram, [key]: (histogram[key] ?? 0) + 1 };
}

/** The q-quantile (0 < q ≤ 1) of the histogram's durations: the value of the bucket holding the rank ⌈q·n⌉. */
export function percentile(histogram: Record<string, number>, q: number): number {
  const buckets = Object.entries(histogram)
    .map(([k, n]) => [Number(k), n] as const)
    .sort((a, b) => a[0] - b[0]);
  const total = buckets.reduce((sum, [, n]) => sum + n, 0);
  if (total === 0) return 0;
  const rank = Math.max(1, Math.ceil(q * total));
  let seen = 0;
  for (const [index, n] of buckets) {
    seen += n;
    if (seen >= rank) return bucketValue(index);
  }
  return bucketValue(buckets[buckets.length - 1][0]);
}

export const signingTimesProjection: Projection = {
  name: 'signing_times',
  // 2: percentiles from a bounded histogram (1 kept every duration): rows rebuilt on deploy.
  version: 2,
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
    const histogram = record(month?.histogram ?? {}, seconds);
    const row: SigningTimesRow = {
      id: rowId,
      organization_id: sent.organization_id,
      livemode: sent.livemode,
      month: completedAt.slice(0, 7),
      documents: (month?.documents ?? 0) + 1,
      p50_seconds: percentile(histogram, 0.5),
      p95_seconds: percentile(histogram, 0.95),
      histogram,
    };
    return [
      { op: 'put', collection: SENT_DOCUMENTS, doc: { ...sent, completed_at: completedAt } },
      { op: 'put', collection: SIGNING_TIMES, doc: row },
    ];
  },
};

export default signingTimesProjection;
