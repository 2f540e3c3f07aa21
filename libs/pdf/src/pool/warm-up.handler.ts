import { preloadKoreanFonts } from '../fonts';
// Loading the handlers here loads their libraries once, as the worker starts, so a job's time
// limit measures its work, not pdfmake, pdf-lib and forge being required.
import './render-document.handler';
import './inspect-pdf.handler';
import './build-final.handler';
import './audit-certificate.handler';

preloadKoreanFonts();

export default function warmUp(): string {
  return 'ready';
}
