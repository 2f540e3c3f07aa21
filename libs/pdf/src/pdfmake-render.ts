// First: the font cache must be in place before pdfmake loads pdfkit and fontkit.
import { koreanFontDescriptors, koreanFontFiles } from './fonts';
import PdfPrinter, { PrinterUrlResolver, PrinterVirtualFs } from 'pdfmake/js/Printer';
import type { TDocumentDefinitions } from 'pdfmake/interfaces';
import { assertOffMainThread } from './main-thread-guard';

/**
 * Fonts are served from memory; nothing else exists in this file system, so a
 * document definition cannot name a path and make pdfmake read it.
 */
function fontOnlyFileSystem(): PrinterVirtualFs {
  const files = koreanFontFiles();
  return {
    existsSync: (name) => files.has(name),
    readFileSync: (name) => {
      const file = files.get(name);
      if (!file) throw new Error(`pdf: no such font file ${name}`);
      return file;
    },
    writeFileSync: () => {
      throw new Error('pdf: downloads are disabled');
    },
  };
}

/**
 * pdfmake would fetch any http(s) URL found in fonts or images. Contract
 * content comes from API users, so the renderer must reach no network at all:
 * this resolver never fetches, and anything not in memory fails to load.
 */
const offlineResolver: PrinterUrlResolver = {
  resolve: async () => undefined,
  resolved: async () => [],
};

/** Local files other than the in-memory fonts are refused (data: URLs bypass this by design). */
const denyLocalFiles = (): boolean => false;

/**
 * Renders a pdfmake document definition as is. pdfmake mutates the definition
 * while laying it out, so pass a fresh one per call.
 */
export async function renderDocDefinition(def: TDocumentDefinitions): Promise<Buffer> {
  const doc = await layOut(def);
  return new Promise<Buffer>((resolve, reject) => {
    const chunks: Buffer[] = [];
    doc.on('data', (chunk: Buffer) => chunks.push(chunk));
    doc.on('end', () => resolve(Buffer.concat(chunks)));
    doc.on('error', reject);
    doc.end();
  });
}

/** The laid-out pdfkit document, not yet ended (tests look at its fonts). */
export async function layOut(def: TDocumentDefinitions) {
  assertOffMainThread('layOut');
  // A new printer per call: the printer keeps the last pdfkit document on itself.
  const printer = new PdfPrinter(koreanFontDescriptors(), fontOnlyFileSystem(), offlineResolver, denyLocalFiles);
  return printer.createPdfKitDocument(def);
}
