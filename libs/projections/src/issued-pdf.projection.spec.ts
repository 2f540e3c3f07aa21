import { ProjectionSpecification } from './testing';
import { ISSUED_PDF_HEADS, ISSUED_PDFS, issuedPdfProjection } from './issued-pdf.projection';

const DOC = '7f0c7f9e-9a55-4a36-8c1c-6a1f4a7e2b10';
const FINAL = 'f'.repeat(64);
const HEAD = 'a'.repeat(64);
const completed = (data: Record<string, unknown>) => ({
  type: 'DocumentCompleted',
  stream_id: `document-${DOC}`,
  data: { completed_at: '2026-03-02T09:05:00.000Z', original_sha256: 'c'.repeat(64), ...data },
  metadata: { organization_id: 'org_1', livemode: true, occurred_at: '2026-03-02T09:05:00.000Z' },
});

/** The public verify page's index: twice is once (the kit replays every `when` and compares). */
describe('issued PDFs projection', () => {
  const spec = ProjectionSpecification.for(issuedPdfProjection);

  it('indexes a completion by its final PDF hash and by the chain head it sealed', () => {
    spec
      .given([{ type: 'DocumentSent', stream_id: `document-${DOC}` }])
      .when([completed({ final_pdf: { sha256: FINAL, byte_size: 1234 }, chain_head: { hash: HEAD, revision: 9 } })])
      .then((rows) => {
        expect(rows.get(ISSUED_PDFS, FINAL)).toEqual({
          id: FINAL,
          document_id: DOC,
          organization_id: 'org_1',
          livemode: true,
          byte_size: 1234,
          completed_at: '2026-03-02T09:05:00.000Z',
          chain_head_hash: HEAD,
        });
        expect(rows.get(ISSUED_PDF_HEADS, HEAD)).toEqual({ id: HEAD, final_sha256: FINAL, document_id: DOC });
      });
  });

  it('indexes a completion from before chain heads by its hash only, and one without a final PDF not at all', () => {
    spec
      .given([])
      .when([completed({ final_pdf: { sha256: FINAL, byte_size: 1 } }), completed({ final_pdf: null })])
      .then((rows) => {
        expect(rows.all(ISSUED_PDFS)).toEqual([expect.objectContaining({ id: FINAL, chain_head_hash: null })]);
        expect(rows.all(ISSUED_PDF_HEADS)).toEqual([]);
      });
  });

  it('indexes a re-timestamped final PDF with its completion, the earlier file staying issued', () => {
    const ARCHIVED = 'b'.repeat(64);
    const archived = {
      type: 'DocumentArchiveTimestamped',
      stream_id: `document-${DOC}`,
      data: { final_pdf: { sha256: ARCHIVED, byte_size: 2345 }, previous_final_sha256: FINAL, timestamped_at: '2027-01-01T00:00:00.000Z', tsa_certificate_expires_at: '2036-01-01T00:00:00.000Z' },
      metadata: { organization_id: 'org_1', livemode: true, occurred_at: '2027-01-01T00:00:00.000Z' },
    };
    spec
      .given([])
      .when([completed({ final_pdf: { sha256: FINAL, byte_size: 1234 }, chain_head: { hash: HEAD, revision: 9 } }), archived])
      .then((rows) => {
        expect(rows.get(ISSUED_PDFS, FINAL)).toEqual(expect.objectContaining({ id: FINAL, byte_size: 1234 }));
        expect(rows.get(ISSUED_PDFS, ARCHIVED)).toEqual({
          id: ARCHIVED,
          document_id: DOC,
          organization_id: 'org_1',
          livemode: true,
          byte_size: 2345,
          completed_at: '2026-03-02T09:05:00.000Z',
          chain_head_hash: HEAD,
        });
      });
    spec.given([]).when([completed({ final_pdf: { sha256: FINAL, byte_size: 1 }, chain_head: { hash: HEAD } }), archived]).thenSameAsOnce();
  });

  it('replaying the whole log gives the same rows', () => {
    spec.given([]).when([completed({ final_pdf: { sha256: FINAL, byte_size: 1 }, chain_head: { hash: HEAD } })]).thenSameAsOnce();
  });
});
