import { readFileSync } from 'fs';
import * as path from 'path';
import type { Content } from 'pdfmake/interfaces';
import { PDFArray, PDFDict, PDFDocument, PDFName, PDFNumber, PDFRef, PDFString, PDFHexString } from 'pdf-lib';
import { PDFiumLibrary } from '@hyzyla/pdfium';
import { assertOffMainThread } from './main-thread-guard';

/**
 * Anchors place fields by what the document says instead of by measured coordinates (issue 21,
 * item 4). Two kinds, one shape (a box in percent of the displayed page, origin top-left, like a
 * field's x/y/width/height):
 * - a placeholder written in HTML content, `{{signature:employee}}`: rendered as blank space of
 *   the same length (it never shows in the PDF), and its box recorded by the renderer;
 * - any text of a PDF (uploaded or rendered), e.g. "(인)": found in the page's text layer with
 *   PDFium, which reports each character's box.
 */

/** `{{type:name}}`: a field type, a colon, and a name without spaces or braces (at most 60). */
export const FIELD_PLACEHOLDER = /\{\{([a-z_]{1,20}):([^\s{}]{1,60})\}\}/g;

/** A found anchor: its page (1-based) and box in percent of the displayed page, origin top-left. */
export interface AnchorBox {
  page: number;
  x: number;
  y: number;
  width: number;
  height: number;
}

/** A placeholder of rendered HTML and where it went. */
export interface PlaceholderBox extends AnchorBox {
  text: string;
}

const LINK_PREFIX = 'dojang-anchor:';
/** No-break spaces keep the placeholder's room on one line and print nothing. */
const BLANK = '\u00a0';

type Inline = string | ({ text: string } & Record<string, unknown>);

/**
 * The body with every placeholder replaced by blank room of its own length, carrying a link
 * annotation whose rectangle the layout fills in (pdfmake writes an inline's `link` as a link
 * annotation over exactly the inline's box); `extractPlaceholderBoxes` reads and removes them.
 * Content without placeholders comes back as the same objects (its PDF stays byte for byte the same).
 */
export function markPlaceholders(content: Content[]): { content: Content[]; placeholders: string[] } {
  const placeholders: string[] = [];
  const splitInline = (inline: Inline): Inline[] | null => {
    const text = typeof inline === 'string' ? inline : inline.text;
    if (typeof text !== 'string' || !text.includes('{{')) return null;
    const props = typeof inline === 'string' ? {} : inline;
    const out: Inline[] = [];
    let last = 0;
    for (const m of text.matchAll(FIELD_PLACEHOLDER)) {
      if (m.index > last) out.push({ ...props, text: text.slice(last, m.index) });
      // pdfmake cuts a line's leading and trailing white space (a no-break space is white space to
      // it), and a cut leading run moves its link box left by the run's width: a placeholder that
      // starts a line (a checkbox at the start of a paragraph) landed in the margin (issue 30).
      out.push({ ...props, text: BLANK.repeat(m[0].length), link: `${LINK_PREFIX}${placeholders.length}`, preserveLeadingSpaces: true, preserveTrailingSpaces: true });
      placeholders.push(m[0]);
      last = m.index + m[0].length;
    }
    if (out.length === 0) return null;
    if (last < text.length) out.push({ ...props, text: text.slice(last) });
    return out;
  };
  const walk = (node: Content): Content => {
    if (typeof node === 'string') {
      const parts = splitInline(node);
      return parts ? ({ text: parts } as Content) : node;
    }
    if (typeof node !== 'object' || node === null) return node;
    if (Array.isArray(node)) return node.map(walk) as unknown as Content;
    const n = node as unknown as Record<string, unknown>;
    let out: Record<string, unknown> | null = null;
    const set = (key: string, value: unknown) => {
      out ??= { ...n };
      out[key] = value;
    };
    if ('text' in n) {
      const inlines = Array.isArray(n.text) ? (n.text as Inline[]) : [n.text as Inline];
      let changed = false;
      const flat: Inline[] = [];
      for (const inline of inlines) {
        // Nested inline groups ({ text: [...] }) are walked like paragraphs.
        if (typeof inline === 'object' && inline !== null && Array.isArray((inline as { text: unknown }).text)) {
          const inner = walk(inline as unknown as Content);
          if (inner !== (inline as unknown)) changed = true;
          flat.push(inner as unknown as Inline);
          continue;
        }
        const parts = splitInline(inline);
        if (parts) {
          changed = true;
          flat.push(...parts);
        } else flat.push(inline);
      }
      if (changed) set('text', flat);
    }
    for (const key of ['stack', 'ul', 'ol', 'columns']) {
      if (Array.isArray(n[key])) {
        const before = n[key] as Content[];
        const after = before.map(walk);
        if (after.some((x, i) => x !== before[i])) set(key, after);
      }
    }
    const table = n.table as { body?: Content[][] } | undefined;
    if (table && Array.isArray(table.body)) {
      const body = table.body.map((row) => row.map(walk));
      if (body.some((row, r) => row.some((cell, c) => cell !== table.body?.[r][c]))) set('table', { ...table, body });
    }
    return (out ?? node) as unknown as Content;
  };
  const marked = content.map(walk);
  return { content: placeholders.length ? marked : content, placeholders };
}

