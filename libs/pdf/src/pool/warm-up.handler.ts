// First: the font cache must be in place before pdfmake is loaded.
import '../fonts';
import { renderDocumentPdf } from '../render-document';
// Loading the handlers here loads their libraries once, as the worker starts, so a job's time
// limit measures its work, not pdfmake, pdf-lib and forge being required.
import './render-document.handler';
import './inspect-pdf.handler';
import './build-final.handler';
import './audit-certificate.handler';
import './countersign.handler';
import './check-image.handler';
import './render-svg.handler';
import './zip.handler';
import './signer-chain.handler';
import './sign-digest.handler';
import { lowerThreadPriority } from './thread-priority';

// The worker's whole life runs below the API's event loop (see thread-priority.ts).
lowerThreadPriority();

/** The pool's first call on each worker: a tiny render parses the fonts before any job. */
export default async function warmUp(): Promise<string> {
  await renderDocumentPdf({ title: '준비', content: '<p>가 <b>나</b></p>', format: 'html', created_at: '2026-01-01T00:00:00.000Z' });
  return 'ready';
}
