import { joinPdfs } from '../join-pdfs';
import type { JoinPdfsInput, JoinedPdf } from './pdf-jobs';
import type { PdfJobRefusal } from './pdf-limit.error';

/** A document's parts joined into one PDF; refused past the document's page budget. */
export default async function joinPdfsJob(input: JoinPdfsInput): Promise<JoinedPdf | PdfJobRefusal> {
  const { pdf, page_counts } = await joinPdfs(input.pdfs, input.title);
  const total = page_counts.reduce((a, b) => a + b, 0);
  if (total > input.max_pages) {
    return { refused: { limit: 'pages', param: 'parts', message: `The parts add up to ${total} pages; at most ${input.max_pages} are accepted per document.` } };
  }
  return { pdf, page_counts };
}