const round = (n: number) => Math.round(n * 1000) / 1000;

/**
 * Reads the boxes of the placeholders `markPlaceholders` made out of the rendered PDF and removes
 * their link annotations, so the delivered PDF carries no trace of them. pdfmake lays out A4
 * pages without rotation, so the annotation rectangle (user space, origin bottom-left) converts to
 * percent of the page directly. A placeholder split over two lines keeps its first box.
 */
export async function extractPlaceholderBoxes(pdf: Uint8Array, placeholders: string[]): Promise<{ pdf: Uint8Array; anchors: PlaceholderBox[] }> {
  assertOffMainThread('extractPlaceholderBoxes');
  const doc = await PDFDocument.load(pdf, { updateMetadata: false });
  const found = new Map<number, PlaceholderBox>();
  doc.getPages().forEach((page, index) => {
    const annots = page.node.lookup(PDFName.of('Annots'));
    if (!(annots instanceof PDFArray)) return;
    const { x: bx, y: by, width: bw, height: bh } = page.getCropBox();
    const keep: unknown[] = [];
    for (let i = 0; i < annots.size(); i++) {
      const ref = annots.get(i);
      const annot = annots.lookup(i);
      const action = annot instanceof PDFDict ? annot.lookup(PDFName.of('A')) : undefined;
      const uri = action instanceof PDFDict ? action.lookup(PDFName.of('URI')) : undefined;
      const target = uri instanceof PDFString || uri instanceof PDFHexString ? uri.decodeText() : '';
      if (!target.startsWith(LINK_PREFIX)) {
        keep.push(ref);
        continue;
      }
      const n = Number(target.slice(LINK_PREFIX.length));
      const rect = (annot as PDFDict).lookup(PDFName.of('Rect'));
      if (!found.has(n) && rect instanceof PDFArray && rect.size() === 4) {
        const [x1, y1, x2, y2] = [0, 1, 2, 3].map((k) => (rect.lookup(k) as PDFNumber).asNumber());
        const left = Math.min(x1, x2) - bx;
        const top = by + bh - Math.max(y1, y2);
        found.set(n, {
          text: placeholders[n] ?? '',
          page: index + 1,
          x: round((left / bw) * 100),
          y: round((top / bh) * 100),
          width: round((Math.abs(x2 - x1) / bw) * 100),
          height: round((Math.abs(y2 - y1) / bh) * 100),
        });
      }
      if (ref instanceof PDFRef) {
        if (action instanceof PDFDict) {
          const actionRef = (annot as PDFDict).get(PDFName.of('A'));
          if (actionRef instanceof PDFRef) doc.context.delete(actionRef);
        }
        doc.context.delete(ref);
      }
    }
    if (keep.length) page.node.set(PDFName.of('Annots'), doc.context.obj(keep as PDFRef[]));
    else page.node.delete(PDFName.of('Annots'));
  });
  const anchors = placeholders.map((text, n) => found.get(n)).filter((a): a is PlaceholderBox => a !== undefined);
  return { pdf: await doc.save({ useObjectStreams: false }), anchors };
}

let library: Promise<PDFiumLibrary> | null = null;

/** PDFium (WebAssembly) once per worker, from the wasm file the package ships (never downloaded). */
function pdfium(): Promise<PDFiumLibrary> {
  library ??= PDFiumLibrary.init({ wasmBinary: new Uint8Array(readFileSync(path.join(path.dirname(require.resolve('@hyzyla/pdfium')), 'pdfium.wasm'))).buffer });
  return library;
}

/** What to look for: the text (white space is ignored on both sides) and which occurrence (1-based, in reading order over the pages). */
export interface TextAnchorQuery {
  text: string;
  occurrence: number;
}

