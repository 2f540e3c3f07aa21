import type { Projection } from '@dojang/projections';
import { ProjectionSpecification } from '@dojang/projections/testing';
import { SENT_DOCUMENTS, SIGNING_TIMES, median, signingTimesProjection } from './signing-times';

const ORG = 'org_1';
const meta = (organization_id = ORG, livemode = false) => ({ organization_id, livemode });
const sent = (doc: string, sent_at: string, org = ORG) => ({ type: 'DocumentSent', stream_id: `document-${doc}`, data: { sent_at }, metadata: meta(org) });
const completed = (doc: string, completed_at: string, org = ORG) => ({ type: 'DocumentCompleted', stream_id: `document-${doc}`, data: { completed_at }, metadata: meta(org) });
const signed = (doc: string) => ({ type: 'ParticipantSigned', stream_id: `document-${doc}`, data: { participant_id: 'p1' }, metadata: meta() });

const spec = ProjectionSpecification.for(signingTimesProjection);

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
          median_seconds: 5400,
          durations_seconds: [5400],
        }),
      );
  });

  it('takes the median per organization and month of completion', () => {
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
        expect(rows.get(SIGNING_TIMES, `${ORG}:test:2026-03`)).toMatchObject({ documents: 3, median_seconds: 600 });
        expect(rows.get(SIGNING_TIMES, `${ORG}:test:2026-04`)).toMatchObject({ documents: 1, median_seconds: 3 * 86400 });
        expect(rows.get(SIGNING_TIMES, 'org_2:test:2026-03')).toMatchObject({ documents: 1, median_seconds: 30 });
      });
  });

  it('starts the clock at the first send (a resend does not restart it)', () => {
    spec
      .given([sent('a', '2026-03-02T09:00:00.000Z'), sent('a', '2026-03-05T09:00:00.000Z')])
      .when([completed('a', '2026-03-06T09:00:00.000Z')])
      .then((rows) => expect(rows.get(SIGNING_TIMES, `${ORG}:test:2026-03`)).toMatchObject({ median_seconds: 4 * 86400 }));
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

  it('median of an even count is the mean of the middle two', () => {
    expect(median([1, 2, 3, 10])).toBe(2.5);
    expect(median([])).toBe(0);
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
