import { StoredEvent } from '@dojang/event-store';
import { DocumentPdfService, PAGE_IMAGE_WIDTHS_AT_SEND } from '../document-pdf.service';
import { Reactor } from './reactor-runner';

/**
 * Renders page 1 of a sent document's PDF (GET /signing/{token}/pages/{n}.png) when it is sent, at
 * the widths phones ask for (PAGE_IMAGE_WIDTHS_AT_SEND), so the first open of a link serves a
 * stored image instead of rendering on demand (a first view on a slow phone waited for the render:
 * issue 30). The pages after it are rendered once a signer's page 1 is asked for, at the width that
 * signer's screen uses (DocumentPdfService.warmFollowingPages): the page asks for them only once
 * page 1 is on screen. Renders go through DocumentPdfService.pageImage: one render per PDF, page
 * and width, stored in the blob store and `page_images` and shared by every signer and process, so
 * a replayed event costs a lookup. Only the WebP is made here: browsers, which are who opens a
 * signing link, ask for it; the PNG (for a client that does not accept WebP) would have cost more
 * CPU than the render and the WebP together on every send, and is rendered on its first request.
 */
export class PageImagesReactor implements Reactor {
  readonly name = 'page_images';
  readonly handles = new Set(['DocumentSent']);

  constructor(private readonly pdf: DocumentPdfService) {}

  async react(event: StoredEvent): Promise<void> {
    const data = event.data as { page_count?: number | null; original_pdf?: { sha256: string } | null };
    const pdf = data.original_pdf?.sha256;
    if (!pdf || !data.page_count) return;
    const source = this.pdf.pdfSource(pdf);
    for (const width of PAGE_IMAGE_WIDTHS_AT_SEND) await this.pdf.pageImage(pdf, 1, width, 'webp', source);
  }
}
