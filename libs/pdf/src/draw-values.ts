import { EventEmitter } from 'node:events';
import { createRequire } from 'node:module';
import { degrees, PDFDocument, PDFFont, PDFName, PDFNull, PDFPage, PDFRef, rgb } from 'pdf-lib';
import type { Font, Fontkit } from 'pdf-lib/cjs/types/fontkit';
import { cacheParsedKoreanFonts, koreanFontFiles } from './fonts';
import { normalizeRotation, visibleBox } from './inspect-pdf';
import { displaySize, displayToUserSpace } from './stamp-pdf';

/**
 * A field value to draw into the final PDF, in the same coordinates as PdfStamp: percentages of
 * the page as displayed (after /Rotate), origin top-left.
 */
export interface PdfValue {
  page: number;
  x: number;
  y: number;
  width: number;
  height: number;
  /** text: `text` set in the Korean font; checkbox: a box, ticked when checked; radio: a circle, filled when chosen. */
  kind: 'text' | 'checkbox' | 'radio';
  text?: string;
  checked?: boolean;
  /** Points; null: the largest size up to 12 pt at which the text fits its box. */
  font_size: number | null;
  /** Wrap at the box's width (and at line breaks); otherwise one line. */
  multiline: boolean;
  /** The field's label: how the annex names a value it holds. */
  label?: string | null;
  /** An attachment field's file: listed on the annex by name and hash, never squeezed into its box. */
  attachment?: { filename: string; sha256: string; byte_size: number } | null;
}

/** The annex's title, as the page writes it and a reader searches for it. */
export const ANNEX_TITLE = '입력값 부록';

/**
 * No value is drawn smaller (issue 30: an e-mail, a file's name and hash printed at 2–3 pt). A
 * value that does not fit its box at this size wraps and the box grows downward (fitText).
 */
export const MIN_VALUE_FONT_SIZE = 7;
const DEFAULT_MAX_FONT_SIZE = 12;
const PADDING = 1.5;
const LINE_HEIGHT = 1.25;
const INK = rgb(0.05, 0.05, 0.15);

type FontkitCreate = (buffer: Uint8Array, postscriptName?: string) => Record<string | symbol, unknown>;

/**
 * pdf-lib embeds custom fonts through a fontkit it is handed. The fontkit pdfmake's pdfkit loads
 * (2.x, whose parsed Noto Sans KR fonts.ts keeps per worker) encodes a subset with `encode()`,
 * where pdf-lib expects the 1.x `encodeStream()`: this adapter gives its subsets that method, so
 * only the glyphs a value uses are embedded (a few KB, not the 6 MB font) and the font is parsed
 * once per worker, shared with pdfmake.
 */
function pdfLibFontkit(): Fontkit {
  cacheParsedKoreanFonts();
  const fromPdfmake = createRequire(require.resolve('pdfmake/package.json'));
  const fontkit = createRequire(fromPdfmake.resolve('pdfkit'))('fontkit') as { create: FontkitCreate };
  return {
    create: (buffer: Uint8Array, name?: string) => {
      const font = fontkit.create(buffer, name);
      // The proxy is the font pdf-lib gets: fontkit 2's Font with a 1.x-style subset encoder.
      return new Proxy(font, {
        get(target, key) {
          if (key === 'createSubset') {
            return () => {
              const subset = (target.createSubset as () => Record<string, unknown> & { encode(): Uint8Array }).call(target);
              subset.encodeStream = () => {
                const stream = new EventEmitter();
                setImmediate(() => {
                  try {
                    stream.emit('data', subset.encode());
                    stream.emit('end');
                  } catch (error) {
                    stream.emit('error', error);
                  }
                });
                return stream;
              };
              return subset;
            };
          }
          const value = target[key];
          return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(target) : value;
        },
      }) as unknown as Font;
    },
  };
}

interface Rect {
  left: number;
  top: number;
  width: number;
  height: number;
}

