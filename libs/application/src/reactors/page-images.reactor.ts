import { StoredEvent } from '@dojang/event-store';
import { DocumentPdfService, PAGE_IMAGE_WIDTHS_AT_SEND } from '../document-pdf.service';
import { Reactor } from './reactor-runner';

/**
 * Pages rendered at send, so no signer waits for them (at most this many; later pages of a long
 * document are rendered when first asked for, as before): the first pages are what a signer opens.
 */
export const PRERENDERED_PAGES = 20;

/**
 * Renders the page images of a sent document's PDF (GET /signing/{token}/pages/{n}.png) when it is
 * sent, page 1 first, at the widths phones ask for (PAGE_IMAGE_WIDTHS_AT_SEND), so the first open of a link serves stored images instead of
 * rendering on demand (a first view on a slow phone waited for the render: issue 30). Renders go
 * through DocumentPdfService.pageImage: one render per PDF, page and width, stored in the blob
 * store and `page_images` and shared by every signer and process, so a replayed event costs a
 * lookup. Only the WebP is made here: browsers, which are who opens a signing link, ask for it;
 * the PNG (for a client that does not accept WebP) would have cost more CPU than the render and
 * the WebP together on every send, and is rendered on its first request instead.
 */
export class PageImagesReactor implements Reactor {
  readonly name = 'page_images';
  readonly handles = new Set(['DocumentSent']);

  constructor(private readonly pdf: DocumentPdfService) {}

  async react(event: StoredEvent): Promise<void> {
    const data = event.data as { page_count?: number | null; original_pdf?: { sha256: string } | null };
    const pdf = data.original_pdf?.sha256;
    if (!pdf || !data.page_count) return;
    const pages = Math.min(data.page_count, PRERENDERED_PAGES);
    for (let page = 1; page <= pages; page++) {
      for (const width of PAGE_IMAGE_WIDTHS_AT_SEND) await this.pdf.pageImage(pdf, page, width, 'webp');
    }
  }
}
