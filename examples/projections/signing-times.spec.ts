import type { Projection } from '@dojang/projections';
import { ProjectionSpecification } from '@dojang/projections/testing';
import { RELATIVE_ERROR, SENT_DOCUMENTS, SIGNING_TIMES, bucketOf, percentile, record, signingTimesProjection } from './signing-times';

const ORG = 'org_1';
const meta = (organization_id = ORG, livemode = false) => ({ organization_id, livemode });
const sent = (doc: string, sent_at: string, org = ORG) => ({ type: 'DocumentSent', stream_id: `document-${doc}`, data: { sent_at }, metadata: meta(org) });
const completed = (doc: string, completed_at: string, org = ORG) => ({ type: 'DocumentCompleted', stream_id: `document-${doc}`, data: { completed_at }, metadata: meta(org) });
const signed = (doc: string) => ({ type: 'ParticipantSigned', stream_id: `document-${doc}`, data: { participant_id: 'p1' }, metadata: meta() });

const spec = ProjectionSpecification.for(signingTimesProjection);

/** Within the histogram's error bound of the exact value. */
const near = (exact: number) => ({
  asymmetricMatch: (actual: number) => Math.abs(actual - exact) <= exact * RELATIVE_ERROR,
  toString: () => `${exact} ±${(RELATIVE_ERROR * 100).toFixed(1)} %`,
});

describe('signing times (example plugin)', () => {
  it('counts one completed document from its send to its completion', () => {
    spec
      .given([sent('a', '2026-03-02T09:00:00.000Z'), signed('a')])
      .when([completed('a', '2026-03-02T10:30:00.000Z')])
      .then((rows) =>
        expect(rows.get(SIGNING_TIMES, `${ORG}:test:2026-03`)).toEqual({
          id: `${ORG}:test:2026-03`,
          organization_id: ORG,
          livemode: false,
          month: '2026-03',
          documents: 1,
          p50_seconds: near(5400),
          p95_seconds: near(5400),
          histogram: { [String(bucketOf(5400))]: 1 },
        }),
      );
  });

  it('takes the percentiles per organization and month of completion', () => {
    spec
      .given([
        sent('a', '2026-03-01T00:00:00.000Z'),
        sent('b', '2026-03-01T00:00:00.000Z'),
        sent('c', '2026-03-01T00:00:00.000Z'),
        sent('d', '2026-03-30T00:00:00.000Z'),
        sent('e', '2026-03-01T00:00:00.000Z', 'org_2'),
      ])
      .when([
        completed('a', '2026-03-01T00:01:00.000Z'),
        completed('b', '2026-03-01T00:10:00.000Z'),
        completed('c', '2026-03-01T01:00:00.000Z'),
        completed('d', '2026-04-02T00:00:00.000Z'),
        completed('e', '2026-03-01T00:00:30.000Z', 'org_2'),
      ])
      .then((rows) => {
        expect(rows.get(SIGNING_TIMES, `${ORG}:test:2026-03`)).toMatchObject({ documents: 3, p50_seconds: near(600), p95_seconds: near(3600) });
        expect(rows.get(SIGNING_TIMES, `${ORG}:test:2026-04`)).toMatchObject({ documents: 1, p50_seconds: near(3 * 86400) });
        expect(rows.get(SIGNING_TIMES, 'org_2:test:2026-03')).toMatchObject({ documents: 1, p50_seconds: near(30) });
      });
  });

  it('starts the clock at the first send (a resend does not restart it)', () => {
    spec
      .given([sent('a', '2026-03-02T09:00:00.000Z'), sent('a', '2026-03-05T09:00:00.000Z')])
      .when([completed('a', '2026-03-06T09:00:00.000Z')])
      .then((rows) => expect(rows.get(SIGNING_TIMES, `${ORG}:test:2026-03`)).toMatchObject({ p50_seconds: near(4 * 86400) }));
  });

  it('a document never sent (imported history) or not completed counts nowhere', () => {
    spec
      .given([sent('a', '2026-03-02T09:00:00.000Z')])
      .when([completed('b', '2026-03-02T10:00:00.000Z')])
      .then((rows) => {
        expect(rows.all(SIGNING_TIMES)).toEqual([]);
        expect(rows.get(SENT_DOCUMENTS, 'a')).toMatchObject({ completed_at: null });
      });
  });

  it('replaying the completion counts it once', () => {
    spec.given([sent('a', '2026-03-02T09:00:00.000Z')]).when([completed('a', '2026-03-02T10:00:00.000Z')], { times: 2 }).thenSameAsOnce();
  });

  it('keeps a month bounded: 100 000 durations from a second to a year fit in under 200 buckets, percentiles within the bound', () => {
    let histogram: Record<string, number> = {};
    const exact: number[] = [];
    // A deterministic spread (no Math.random: the same test every run), log-uniform over 1 s … 1 year.
    for (let i = 0; i < 100_000; i++) {
      const seconds = Math.round(Math.exp(((i * 7919) % 100_000) / 100_000 * Math.log(365 * 86400)));
      histogram = record(histogram, seconds);
      exact.push(seconds);
    }
    exact.sort((a, b) => a - b);
    expect(Object.keys(histogram).length).toBeLessThan(200);
    expect(JSON.stringify(histogram).length).toBeLessThan(4000);
    for (const q of [0.5, 0.95, 0.99]) expect(percentile(histogram, q)).toEqual(near(exact[Math.ceil(q * exact.length) - 1]));
    expect(percentile({}, 0.5)).toBe(0);
  });

  // The plugin of issue 26: the month row left out of `keys` while evolve still reads and writes
  // it. Live, the runner does not load that row for the next batch, so the next completion resets
  // the month to `documents: 1`; the kit must refuse it before it ships.
  it('the kit refuses the plugin when the month row is missing from keys, naming the row', () => {
    const unkeyed: Projection = {
      ...signingTimesProjection,
      keys: (event) => signingTimesProjection.keys(event).filter((k) => k.collection !== SIGNING_TIMES),
    };
    expect(() =>
      ProjectionSpecification.for(unkeyed)
        .given([sent('a', '2026-03-02T09:00:00.000Z'), sent('b', '2026-03-02T09:00:00.000Z'), completed('a', '2026-03-02T10:00:00.000Z')])
        .when([completed('b', '2026-03-02T11:00:00.000Z')])
        .then((rows) => expect(rows.get(SIGNING_TIMES, `${ORG}:test:2026-03`)).toMatchObject({ documents: 2 })),
    ).toThrow(`evolve read row ${SIGNING_TIMES}/${ORG}:test:2026-03 for DocumentCompleted`);
    // The same history through the correct plugin: two documents in the month.
    ProjectionSpecification.for(signingTimesProjection)
      .given([sent('a', '2026-03-02T09:00:00.000Z'), sent('b', '2026-03-02T09:00:00.000Z'), completed('a', '2026-03-02T10:00:00.000Z')])
      .when([completed('b', '2026-03-02T11:00:00.000Z')])
      .then((rows) => expect(rows.get(SIGNING_TIMES, `${ORG}:test:2026-03`)).toMatchObject({ documents: 2 }));
  });
});
