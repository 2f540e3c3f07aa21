import { readFileSync } from 'fs';
import * as path from 'path';
import { PDFiumDocument, PDFiumLibrary } from '@hyzyla/pdfium';
import sharp from 'sharp';
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
 * The documents this worker has open, newest last, by the caller's content hash. A signer's page
 * list asks for page after page of the same PDF (two at a time): parsing a 20-page PDF again for
 * every page cost more than rendering the page. Two stay open (two signers' documents at once);
 * one loaded from bytes without a hash is closed after its page.
 */
const OPEN_DOCUMENTS = 2;
const open = new Map<string, PDFiumDocument>();
/** How many times this worker parsed a PDF (tests read it to see the open document reused). */
export let documentsLoaded = 0;

async function documentFor(input: RenderPageInput): Promise<{ doc: PDFiumDocument; keep: boolean }> {
  const key = input.pdf_sha256;
  const known = key ? open.get(key) : undefined;
  if (key && known) {
    open.delete(key);
    open.set(key, known);
    return { doc: known, keep: true };
  }
  const doc = await (await pdfium()).loadDocument(new Uint8Array(input.pdf));
  documentsLoaded++;
  if (!key) return { doc, keep: false };
  open.set(key, doc);
  while (open.size > OPEN_DOCUMENTS) {
    const [oldest, stale] = open.entries().next().value as [string, PDFiumDocument];
    open.delete(oldest);
    stale.destroy();
  }
  return { doc, keep: true };
}

/** libwebp's lossless effort (sharp's `effort`, libwebp's method): see encodeLosslessWebp. */
const WEBP_EFFORT = 1;

/**
 * The page's pixels as lossless WebP, by sharp (libvips' libwebp): the page image is the legal view
 * of the contract, so nothing of its text may be lost; lossless WebP is still 26–38 % smaller than
 * the compact PNG on the Korean contract fixture's pages at 960 px. Effort 1 instead of sharp's
 * default 4: the same sizes within 2 % on the fixtures' and the lifecycle bench's pages (either
 * way, some pages smaller, some larger), for 10–40 % less CPU (the WebP is what every sent
 * document pays for, two widths of page 1; docs/BENCHMARKS.md, issue 35 item 5). Effort 0 is no
 * cheaper and 5–20 times larger. Nor is libwebp's lossless "quality" (sharp's `quality`, the entropy
 * coder's search, 80 by default) lowered: at 1 the encode takes half the CPU, but a dense page of
 * Korean text (test/support/dense-contract.ts) came out twice the size (47,774 → 94,138 bytes at
 * 960 px), and Lighthouse's LCP on the signing page went from 1.37 to 1.67 s, past issue 30's 1.5 s.
 * sharp runs the encode on libuv's thread pool, so it is in this worker's process, never the API's
 * event loop; the pool's host loads sharp too (pdf-pool.ts), as sharp requires for worker threads.
 */
export async function encodeLosslessWebp(width: number, height: number, pixels: Uint8Array, channels: 3 | 4 = 3): Promise<Uint8Array> {
  // RGBA from the renderer, handed over as it is: libwebp finds the alpha opaque (the page is
  // rendered on white) and writes none, the same bytes as from RGB (checked on every fixture page
  // at the three widths), without libvips dropping the channel first (18 % of the encode's CPU).
  const out = await sharp(pixels, { raw: { width, height, channels } }).webp({ lossless: true, effort: WEBP_EFFORT }).toBuffer();
  return new Uint8Array(out.buffer, out.byteOffset, out.byteLength);
}

/**
 * The bitmap PDFium renders into, kept between renders (one at a time: `inUse`). The library copies
 * each rendered page out of the WebAssembly heap into a new buffer (`HEAPU8.slice`): megabytes per
 * page at 960 px, three widths per sent document, and every few documents their external memory
 * set off a full garbage collection of the worker's heap (pdfmake, fonts, PDFium): 20-25 ms of V8's
 * helper threads per sent document, more than the renders themselves. The copy now goes into this
 * buffer instead. Up to 16 MB is kept (960 px of a page nearly four times as tall as wide); a larger
 * page, or a render while one is being encoded, gets a buffer of its own as before.
 */
const reusedBitmap: { bytes: Uint8Array | null; inUse: boolean } = { bytes: null, inUse: false };
const REUSED_BITMAP_MAX_BYTES = 16 * 1024 * 1024;
/** How many renders' bitmaps went into `reusedBitmap` (tests read it to see it used). */
export let bitmapsReused = 0;

type RenderedBitmap = { width: number; height: number; data: Uint8Array };

/**
 * `render()` with the library's copy of the bitmap (`module.HEAPU8.slice`, made once per render)
 * written into `reusedBitmap` instead of a new buffer: for the length of the call, the module's
 * HEAPU8 is a view of the same memory whose `slice` of exactly `bytes` does that. Any other slice
 * is a copy, as before. Only the library reads `Module.HEAPU8` (the module's own code has its own
 * variable), and when the memory grows the module replaces the property with a view of the new
 * memory, so the render then simply copies as before. The result's `data` is valid until
 * `release()`.
 */
async function renderIntoReusedBitmap(page: unknown, bytes: number, render: () => Promise<RenderedBitmap>): Promise<{ rendered: RenderedBitmap; release: () => void }> {
  const module = (page as { module?: { HEAPU8?: Uint8Array } }).module;
  const heap = module?.HEAPU8;
  if (!module || !heap || reusedBitmap.inUse || bytes > REUSED_BITMAP_MAX_BYTES) return { rendered: await render(), release: () => undefined };
  reusedBitmap.inUse = true;
  const view = new Uint8Array(heap.buffer, heap.byteOffset, heap.byteLength);
  Object.defineProperty(view, 'slice', {
    value: (start: number, end: number) => {
      if (end - start !== bytes) return heap.slice(start, end);
      if (!reusedBitmap.bytes || reusedBitmap.bytes.length < bytes) reusedBitmap.bytes = new Uint8Array(bytes);
      const out = reusedBitmap.bytes.subarray(0, bytes);
      out.set(heap.subarray(start, end));
      bitmapsReused++;
      return out;
    },
  });
  module.HEAPU8 = view;
  try {
    return { rendered: await render(), release: () => void (reusedBitmap.inUse = false) };
  } catch (err) {
    reusedBitmap.inUse = false;
    throw err;
  } finally {
    // Unless the heap grew meanwhile: the module has set a view of its new memory then, to be kept.
    if (module.HEAPU8 === view) module.HEAPU8 = heap;
  }
}

/**
 * One page of a PDF as an opaque PNG `width` pixels wide (the height follows the page's shape, as
 * displayed: /Rotate applied), and as lossless WebP when `webp` is set (the WebP alone with
 * `png: false`). A page outside the document comes back as `png: null` (or `webp: null`) with the
 * count, so the caller answers 404 without rendering anything.
 */
export default async function renderPageJob(input: RenderPageInput): Promise<RenderedPage> {
  const { doc, keep } = await documentFor(input);
  try {
    const pageCount = doc.getPageCount();
    const png = input.png !== false;
    if (input.page < 1 || input.page > pageCount) return { page_count: pageCount, ...(png ? { png: null } : {}), ...(input.webp ? { webp: null } : {}), width: 0, height: 0 };
    const page = doc.getPage(input.page - 1);
    const { originalWidth, originalHeight } = page.getOriginalSize();
    const height = Math.max(1, Math.round((input.width * originalHeight) / originalWidth));
    const { rendered, release } = await renderIntoReusedBitmap(page, input.width * height * 4, () =>
      page.render({ width: input.width, height, scale: 1, render: 'bitmap', colorSpace: 'BGRA', renderFormFields: true, transparent: false }),
    );
    try {
      // The library hands back RGBA, opaque on white, encoded as it is: grey or a palette when that
      // loses nothing (a text page's PNG is about half the size: the signer's first wait on a
      // phone), else RGB; no RGB copy of the page is made here (megabytes at 960 px, three widths
      // per sent document, which the worker's garbage collector then paid for).
      const { width, data } = rendered;
      return {
        page_count: pageCount,
        ...(png ? { png: encodeCompactPng(width, rendered.height, data, 4) } : {}),
        ...(input.webp ? { webp: await encodeLosslessWebp(width, rendered.height, data, 4) } : {}),
        width,
        height: rendered.height,
      };
    } finally {
      release();
    }
  } finally {
    if (!keep) doc.destroy();
  }
}