/** Greedy line breaking at spaces, and inside a word only when the word alone is too wide. */
export function wrapLines(text: string, maxWidth: number, widthOf: (s: string) => number): string[] {
  const lines: string[] = [];
  for (const paragraph of text.split(/\r?\n/)) {
    let line = '';
    for (const word of paragraph.split(/(?<=\s)/)) {
      if (widthOf(line + word) <= maxWidth) {
        line += word;
        continue;
      }
      if (line !== '') {
        lines.push(line.trimEnd());
        line = '';
      }
      if (widthOf(word) <= maxWidth) {
        line = word;
        continue;
      }
      // A word wider than the box (or Korean without spaces): break it between characters.
      for (const ch of Array.from(word)) {
        if (line !== '' && widthOf(line + ch) > maxWidth) {
          lines.push(line.trimEnd());
          line = '';
        }
        line += ch;
      }
    }
    lines.push(line.trimEnd());
  }
  return lines;
}

/**
 * The size and lines of a text in its box, and the box's height: the given size (at least
 * MIN_VALUE_FONT_SIZE), else the largest up to 12 pt at which it fits. What does not fit at
 * MIN_VALUE_FONT_SIZE wraps at the box's width (even a one-line field), and the box grows downward
 * to hold every line, at most to `maxHeight` (the page's bottom); lines past it are the caller's.
 */
export function fitText(
  text: string,
  box: { width: number; height: number },
  fontSize: number | null,
  multiline: boolean,
  widthAt: (s: string, size: number) => number,
  maxHeight = Infinity,
) {
  const innerW = Math.max(1, box.width - 2 * PADDING);
  const innerH = Math.max(1, box.height - 2 * PADDING);
  const wrapped = (size: number) => wrapLines(text, innerW, (s) => widthAt(s, size));
  const layout = (size: number) => (multiline ? wrapped(size) : [text.replace(/\s*\r?\n\s*/g, ' ')]);
  const fits = (lines: string[], size: number) => lines.length * size * LINE_HEIGHT <= innerH + 0.01 && lines.every((l) => widthAt(l, size) <= innerW + 0.01);
  const grown = (size: number) => {
    const lines = wrapped(size);
    const height = Math.min(Math.max(box.height, lines.length * size * LINE_HEIGHT + 2 * PADDING), Math.max(box.height, maxHeight));
    return { size, lines, height };
  };
  if (fontSize !== null) {
    const size = Math.max(MIN_VALUE_FONT_SIZE, fontSize);
    const lines = layout(size);
    return fits(lines, size) ? { size, lines, height: box.height } : grown(size);
  }
  let size = Math.max(MIN_VALUE_FONT_SIZE, Math.min(DEFAULT_MAX_FONT_SIZE, innerH / LINE_HEIGHT));
  for (;;) {
    const lines = layout(size);
    if (fits(lines, size)) return { size, lines, height: box.height };
    if (size <= MIN_VALUE_FONT_SIZE) return grown(MIN_VALUE_FONT_SIZE);
    size = Math.max(MIN_VALUE_FONT_SIZE, size - 0.5);
  }
}

function placement(page: PDFPage, v: PdfValue) {
  const box = visibleBox(page);
  const rotation = normalizeRotation(page.getRotation().angle);
  const view = displaySize(box, rotation);
  const rect: Rect = { left: (v.x / 100) * view.width, top: (v.y / 100) * view.height, width: (v.width / 100) * view.width, height: (v.height / 100) * view.height };
  const at = (x: number, y: number) => displayToUserSpace({ x, y }, box, rotation);
  return { rect, rotation, at, view };
}

/** What the box of a text value shows: its lines at `size`, the box's (grown) height. */
interface TextLayout {
  value: PdfValue;
  rect: Rect;
  size: number;
  lines: string[];
  /** The annex entry's number, when the value (or its file) is listed on the annex. */
  annex: number | null;
}

/** The reference a box carries to its annex entry: short, so a narrow box still shows it whole. */
const annexReference = (n: number) => `(${ANNEX_TITLE} ${n})`;

/**
 * Lays a text value out in its box. What fits, at 7 pt or more, wrapped and the box grown down to
 * the page's bottom, is drawn whole; what still does not fit keeps the lines that fit and ends on a
 * reference to the annex, which holds the value whole. An attachment's box names the file and the
 * annex entry; its hash is only on the annex (issue 30: a hash squeezed into a box printed at 2 pt).
 */
