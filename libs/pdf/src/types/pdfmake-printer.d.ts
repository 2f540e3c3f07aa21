/**
 * pdfmake 0.3 ships its server printer as an internal module without typings.
 * We use it instead of the `pdfmake` singleton so that our font table and
 * resource policies cannot be changed by any other code in the process.
 */
declare module 'pdfmake/js/Printer' {
  import type { TDocumentDefinitions, TFontDictionary } from 'pdfmake/interfaces';

  export interface PrinterVirtualFs {
    existsSync(name: string): boolean;
    readFileSync(name: string, options?: unknown): Buffer;
    writeFileSync(name: string, content: unknown): void;
  }

  export interface PrinterUrlResolver {
    resolve(url: string, headers?: Record<string, string>): Promise<void>;
    resolved(): Promise<unknown>;
  }

  export interface PdfKitDocumentLike extends NodeJS.ReadableStream {
    end(): void;
  }

  export default class PdfPrinter {
    constructor(
      fontDescriptors: TFontDictionary,
      virtualfs: PrinterVirtualFs,
      urlResolver: PrinterUrlResolver,
      localAccessPolicy?: (path: string) => boolean,
    );
    createPdfKitDocument(
      docDefinition: TDocumentDefinitions,
      options?: Record<string, unknown>,
    ): Promise<PdfKitDocumentLike>;
  }
}