/** The occurrence's box when found, and how many occurrences there are (for the error message). */
export interface TextAnchorResult {
  box: AnchorBox | null;
  count: number;
}

/** The parts of PDFium's C API this needs (exported by the wasm build the package ships). */
interface PdfiumText {
  _FPDF_LoadPage(doc: number, index: number): number;
  _FPDF_ClosePage(page: number): void;
  _FPDFText_LoadPage(page: number): number;
  _FPDFText_ClosePage(textPage: number): void;
  _FPDFText_CountChars(textPage: number): number;
  _FPDFText_GetUnicode(textPage: number, index: number): number;
  _FPDFText_GetCharBox(textPage: number, index: number, left: number, right: number, bottom: number, top: number): number;
  _FPDFText_GetCharOrigin(textPage: number, index: number, x: number, y: number): number;
  _FPDF_PageToDevice(page: number, sx: number, sy: number, w: number, h: number, rotate: number, px: number, py: number, dx: number, dy: number): number;
  wasmExports: { malloc(size: number): number; free(ptr: number): void };
  HEAPF64: Float64Array;
  HEAP32: Int32Array;
}

/** Device units per page side: percent with four decimals. */
const DEVICE = 1_000_000;
const WHITE = /\s/u;

/**
 * Finds each query's occurrence in the text layer of `pdf`. The box is the union of the matched
 * characters' boxes, mapped through the page's display transform (CropBox, /Rotate) by PDFium
 * itself, so it is in the same frame as the page images and the stamper.
 */
export async function findTextAnchors(pdf: Uint8Array, queries: TextAnchorQuery[]): Promise<TextAnchorResult[]> {
  assertOffMainThread('findTextAnchors');
  const results: TextAnchorResult[] = queries.map(() => ({ box: null, count: 0 }));
  if (queries.length === 0) return results;
  const needles = queries.map((q) => Array.from(q.text).filter((c) => !WHITE.test(c)).join(''));
  const doc = await (await pdfium()).loadDocument(new Uint8Array(pdf));
  const internals = doc as unknown as { module: PdfiumText; documentIdx: number };
  const m = internals.module;
  const scratch = m.wasmExports.malloc(8 * 4);
  try {
    const pages = doc.getPageCount();
    for (let p = 0; p < pages; p++) {
      const page = m._FPDF_LoadPage(internals.documentIdx, p);
      if (!page) continue;
      const textPage = m._FPDFText_LoadPage(page);
      try {
        if (!textPage) continue;
        const count = m._FPDFText_CountChars(textPage);
        // The page's characters without white space, and where each came from.
        let text = '';
        const from: number[] = [];
        for (let i = 0; i < count; i++) {
          const code = m._FPDFText_GetUnicode(textPage, i);
          const ch = code > 0 && code <= 0x10ffff && !(code >= 0xd800 && code <= 0xdfff) ? String.fromCodePoint(code) : '';
          if (!ch || WHITE.test(ch)) continue;
          for (let k = 0; k < ch.length; k++) from.push(i);
          text += ch;
        }
        needles.forEach((needle, q) => {
          if (!needle) return;
          for (let at = text.indexOf(needle); at >= 0; at = text.indexOf(needle, at + needle.length)) {
            const result = results[q];
            result.count++;
            if (result.count !== queries[q].occurrence) continue;
            result.box = boxOf(m, page, textPage, from.slice(at, at + needle.length), p + 1, scratch);
          }
        });
      } finally {
        if (textPage) m._FPDFText_ClosePage(textPage);
        m._FPDF_ClosePage(page);
      }
    }
  } finally {
    m.wasmExports.free(scratch);
    doc.destroy();
  }
  return results;
}

