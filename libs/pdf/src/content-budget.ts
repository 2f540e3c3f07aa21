import { readImageInfo } from './image-type';
import { PdfLimitError } from './pool/pdf-limit.error';

/**
 * Per-document budgets, on top of the per-image cap (MAX_IMAGE_PIXELS): what one document may make
 * the renderer decode, embed and lay out. Checked from the content alone at create and update (image
 * headers are read, nothing is decoded), and again by the render job, which also counts real pages.
 */
export const DOCUMENT_BUDGETS = {
  /** Two A4 scans at 300 dpi: decoding is the costly part of a render. */
  max_image_pixels: 20_000_000,
  max_images: 200,
  max_pages: 200,
  /**
   * Characters of text one render may lay out. With long words and paragraphs bounded
   * (layout-bounds.ts) layout time grows with the text: 200,000 characters took about 7 s on a
   * busy 2-core machine, so this keeps a render well inside the 30 s job limit and a body that
   * would not fit is refused before any worker spends time on it (about 100 dense pages of Latin
   * text, over 200 of Korean).
   */
  max_layout_chars: 500_000,
} as const;

/**
 * A page holds far more than this many characters of text at the contract font size, so text longer
 * than `max_pages` times it is certainly over the page budget before anything is rendered.
 */
const MIN_CHARS_PER_PAGE_BOUND = 8_000;

// Any base64 image data URL in the raw content, quoted or not: counting one the sanitizer would
// drop errs on the side of the budget.
const DATA_IMAGE = /data:\s*image\/[a-z+.-]+\s*;\s*base64\s*,([A-Za-z0-9+/=\s]+)/gi;

/** The images of an HTML body and their pixels, read from their headers. */
export function countImagePixels(html: string): { images: number; total: number } {
  let images = 0;
  let total = 0;
  for (const match of html.matchAll(DATA_IMAGE)) {
    images++;
    const info = readImageInfo(Buffer.from(match[1].replace(/\s+/g, ''), 'base64'));
    // Unreadable images are dropped by the converter; they cost nothing to render.
    if (info && info.width > 0 && info.height > 0) total += info.width * info.height;
  }
  return { images, total };
}

/** Throws PdfLimitError (document_budget_exceeded) when content is certainly over a budget. */
export function checkDocumentBudget(
  content: string | null | undefined,
  format: string | null | undefined,
  budgets: { [K in keyof typeof DOCUMENT_BUDGETS]: number } = DOCUMENT_BUDGETS,
): void {
  // An uploaded PDF's body is not rendered.
  if (!content || format === 'pdf') return;
  if (format !== 'text') {
    const { images, total } = countImagePixels(content);
    if (images > budgets.max_images) {
      throw new PdfLimitError('document_budget_exceeded', 'images', `content has ${images} images; at most ${budgets.max_images} are accepted per document.`, 'content');
    }
    if (total > budgets.max_image_pixels) {
      throw new PdfLimitError(
        'document_budget_exceeded',
        'image_pixels',
        `The images in content add up to ${total} pixels; at most ${budgets.max_image_pixels} are accepted per document.`,
        'content',
      );
    }
  }
  const text = format === 'text' ? content : content.replace(DATA_IMAGE, '').replace(/<[^>]*>/g, '');
  if (text.length > budgets.max_pages * MIN_CHARS_PER_PAGE_BOUND) {
    throw new PdfLimitError('document_budget_exceeded', 'pages', `content is longer than ${budgets.max_pages} pages; at most ${budgets.max_pages} are accepted per document.`, 'content');
  }
  if (text.length > budgets.max_layout_chars) {
    throw new PdfLimitError(
      'document_budget_exceeded',
      'layout',
      `content has ${text.length} characters of text to lay out; at most ${budgets.max_layout_chars} are accepted per document.`,
      'content',
    );
  }
}
