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

/**
 * The field's page in the joined PDF (what the stamper, the page images and every API count);
 * fields record their page within their part. `layout` stands for the state's before send (a
 * draft's parts as rendered now); without either, the page within the part.
 */
export function absolutePage(state: { part_pages?: PartPages[] | null }, field: Pick<Field, 'page' | 'part'>, layout?: PartPages[] | null): number {
  const at = (state.part_pages ?? layout)?.[partOf(field)];
  return at ? at.first_page + field.page - 1 : field.page;
}

/**
 * A page of the whole document (parts joined in order, every part counted once: what the footers,
 * the signing session and the page images number) as its part and the page within that part, as
 * fields are recorded. `part`, when the field names one, must be the part the page is in.
 * Refused with the field named: a page past the document's last, or outside the named part.
 */
export function pageWithinPart(layout: PartPages[], page: number, part: number | undefined, param: string): { part: number; page: number } {
  const total = layout.reduce((sum, at) => sum + at.page_count, 0);
  const index = layout.findIndex((at) => page >= at.first_page && page < at.first_page + at.page_count);
  if (index < 0) {
    throw invalid('field_page_out_of_range', `${param} is ${page} but the document has ${total} page${total === 1 ? '' : 's'} (every part counted): place it on a page from 1 to ${total}.`, param);
  }
  const named = part === undefined ? undefined : layout[part];
  if (named && part !== index) {
    const last = named.first_page + named.page_count - 1;
    const range = named.page_count === 1 ? `page ${named.first_page}` : `pages ${named.first_page} to ${last}`;
    throw invalid('field_page_out_of_range', `${param} is ${page}, which is in part ${index}; part ${part} is ${range} of the document (pages count across the whole document).`, param);
  }
  return { part: index, page: page - layout[index].first_page + 1 };
}

/** The document's page numbering while its parts are known, else null (a body not rendered yet). */
export function knownLayout(pageCounts: Array<number | null>): PartPages[] | null {
  return pageCounts.every((n): n is number => n !== null) ? layParts(pageCounts) : null;
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