function boxOf(m: PdfiumText, page: number, textPage: number, chars: number[], pageNumber: number, scratch: number): AnchorBox | null {
  let [left, top, right, bottom] = [Infinity, Infinity, -Infinity, -Infinity];
  const f64 = scratch >> 3;
  for (const i of new Set(chars)) {
    if (!m._FPDFText_GetCharBox(textPage, i, scratch, scratch + 8, scratch + 16, scratch + 24)) continue;
    const [l, r, b, t] = [m.HEAPF64[f64], m.HEAPF64[f64 + 1], m.HEAPF64[f64 + 2], m.HEAPF64[f64 + 3]];
    // Both corners through the display transform: under /Rotate a page's left may become its top.
    for (const [px, py] of [
      [l, b],
      [r, t],
    ]) {
      m._FPDF_PageToDevice(page, 0, 0, DEVICE, DEVICE, 0, px, py, scratch, scratch + 4);
      const dx = m.HEAP32[scratch >> 2];
      const dy = m.HEAP32[(scratch >> 2) + 1];
      left = Math.min(left, dx);
      right = Math.max(right, dx);
      top = Math.min(top, dy);
      bottom = Math.max(bottom, dy);
    }
  }
  if (!Number.isFinite(left)) return null;
  const pct = (d: number) => Math.round((d / DEVICE) * 100 * 1000) / 1000;
  return { page: pageNumber, x: pct(left), y: pct(top), width: pct(right - left), height: pct(bottom - top) };
}

/** Baselines closer than this (percent of the page's height) are one line: the characters of a line share their origin's y, give or take rounding. */
const SAME_LINE = 0.3;
/** A page with more lines than this is not ordinary text (a table of tiny print, a scan's noise): its first ones are kept. */
const MAX_LINES_PER_PAGE = 300;

/**
 * The text lines of each page of `pdf` (issue 34: fields snap to the line under them): the y of
 * each line's baseline in percent of the displayed page from its top, sorted, one entry per page
 * (empty for a page without a text layer, such as a scan). A character's origin is the point on
 * its baseline PDFium reports, mapped through the page's display transform like the anchors'
 * boxes, so the lines are in the frame of the page images and the fields.
 */
export async function findTextLines(pdf: Uint8Array): Promise<number[][]> {
  assertOffMainThread('findTextLines');
  const doc = await (await pdfium()).loadDocument(new Uint8Array(pdf));
  const internals = doc as unknown as { module: PdfiumText; documentIdx: number };
  const m = internals.module;
  const scratch = m.wasmExports.malloc(8 * 4);
  const f64 = scratch >> 3;
  const out: number[][] = [];
  try {
    const pages = doc.getPageCount();
    for (let p = 0; p < pages; p++) {
      const ys: number[] = [];
      const page = m._FPDF_LoadPage(internals.documentIdx, p);
      if (!page) {
        out.push([]);
        continue;
      }
      const textPage = m._FPDFText_LoadPage(page);
      try {
        const count = textPage ? m._FPDFText_CountChars(textPage) : 0;
        for (let i = 0; i < count; i++) {
          const code = m._FPDFText_GetUnicode(textPage, i);
          // White space and control characters sit on no line a reader sees.
          if (code <= 0x20 || WHITE.test(String.fromCodePoint(Math.min(code, 0x10ffff)))) continue;
          if (!m._FPDFText_GetCharOrigin(textPage, i, scratch, scratch + 8)) continue;
          const [ox, oy] = [m.HEAPF64[f64], m.HEAPF64[f64 + 1]];
          m._FPDF_PageToDevice(page, 0, 0, DEVICE, DEVICE, 0, ox, oy, scratch + 16, scratch + 20);
          const [dx, dy] = [m.HEAP32[(scratch + 16) >> 2], m.HEAP32[(scratch + 20) >> 2]];
          // A baseline that runs down the displayed page (a page turned by /Rotate) is no line a
          // field stands on: its characters' y's would be as many "lines".
          m._FPDF_PageToDevice(page, 0, 0, DEVICE, DEVICE, 0, ox + 10, oy, scratch + 16, scratch + 24);
          if (Math.abs(m.HEAP32[(scratch + 24) >> 2] - dy) > Math.abs(m.HEAP32[(scratch + 16) >> 2] - dx)) continue;
          ys.push((dy / DEVICE) * 100);
        }
      } finally {
        if (textPage) m._FPDFText_ClosePage(textPage);
        m._FPDF_ClosePage(page);
      }
      ys.sort((a, b) => a - b);
      // One line per run of baselines each within SAME_LINE of the previous; the run's middle value.
      const lines: number[] = [];
      let run: number[] = [];
      const flush = () => {
        if (run.length) lines.push(Math.round(run[Math.floor(run.length / 2)] * 100) / 100);
        run = [];
      };
      for (const y of ys) {
        if (y < 0 || y > 100) continue;
        if (run.length && y - run[run.length - 1] > SAME_LINE) flush();
        run.push(y);
      }
      flush();
      out.push(lines.slice(0, MAX_LINES_PER_PAGE));
    }
  } finally {
    m.wasmExports.free(scratch);
    doc.destroy();
  }
  return out;
}
