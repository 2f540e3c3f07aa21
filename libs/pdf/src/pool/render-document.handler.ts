import type { Content } from 'pdfmake/interfaces';
import { buildDocDefinitionWithPlaceholders, finishPlaceholders, renderDocDefinition } from '../render-document';
import { countImagePixels } from '../content-budget';
import type { RenderDocumentJobInput, RenderedPdf } from './pdf-jobs';
import type { PdfJobRefusal } from './pdf-limit.error';

/** Renders a contract; refuses one whose images or pages are over the document's budget. */
export default async function renderDocumentJob(input: RenderDocumentJobInput): Promise<RenderedPdf | PdfJobRefusal> {
  if (input.format === 'html') {
    const pixels = countImagePixels(input.content);
    if (pixels.total > input.max_image_pixels) {
      return { refused: { limit: 'image_pixels', param: 'content', message: pixelsMessage(pixels.total, input.max_image_pixels) } };
    }
  }
  const { def, placeholders } = buildDocDefinitionWithPlaceholders(input);
  // pdfmake tells the footer the page count; the page count is also the page budget.
  let pageCount = 0;
  const footer = def.footer as (page: number, count: number) => Content;
  def.footer = (page: number, count: number) => {
    pageCount = count;
    return footer(page, count);
  };
  const rendered = await renderDocDefinition(def);
  if (pageCount > input.max_pages) {
    return { refused: { limit: 'pages', param: 'content', message: `The document renders to ${pageCount} pages; at most ${input.max_pages} are accepted.` } };
  }
  const { pdf, anchors } = await finishPlaceholders(rendered, placeholders);
  // Only a body with field placeholders has anchors: other renders keep their exact output.
  return { pdf, page_count: pageCount, ...(anchors.length ? { anchors } : {}) };
}

export function pixelsMessage(total: number, max: number): string {
  return `The images in content add up to ${total} pixels; at most ${max} are accepted per document.`;
}