function layoutText(page: PDFPage, font: PDFFont, v: PdfValue, annexNumber: () => number): TextLayout {
  const { rect, view } = placement(page, v);
  const widthAt = (s: string, sz: number) => font.widthOfTextAtSize(s, sz);
  // An attachment's number is taken first: its box always names it, after the file's name.
  const fileNumber = v.attachment ? annexNumber() : null;
  const shown = v.attachment ? `${v.attachment.filename} ${annexReference(fileNumber as number)}` : (v.text ?? '');
  const fitted = fitText(shown, rect, v.font_size, v.multiline, widthAt, view.height - rect.top);
  const { size } = fitted;
  const room = Math.max(1, Math.floor((fitted.height - 2 * PADDING) / (size * LINE_HEIGHT) + 0.01));
  rect.height = fitted.height;
  if (fitted.lines.length <= room) return { value: v, rect, size, lines: fitted.lines, annex: fileNumber };
  const n = fileNumber ?? annexNumber();
  const reference = wrapLines(annexReference(n), Math.max(1, rect.width - 2 * PADDING), (s) => widthAt(s, size));
  // An attachment's reference ends the box on its own lines, after as much of the name as fits.
  const base = v.attachment ? fitText(v.attachment.filename, rect, size, true, widthAt, view.height - rect.top).lines : fitted.lines;
  const kept = base.slice(0, Math.max(0, room - reference.length));
  // Lines cut short say so: the reader is sent to the annex for the rest.
  if (kept.length > 0 && kept.length < base.length) kept[kept.length - 1] = `${kept[kept.length - 1]}…`;
  return { value: v, rect, size, lines: [...kept, ...reference], annex: n };
}

function drawText(page: PDFPage, font: PDFFont, { value: v, rect, size, lines }: TextLayout): void {
  const { rotation, at } = placement(page, v);
  const ascent = font.heightAtSize(size, { descender: false });
  const lineHeight = size * LINE_HEIGHT;
  // A single line sits in the middle of its box; several start at the top.
  const block = lines.length * lineHeight;
  const top = lines.length === 1 && block < rect.height ? rect.top + (rect.height - lineHeight) / 2 : rect.top + PADDING;
  lines.forEach((line, i) => {
    if (!line) return;
    const baseline = top + i * lineHeight + (lineHeight - size) / 2 + Math.min(ascent, size);
    const origin = at(rect.left + PADDING, baseline);
    page.drawText(line, { x: origin.x, y: origin.y, size, font, color: INK, rotate: degrees(rotation) });
  });
}

const ANNEX_PAGE: [number, number] = [595.28, 841.89];
const ANNEX_MARGIN = 56;
const ANNEX_TITLE_SIZE = 16;
const ANNEX_HEADING_SIZE = 10.5;
const ANNEX_BODY_SIZE = 10;

/**
 * The "입력값 부록" pages after the document's own: every value its box could not hold, whole, and
 * every attachment by name, size and SHA-256, each under its number, the field's label and the
 * page its box is on. Plain text in the embedded Korean font, so any reader (and pdftotext) reads it.
 */
function drawAnnex(doc: PDFDocument, font: PDFFont, entries: TextLayout[]): void {
  const [width, height] = ANNEX_PAGE;
  const inner = width - 2 * ANNEX_MARGIN;
  let page = doc.addPage(ANNEX_PAGE);
  let y = height - ANNEX_MARGIN;
  const line = (text: string, size: number, indent = 0) => {
    const lineHeight = size * 1.45;
    if (y - lineHeight < ANNEX_MARGIN) {
      page = doc.addPage(ANNEX_PAGE);
      y = height - ANNEX_MARGIN;
    }
    y -= lineHeight;
    if (text) page.drawText(text, { x: ANNEX_MARGIN + indent, y: y + (lineHeight - size) / 2, size, font, color: INK });
  };
  const paragraph = (text: string, size: number, indent = 0) => {
    for (const l of wrapLines(text, inner - indent, (s) => font.widthOfTextAtSize(s, size))) line(l, size, indent);
  };
  line(`${ANNEX_TITLE} (Annex: entered values)`, ANNEX_TITLE_SIZE);
  paragraph('본문의 칸에 다 들어가지 않은 입력값과 첨부 파일입니다. 각 칸에는 아래 번호가 적혀 있습니다.', ANNEX_BODY_SIZE);
  for (const e of entries) {
    line('', ANNEX_BODY_SIZE);
    paragraph(`${e.annex}. ${e.value.label?.trim() || '(이름 없는 칸)'} — ${e.value.page}쪽`, ANNEX_HEADING_SIZE);
    const file = e.value.attachment;
    if (file) {
      paragraph(`첨부 파일: ${file.filename}`, ANNEX_BODY_SIZE, 12);
      paragraph(`크기: ${file.byte_size.toLocaleString('en-US')} bytes`, ANNEX_BODY_SIZE, 12);
      // The hash alone on its line(s), so it is copied and compared as one token.
      paragraph(`SHA-256: ${file.sha256}`, ANNEX_BODY_SIZE, 12);
    } else {
      paragraph(e.value.text ?? '', ANNEX_BODY_SIZE, 12);
    }
  }
}

