import { ProjectionSpecification } from './testing';
import { BULK_SENDS, BULK_SEND_ROWS, bulkSendProjection, bulkSendRowId } from './bulk-send.projection';
import { TEMPLATES, templateProjection } from './template.projection';

const JOB = 'bulk_0123456789abcdef01234567';
const STREAM = `bulk-send-${JOB}`;
const T0 = '2027-01-04T01:00:00.000Z';
const DOC = '00000000-0000-4000-8000-000000000001';
const started = { type: 'BulkSendStarted', stream_id: STREAM, data: { bulk_send_id: JOB, organization_id: 'org_1', livemode: false, template_id: 'tmpl_1', template_version: 2, row_count: 3, rows_blob: { sha256: 'c'.repeat(64), byte_size: 10 }, title: null, message: null, expires_in_days: null, started_at: T0 } };
const sent = { type: 'BulkSendRowSent', stream_id: STREAM, data: { row: 1, document_id: DOC, external_id: 'E-1', sent_at: T0 } };
const failed = { type: 'BulkSendRowFailed', stream_id: STREAM, data: { row: 2, external_id: 'E-2', code: 'invalid_parameter', message: 'bad phone', column: 'employee.phone', failed_at: T0 } };

describe('bulk send projection', () => {
  const spec = ProjectionSpecification.for(bulkSendProjection);

  it('counts rows per state and keeps each row\'s outcome; replaying gives the same rows', () => {
    spec
      .given([started])
      .when([sent, failed])
      .then((rows) => {
        expect(rows.get(BULK_SENDS, JOB)).toMatchObject({ status: 'running', row_count: 3, sent: 1, failed: 1, canceled: 0, template_version: 2 });
        expect(rows.get(BULK_SEND_ROWS, bulkSendRowId(JOB, 1))).toMatchObject({ row: 1, state: 'sent', document_id: DOC, error: null });
        expect(rows.get(BULK_SEND_ROWS, bulkSendRowId(JOB, 2))).toMatchObject({ row: 2, state: 'failed', document_id: null, error: { column: 'employee.phone' } });
      });
    spec.given([started]).when([sent, failed], { times: 2 }).thenSameAsOnce();
  });

  it('a cancel counts the rows not sent; a row sent meanwhile moves from canceled to sent', () => {
    const canceled = { type: 'BulkSendCanceled', stream_id: STREAM, data: { sent: 1, failed: 0, canceled_rows: 2, canceled_at: T0 } };
    const late = { type: 'BulkSendRowSent', stream_id: STREAM, data: { row: 3, document_id: DOC.replace(/1$/, '3'), external_id: null, sent_at: T0 } };
    spec
      .given([started, sent])
      .when([canceled, late])
      .then((rows) => expect(rows.get(BULK_SENDS, JOB)).toMatchObject({ status: 'canceled', sent: 2, canceled: 1 }));
  });
});

describe('template projection (versions and archiving)', () => {
  const spec = ProjectionSpecification.for(templateProjection);
  const ID = 'tmpl_0123456789abcdef01234567';
  const body = { sha256: 'a'.repeat(64), byte_size: 5 };
  const created = { type: 'TemplateCreated', stream_id: `template-${ID}`, data: { template_id: ID, organization_id: 'org_1', livemode: false, name: 'v1', content_blob: body, variables: [], created_at: T0 } };
  const updated = { type: 'TemplateUpdated', stream_id: `template-${ID}`, data: { template_id: ID, version: 2, name: 'v2', content_blob: body, variables: ['x'], roles: [], fields: [], updated_at: T0 } };
  const archived = { type: 'TemplateArchived', stream_id: `template-${ID}`, data: { template_id: ID, version: 2, archived_at: T0 } };

  it('a template made before roles reads as version 1 with none; updates set the version; archiving flags it', () => {
    spec.given([]).when([created]).then((rows) => expect(rows.get(TEMPLATES, ID)).toMatchObject({ version: 1, roles: [], fields: [], archived: false }));
    spec
      .given([created])
      .when([updated, archived])
      .then((rows) => expect(rows.get(TEMPLATES, ID)).toMatchObject({ version: 2, name: 'v2', variables: ['x'], archived: true }));
    spec.given([created]).when([updated, archived], { times: 2 }).thenSameAsOnce();
  });

  it('a template of parts keeps its parts; a version of one body drops them; replaying gives the same row', () => {
    const parts = [
      { title: null, content_blob: body, content_format: 'html', file: null },
      { title: '동의서', content_blob: { sha256: 'b'.repeat(64), byte_size: 7 }, content_format: 'html', file: null },
    ];
    const withParts = { ...created, data: { ...created.data, parts } };
    const partsV2 = { ...updated, data: { ...updated.data, parts: [parts[1]] } };
    spec.given([]).when([withParts]).then((rows) => expect(rows.get(TEMPLATES, ID)).toMatchObject({ version: 1, parts }));
    spec.given([withParts]).when([partsV2]).then((rows) => expect(rows.get(TEMPLATES, ID)).toMatchObject({ version: 2, parts: [parts[1]] }));
    spec.given([withParts]).when([updated]).then((rows) => expect(rows.get(TEMPLATES, ID)).not.toHaveProperty('parts'));
    spec.given([withParts]).when([partsV2, updated], { times: 2 }).thenSameAsOnce();
  });
});
