import type { Content, StyleDictionary, TDocumentDefinitions } from 'pdfmake/interfaces';
import { KOREAN_FONT_FAMILY } from './fonts';
import { htmlToPdfmake, textToPdfmake } from './html-to-pdfmake.converter';
import { boundLayoutWork } from './layout-bounds';
import { renderDocDefinition } from './pdfmake-render';
import { stripInvisible } from './printable-text';
import { sanitizeContentHtml } from './sanitize-content-html';
import { assertOffMainThread } from './main-thread-guard';
import { extractPlaceholderBoxes, markPlaceholders, type PlaceholderBox } from './anchors';

export { renderDocDefinition };

export interface RenderDocumentInput {
  title: string;
  content: string;
  format: 'html' | 'text';
  /**
   * Written as the PDF's CreationDate. With it, the same document renders to
   * the same bytes every time, so its SHA-256 can be recorded and re-checked;
   * without it pdfkit stamps the current time.
   */
  created_at?: Date | string;
  /** false: no title heading above the body (the body starts at the top margin of page 1). */
  show_title?: boolean;
  /**
   * A part of a document of several (the domain's document-parts.ts): its footers number the pages
   * of the whole document, "first + n - 1 / total", not the part's own. Absent: "n / N" of this render.
   */
  page_numbers?: PageNumbers;
}

/** Where a rendered part's pages fall in the document it is joined into. */
export interface PageNumbers {
  /** The document page this render's first page is. */
  first: number;
  /** The document's page count (every part counted once). */
  total: number;
}

/** A4 in points, as pdfmake lays it out. */
export const A4_WIDTH = 595.28;
export const A4_HEIGHT = 841.89;
/** 20 mm margins: the usual look of Korean contract forms. */
const MARGIN = 56.69;
const CONTENT_WIDTH = A4_WIDTH - 2 * MARGIN;

export const documentStyles: StyleDictionary = {
  title: { fontSize: 18, bold: true, alignment: 'center', margin: [0, 0, 0, 18] },
  h1: { fontSize: 16, bold: true, margin: [0, 10, 0, 6] },
  h2: { fontSize: 14, bold: true, margin: [0, 8, 0, 5] },
  h3: { fontSize: 12.5, bold: true, margin: [0, 6, 0, 4] },
  h4: { fontSize: 11.5, bold: true, margin: [0, 6, 0, 4] },
  h5: { fontSize: 10.5, bold: true, margin: [0, 4, 0, 3] },
  h6: { fontSize: 10, bold: true, margin: [0, 4, 0, 3] },
  footer: { fontSize: 8.5, color: '#666666', alignment: 'center' },
};

function creationDate(value: Date | string | undefined): Date | undefined {
  if (value === undefined) return undefined;
  const date = value instanceof Date ? value : new Date(value);
  if (Number.isNaN(date.getTime())) throw new RangeError(`pdf: invalid created_at ${String(value)}`);
  return date;
}

export function pageNumberFooter(currentPage: number, pageCount: number): Content {
  return { text: `${currentPage} / ${pageCount}`, style: 'footer', margin: [0, 18, 0, 0] };
}

/**
 * The footer of a render: its own "n / N", or for a part of a joined document the document's
 * numbering. The footer sits in the bottom margin, so it never moves a page break: a part renders
 * to the same pages whatever its footers say.
 */
export function footerFor(numbers: PageNumbers | undefined): (currentPage: number, pageCount: number) => Content {
  if (!numbers) return pageNumberFooter;
  return (currentPage: number) => pageNumberFooter(numbers.first + currentPage - 1, numbers.total);
}

/**
 * The pdfmake definition of a contract: title, body, "n / N" footer.
 * Returned separately from rendering so callers (and the benchmark) can
 * measure or adjust it; pdfmake consumes it, so build one per render.
 */
export function buildDocDefinition(input: RenderDocumentInput): TDocumentDefinitions {
  return buildDocDefinitionWithPlaceholders(input).def;
}

/**
 * The definition and the field placeholders (`{{signature:employee}}`, HTML only) it carries as
 * blank room: after rendering, `extractPlaceholderBoxes` reads where they went (anchors.ts).
 */
export function buildDocDefinitionWithPlaceholders(input: RenderDocumentInput): { def: TDocumentDefinitions; placeholders: string[] } {
  assertOffMainThread('buildDocDefinition');
  const converted = input.format === 'html' ? htmlToPdfmake(sanitizeContentHtml(input.content), { contentWidth: CONTENT_WIDTH }) : textToPdfmake(input.content);
  const { content: body, placeholders } = input.format === 'html' ? markPlaceholders(converted) : { content: converted, placeholders: [] as string[] };
  const created = creationDate(input.created_at);
  const title = stripInvisible(input.title);
  const def: TDocumentDefinitions = {
    pageSize: 'A4',
    pageMargins: [MARGIN, MARGIN, MARGIN, MARGIN],
    version: '1.7',
    language: 'ko-KR',
    displayTitle: true,
    info: {
      title,
      creator: 'Dojang',
      producer: 'Dojang (pdfmake)',
      ...(created ? { creationDate: created } : {}),
    },
    // Long words and paragraphs bounded before pdfmake sees them (layout-bounds.ts).
    content: boundLayoutWork([...(input.show_title === false ? [] : [{ text: title, style: 'title' }]), ...body]),
    footer: footerFor(input.page_numbers),
    styles: documentStyles,
    defaultStyle: { font: KOREAN_FONT_FAMILY, fontSize: 10.5, lineHeight: 1.35 },
  };
  return { def, placeholders };
}

/** The rendered PDF; placeholders leave no trace in it (their boxes come back beside it). */
export async function renderDocumentPdf(input: RenderDocumentInput): Promise<Buffer> {
  return (await renderDocumentWithAnchors(input)).pdf;
}

export async function renderDocumentWithAnchors(input: RenderDocumentInput): Promise<{ pdf: Buffer; anchors: PlaceholderBox[] }> {
  const { def, placeholders } = buildDocDefinitionWithPlaceholders(input);
  return finishPlaceholders(await renderDocDefinition(def), placeholders);
}

/** Without placeholders the PDF is pdfmake's bytes untouched; with them, re-saved without their marks. */
export async function finishPlaceholders(pdf: Buffer, placeholders: string[]): Promise<{ pdf: Buffer; anchors: PlaceholderBox[] }> {
  if (placeholders.length === 0) return { pdf, anchors: [] };
  const out = await extractPlaceholderBoxes(pdf, placeholders);
  return { pdf: Buffer.from(out.pdf.buffer, out.pdf.byteOffset, out.pdf.byteLength), anchors: out.anchors };
}