function drawMark(page: PDFPage, v: PdfValue): void {
  const { rect, at } = placement(page, v);
  const side = Math.min(rect.width, rect.height) * 0.8;
  const cx = rect.left + rect.width / 2;
  const cy = rect.top + rect.height / 2;
  const thickness = Math.max(0.5, side / 14);
  const line = (x1: number, y1: number, x2: number, y2: number, width = thickness) =>
    page.drawLine({ start: at(x1, y1), end: at(x2, y2), thickness: width, color: INK });
  if (v.kind === 'checkbox') {
    const [l, t, r, b] = [cx - side / 2, cy - side / 2, cx + side / 2, cy + side / 2];
    line(l, t, r, t);
    line(r, t, r, b);
    line(r, b, l, b);
    line(l, b, l, t);
    if (v.checked) {
      line(l + side * 0.2, cy, cx - side * 0.08, b - side * 0.2, thickness * 2);
      line(cx - side * 0.08, b - side * 0.2, r - side * 0.15, t + side * 0.2, thickness * 2);
    }
    return;
  }
  const center = at(cx, cy);
  page.drawCircle({ x: center.x, y: center.y, size: side / 2, borderWidth: thickness, borderColor: INK });
  if (v.checked) page.drawCircle({ x: center.x, y: center.y, size: side / 4, color: INK });
}

/**
 * Draws field values into the page content (never as form fields: nothing is left for a reader
 * to change). Values their boxes cannot hold, and attachments, are listed whole on annex pages
 * ("입력값 부록") added after the document's last page.
 */
export async function drawValues(doc: PDFDocument, values: PdfValue[]): Promise<void> {
  const pages = doc.getPages();
  values.forEach((v, i) => {
    if (!Number.isInteger(v.page) || v.page < 1 || v.page > pages.length) throw new RangeError(`values[${i}].page ${v.page} is outside 1..${pages.length}`);
  });
  const texts = values.filter((v) => v.kind === 'text' && (v.text || v.attachment));
  if (texts.length) {
    doc.registerFontkit(pdfLibFontkit());
    const regular = koreanFontFiles().get('NotoSansKR-Regular.ttf') as Buffer;
    const font = await doc.embedFont(regular, { subset: true });
    // Annex entries are numbered in reading order (page, then top to bottom, left to right).
    const reading = [...texts].sort((a, b) => a.page - b.page || a.y - b.y || a.x - b.x);
    let next = 0;
    const layouts = reading.map((v) => layoutText(pages[v.page - 1], font, v, () => ++next));
    for (const l of layouts) drawText(pages[l.value.page - 1], font, l);
    const annexed = layouts.filter((l) => l.annex !== null);
    if (annexed.length) drawAnnex(doc, font, annexed);
  }
  for (const v of values) if (v.kind !== 'text') drawMark(pages[v.page - 1], v);
}

/** Turns the original's own form fields, if any, into page content: a final PDF has no live field. */
export function flattenForm(doc: PDFDocument): void {
  if (!doc.catalog.has(PDFName.of('AcroForm'))) return;
  try {
    const form = doc.getForm();
    if (form.getFields().length > 0) form.flatten();
  } catch {
    // A form pdf-lib cannot read: its widgets stay as they are drawn, and the form goes below.
  }
  doc.catalog.delete(PDFName.of('AcroForm'));
  // Flattening deletes the fields' objects; written without object streams (as the signer writes
  // the final PDF) their numbers would leave holes in the xref table that poppler reports broken.
  const context = doc.context;
  for (let n = 1; n <= context.largestObjectNumber; n++) {
    const ref = PDFRef.of(n);
    if (!context.lookup(ref)) context.assign(ref, PDFNull);
  }
}
