import { invalid } from '../shared/domain-error';
import type { DocumentPart, Field, PartPages } from './document.events';


/**
 * A document of several parts (issue 21, item 5): a 근로계약서, a 개인정보 동의서 and a 취업규칙
 * 확인서 sent, shown and signed together, in order. Each part is an HTML/text body or an uploaded
 * PDF. Fields name their part (index, default 0) and a page within it. At send the parts are joined
 * into one original PDF (DocumentSent records where each part starts), so the final PDF is one
 * file, stamped and signed (PAdES) as a whole, with one audit certificate.
 *
 * A document made with `content` or a file is a one-part document exactly as before: its events
 * carry no parts, and every field has part 0.
 */
export const MAX_DOCUMENT_PARTS = 10;

export function validateParts(parts: DocumentPart[]): void {
  if (parts.length === 0) throw invalid('missing_parameter', 'parts must hold at least one part.', 'parts');
  if (parts.length > MAX_DOCUMENT_PARTS) throw invalid('invalid_parameter', `A document has at most ${MAX_DOCUMENT_PARTS} parts.`, 'parts');
  parts.forEach((p, i) => {
    const hasBody = !!p.content_blob?.byte_size;
    if (hasBody === !!p.file) throw invalid('missing_parameter', `parts[${i}] needs either content or file_url (one of them).`, `parts[${i}].content`);
    if (p.file && p.content_format !== 'pdf') throw invalid('invalid_parameter', `parts[${i}] is a PDF: its content_format is pdf.`, `parts[${i}].content_format`);
    if (hasBody && p.content_format === 'pdf') throw invalid('invalid_parameter', `parts[${i}].content_format must be html or text.`, `parts[${i}].content_format`);
  });
}

/** A field's part (absent: 0, as on every field recorded before parts). */
export const partOf = (field: Pick<Field, 'part'>): number => field.part ?? 0;

/** How many parts a document has (1 for a document made with content or a file). */
export const partCount = (state: { parts?: DocumentPart[] | null }): number => state.parts?.length ?? 1;

/** The field's page in the joined PDF (what the stamper and the page images count); before send, its page within its part. */
export function absolutePage(state: { part_pages?: PartPages[] | null }, field: Pick<Field, 'page' | 'part'>): number {
  const at = state.part_pages?.[partOf(field)];
  return at ? at.first_page + field.page - 1 : field.page;
}

/** Every part's place once the page counts are known: consecutive, from page 1. */
export function layParts(pageCounts: number[]): PartPages[] {
  let next = 1;
  return pageCounts.map((page_count) => {
    const at = { first_page: next, page_count };
    next += page_count;
    return at;
  });
}

/** The page counts known from the parts alone: a PDF's is; a body's is known once rendered (null). */
export function knownPartPageCounts(parts: DocumentPart[]): Array<number | null> {
  return parts.map((p) => p.file?.page_count ?? null);
}
