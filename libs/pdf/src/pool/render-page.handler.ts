import { readFileSync } from 'fs';
import * as path from 'path';
import { PDFiumLibrary } from '@hyzyla/pdfium';
import { encodeCompactPng } from '../png-encode';
import type { RenderedPage, RenderPageInput } from './pdf-jobs';

let library: Promise<PDFiumLibrary> | null = null;

/**
 * PDFium (WebAssembly) once per worker, from the wasm file the package ships: handing it the bytes
 * means it never looks for the file elsewhere, let alone downloads it.
 */
function pdfium(): Promise<PDFiumLibrary> {
  library ??= PDFiumLibrary.init({ wasmBinary: new Uint8Array(readFileSync(path.join(path.dirname(require.resolve('@hyzyla/pdfium')), 'pdfium.wasm'))).buffer });
  return library;
}

/**
 * One page of a PDF as an opaque PNG `width` pixels wide (the height follows the page's shape, as
 * displayed: /Rotate applied). A page outside the document comes back as `png: null` with the
 * count, so the caller answers 404 without rendering anything.
 */
export default async function renderPageJob(input: RenderPageInput): Promise<RenderedPage> {
  const doc = await (await pdfium()).loadDocument(new Uint8Array(input.pdf));
  try {
    const pageCount = doc.getPageCount();
    if (input.page < 1 || input.page > pageCount) return { page_count: pageCount, png: null, width: 0, height: 0 };
    const page = doc.getPage(input.page - 1);
    const { originalWidth, originalHeight } = page.getOriginalSize();
    const height = Math.max(1, Math.round((input.width * originalHeight) / originalWidth));
    const rendered = await page.render({ width: input.width, height, scale: 1, render: 'bitmap', colorSpace: 'BGRA', renderFormFields: true, transparent: false });
    // The library hands back RGBA, opaque on white: RGB, then grey or a palette when that loses
    // nothing (a text page's PNG is about half the size: the signer's first wait on a phone).
    const { width, data } = rendered;
    const rgb = new Uint8Array(width * rendered.height * 3);
    for (let i = 0, j = 0; i < data.length; i += 4, j += 3) {
      rgb[j] = data[i];
      rgb[j + 1] = data[i + 1];
      rgb[j + 2] = data[i + 2];
    }
    return { page_count: pageCount, png: encodeCompactPng(width, rendered.height, rgb), width, height: rendered.height };
  } finally {
    doc.destroy();
  }
}
