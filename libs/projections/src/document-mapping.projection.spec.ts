import { ProjectionSpecification } from './testing';
import { PUBLIC_EVENTS, PUBLIC_EVENT_DOCUMENTS, publicEventProjection } from './public-event.projection';
import { DOCUMENTS, DOCUMENT_METADATA, documentProjection, metadataPair } from './document.projection';

/** Issue 32 item 3: what maps a document back (metadata, external_id) in its public events and its lists. */
const DOC = '00000000-0000-4000-8000-000000000001';
const STREAM = `document-${DOC}`;
const T0 = '2027-01-04T01:00:00.000Z';
const body = { sha256: 'a'.repeat(64), byte_size: 5 };
const created = (data: object = {}) => ({
  type: 'DocumentCreated',
  stream_id: STREAM,
  data: { document_id: DOC, organization_id: 'org_1', livemode: false, title: '근로계약서', content_blob: body, content_format: 'html', file: null, author_name: '도장', metadata: { 사번: 'E-0001' }, external_id: 'HR-1', from_template: null, duplicated_from: null, created_at: T0, ...data },
});
const updated = { type: 'DocumentUpdated', stream_id: STREAM, data: { metadata: { 부서: '인사' }, updated_at: T0 } };
const expired = { type: 'DocumentExpired', stream_id: STREAM, data: { expired_at: T0 } };
const trashed = { type: 'DocumentTrashed', stream_id: STREAM, data: { trashed_at: T0 } };

describe('public events carry the document\'s metadata and external_id', () => {
  const spec = ProjectionSpecification.for(publicEventProjection);

  it('every document event repeats them as they stood; replaying gives the same rows', () => {
    spec
      .given([created()])
      .when([expired])
      .then((rows) => {
        expect(rows.all(PUBLIC_EVENTS)[0]).toMatchObject({ type: 'document.expired', data: { document_id: DOC, metadata: { 사번: 'E-0001' }, external_id: 'HR-1' } });
      });
    spec
      .given([created(), updated])
      .when([expired])
      .then((rows) => expect(rows.all(PUBLIC_EVENTS)[0]).toMatchObject({ data: { metadata: { 부서: '인사' }, external_id: 'HR-1' } }));
    spec.given([created()]).when([updated, expired], { times: 2 }).thenSameAsOnce();
  });

  it('a document with neither (and an older one) reads {} and null, with no row of its own', () => {
    spec
      .given([created({ metadata: {}, external_id: undefined })])
      .when([expired])
      .then((rows) => {
        expect(rows.all(PUBLIC_EVENT_DOCUMENTS)).toEqual([]);
        expect(rows.all(PUBLIC_EVENTS)[0]).toMatchObject({ data: { metadata: {}, external_id: null } });
      });
  });
});

describe('documents: external_id on the row, one metadata row per key', () => {
  const spec = ProjectionSpecification.for(documentProjection);

  it('keeps the external id and a row per key; a removed key loses its row', () => {
    const pairs = (rows: { all(c: string): Array<Record<string, unknown>> }) => rows.all(DOCUMENT_METADATA).map((r) => [r.document_id, r.pair]);
    spec
      .given([])
      .when([created()])
      .then((rows) => expect(pairs(rows)).toEqual([[DOC, metadataPair('사번', 'E-0001')]]));
    spec
      .given([])
      .when([created({ metadata: { 사번: 'E-0001', 팀: '개발' } }), updated, trashed])
      .then((rows) => {
        expect(rows.get(DOCUMENTS, DOC)).toMatchObject({ external_id: 'HR-1', metadata: { 부서: '인사' }, trashed: true });
        expect(pairs(rows)).toEqual([[DOC, metadataPair('부서', '인사')]]);
      });
    spec.given([]).when([created(), updated, trashed], { times: 2 }).thenSameAsOnce();
  });
});
