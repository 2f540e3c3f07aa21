import type { Alignment, Content, ContentImage, ContentText, Margins, TableCell } from 'pdfmake/interfaces';
import { sanitizeImage, UnsafeImageError } from './image-type';
import { hasInvisible, stripInvisible } from './printable-text';
import { normalizeDataImageUrl } from './sanitize-content-html';

/**
 * Converts *sanitized* contract HTML (see sanitize-content-html.ts) into
 * pdfmake content. It relies on the sanitizer's output shape — lower-case
 * tags, double-quoted attributes, escaped text, bounded nesting — so a small
 * tokenizer is enough and we need no DOM. Never feed it raw user HTML.
 */

type HtmlNode = HtmlElement | HtmlText;
interface HtmlElement {
  kind: 'element';
  tag: string;
  attrs: Record<string, string>;
  children: HtmlNode[];
}
interface HtmlText {
  kind: 'text';
  text: string;
}

const VOID_TAGS = new Set(['br', 'hr', 'img']);
const INLINE_TAGS = new Set(['b', 'strong', 'i', 'em', 'u', 's', 'span']);

const NAMED_ENTITIES: Record<string, string> = {
  amp: '&', lt: '<', gt: '>', quot: '"', apos: "'", nbsp: '\u00a0',
};

function decodeEntities(text: string): string {
  return text.replace(/&(#x[0-9a-f]+|#[0-9]+|[a-z]+);/gi, (whole, body: string) => {
    if (body[0] === '#') {
      const code = body[1] === 'x' || body[1] === 'X' ? parseInt(body.slice(2), 16) : parseInt(body.slice(1), 10);
      // Surrogate code points are not characters: `&#xD800;` must not make a lone surrogate.
      const surrogate = code >= 0xd800 && code <= 0xdfff;
      return Number.isFinite(code) && code > 0 && code <= 0x10ffff && !surrogate ? String.fromCodePoint(code) : whole;
    }
    // Own keys only: `&constructor;` must stay text, not become Object's constructor.
    const name = body.toLowerCase();
    return Object.hasOwn(NAMED_ENTITIES, name) ? NAMED_ENTITIES[name] : whole;
  });
}

function parseAttributes(source: string): Record<string, string> {
  const attrs: Record<string, string> = {};
  const re = /([a-zA-Z_:][-a-zA-Z0-9_:.]*)(?:\s*=\s*"([^"]*)")?/g;
  for (let m = re.exec(source); m; m = re.exec(source)) {
    attrs[m[1].toLowerCase()] = decodeEntities(m[2] ?? '');
  }
  return attrs;
}

export function parseSanitizedHtml(html: string): HtmlNode[] {
  const root: HtmlElement = { kind: 'element', tag: '#root', attrs: {}, children: [] };
  const stack: HtmlElement[] = [root];
  const re = /<(\/?)([a-zA-Z][a-zA-Z0-9]*)((?:\s+[^>]*?)?)\s*(\/?)>|([^<]+)|</g;
  for (let m = re.exec(html); m; m = re.exec(html)) {
    const top = stack[stack.length - 1];
    if (m[5] !== undefined || m[2] === undefined) {
      top.children.push({ kind: 'text', text: decodeEntities(m[5] ?? '<') });
      continue;
    }
    const tag = m[2].toLowerCase();
    if (m[1] === '/') {
      // Tolerate stray closers: pop only if the tag is actually open.
      const at = stack.map((e) => e.tag).lastIndexOf(tag);
      if (at > 0) stack.length = at;
      continue;
    }
    const element: HtmlElement = { kind: 'element', tag, attrs: parseAttributes(m[3] ?? ''), children: [] };
    top.children.push(element);
    if (!VOID_TAGS.has(tag) && m[4] !== '/') stack.push(element);
  }
  return root.children;
}

interface InlineStyle {
  bold?: boolean;
  italics?: boolean;
  underline?: boolean;
  strike?: boolean;
}

interface Run {
  text: string;
  style: InlineStyle;
  /** A <br>; kept apart from text so source newlines are never mistaken for one. */
  lineBreak?: boolean;
}

export interface ConvertOptions {
  /** Width available to content, in points; images are scaled down to it. */
  contentWidth: number;
}

const HEADING_STYLES: Record<string, string> = {
  h1: 'h1', h2: 'h2', h3: 'h3', h4: 'h4', h5: 'h5', h6: 'h6',
};

const PX_TO_PT = 0.75;

function textAlign(attrs: Record<string, string>): Alignment | undefined {
  const m = /text-align\s*:\s*(left|right|center|justify)/i.exec(attrs.style ?? '');
  return m ? (m[1].toLowerCase() as Alignment) : undefined;
}

function positiveInt(value: string | undefined, fallback: number, max: number): number {
  const n = value === undefined ? NaN : parseInt(value, 10);
  return Number.isFinite(n) && n >= 1 ? Math.min(n, max) : fallback;
}

function runToInline(run: Run): ContentText | string {
  const { bold, italics, underline, strike } = run.style;
  const decoration: Array<'underline' | 'lineThrough'> = [];
  if (underline) decoration.push('underline');
  if (strike) decoration.push('lineThrough');
  if (!bold && !italics && decoration.length === 0) return run.text;
  const node: ContentText = { text: run.text };
  if (bold) node.bold = true;
  if (italics) node.italics = true;
  // pdfmake accepts an array of decorations although its typings name one.
  if (decoration.length) (node as { decoration?: unknown }).decoration = decoration.length === 1 ? decoration[0] : decoration;
  return node;
}

/**
 * Applies HTML's whitespace rules to a paragraph's runs: collapse runs of
 * white space, drop it at line starts and ends. Returns null for paragraphs
 * with nothing visible.
 */
function normalizeRuns(runs: Run[]): Run[] | null {
  const out: Run[] = [];
  let atLineStart = true;
  // A paragraph holding only a zero-width space is how editors (and our own
  // signature block) keep an empty line; browsers give it a line's height.
  let invisibleOnly = false;
  for (const source of runs) {
    let run = source;
    if (!run.lineBreak && hasInvisible(run.text)) {
      invisibleOnly = true;
      run = { ...run, text: stripInvisible(run.text) };
    }
    if (run.lineBreak) {
      const last = out[out.length - 1];
      if (last && !last.lineBreak) last.text = last.text.replace(/ +$/, '');
      out.push({ text: '\n', style: run.style, lineBreak: true });
      atLineStart = true;
      continue;
    }
    let text = run.text.replace(/[ \t\n\r\f]+/g, ' ');
    if (atLineStart || (out.length && / $/.test(out[out.length - 1].text))) text = text.replace(/^ /, '');
    if (!text) continue;
    out.push({ text, style: run.style });
    atLineStart = false;
  }
  const last = out[out.length - 1];
  if (last && !last.lineBreak) last.text = last.text.replace(/ +$/, '');
  const visible = out.filter((r) => r.lineBreak || r.text !== '');
  if (!visible.some((r) => !r.lineBreak && r.text.trim() !== '')) {
    // <p><br></p> is how editors write an empty line; keep its height.
    return invisibleOnly || visible.some((r) => r.lineBreak) ? [{ text: '\u00a0', style: {} }] : null;
  }
  // A trailing <br> adds no line in HTML.
  if (visible[visible.length - 1].lineBreak) visible.pop();
  return visible;
}

class BlockBuilder {
  readonly blocks: Content[] = [];
  private runs: Run[] = [];

  constructor(private readonly options: ConvertOptions) {}

  addRun(text: string, style: InlineStyle, lineBreak = false): void {
    this.runs.push({ text, style, lineBreak });
  }

  flush(): void {
    const runs = normalizeRuns(this.runs);
    this.runs = [];
    if (!runs) return;
    const inlines = runs.map(runToInline);
    const only = inlines.length === 1 ? inlines[0] : undefined;
    this.blocks.push(only === undefined ? { text: inlines } : typeof only === 'string' ? { text: only } : only);
  }

  addBlock(block: Content | null): void {
    this.flush();
    if (block) this.blocks.push(block);
  }

  finish(): Content[] {
    this.flush();
    return this.blocks;
  }

  get contentWidth(): number {
    return this.options.contentWidth;
  }
}

function walkChildren(nodes: HtmlNode[], style: InlineStyle, out: BlockBuilder): void {
  for (const node of nodes) walk(node, style, out);
}

function convertChildren(nodes: HtmlNode[], style: InlineStyle, options: ConvertOptions): Content[] {
  const builder = new BlockBuilder(options);
  walkChildren(nodes, style, builder);
  return builder.finish();
}

interface BlockProps {
  alignment?: Alignment;
  margin?: Margins;
  style?: string;
  color?: string;
}

/** Wraps converted children so block-level properties apply to all of them. */
function asBlock(children: Content[], props: BlockProps): Content | null {
  if (children.length === 0) return null;
  if (children.length === 1 && typeof children[0] === 'object' && 'text' in (children[0] as object)) {
    return { ...(children[0] as object), ...props } as Content;
  }
  return { stack: children, ...props };
}

function walk(node: HtmlNode, style: InlineStyle, out: BlockBuilder): void {
  if (node.kind === 'text') {
    out.addRun(node.text, style);
    return;
  }
  const { tag, attrs, children } = node;
  const options: ConvertOptions = { contentWidth: out.contentWidth };
  if (INLINE_TAGS.has(tag)) {
    const next = { ...style };
    if (tag === 'b' || tag === 'strong') next.bold = true;
    if (tag === 'i' || tag === 'em') next.italics = true;
    if (tag === 'u') next.underline = true;
    if (tag === 's') next.strike = true;
    walkChildren(children, next, out);
    return;
  }
  switch (tag) {
    case 'br':
      out.addRun('\n', style, true);
      return;
    case 'img':
      out.addBlock(convertImage(attrs, options));
      return;
    case 'hr':
      out.addBlock({
        canvas: [{ type: 'line', x1: 0, y1: 0, x2: options.contentWidth, y2: 0, lineWidth: 0.5, lineColor: '#888888' }],
        margin: [0, 6, 0, 6],
      });
      return;
    case 'p':
    case 'div':
      out.addBlock(asBlock(convertChildren(children, style, options), {
        ...(textAlign(attrs) ? { alignment: textAlign(attrs) } : {}),
        ...(tag === 'p' ? { margin: [0, 0, 0, 6] } : {}),
      }));
      return;
    case 'h1': case 'h2': case 'h3': case 'h4': case 'h5': case 'h6':
      out.addBlock(asBlock(convertChildren(children, style, options), {
        style: HEADING_STYLES[tag],
        ...(textAlign(attrs) ? { alignment: textAlign(attrs) } : {}),
      }));
      return;
    case 'blockquote':
      out.addBlock(asBlock(convertChildren(children, style, { contentWidth: options.contentWidth - 18 }), {
        margin: [18, 0, 0, 6],
        color: '#444444',
      }));
      return;
    case 'ul':
    case 'ol':
      out.addBlock(convertList(node, style, options));
      return;
    case 'table':
      out.addBlock(convertTable(node, style, options));
      return;
    default:
      // Structural leftovers (li/tr/td outside their parents): keep the text.
      out.addBlock(asBlock(convertChildren(children, style, options), {}));
  }
}

function convertImage(attrs: Record<string, string>, options: ConvertOptions): Content | null {
  const src = normalizeDataImageUrl(attrs.src);
  if (!src) return null;
  let safe: ReturnType<typeof sanitizeImage>;
  try {
    safe = sanitizeImage(Buffer.from(src.slice(src.indexOf(',') + 1), 'base64'));
  } catch (error) {
    // One broken picture must not make the whole contract unrenderable.
    if (error instanceof UnsafeImageError) return null;
    throw error;
  }
  const safeSrc = `data:image/${safe.type};base64,${safe.bytes.toString('base64')}`;
  // pdfmake supports maxWidth on images; its typings do not list it yet.
  const image: ContentImage & { maxWidth: number } = { image: safeSrc, maxWidth: options.contentWidth, margin: [0, 0, 0, 6] };
  const width = parseFloat(attrs.width ?? '');
  const height = parseFloat(attrs.height ?? '');
  if (Number.isFinite(width) && width > 0) image.width = Math.min(width * PX_TO_PT, options.contentWidth);
  else if (Number.isFinite(height) && height > 0) image.height = height * PX_TO_PT;
  return image;
}

function convertList(node: HtmlElement, style: InlineStyle, options: ConvertOptions): Content | null {
  const inner = { contentWidth: options.contentWidth - 16 };
  const items: Content[] = [];
  let loose: HtmlNode[] = [];
  const flushLoose = () => {
    const block = asBlock(convertChildren(loose, style, inner), {});
    if (block) items.push(block);
    loose = [];
  };
  for (const child of node.children) {
    if (child.kind === 'element' && child.tag === 'li') {
      flushLoose();
      const align = textAlign(child.attrs);
      items.push(asBlock(convertChildren(child.children, style, inner), align ? { alignment: align } : {}) ?? '');
    } else {
      loose.push(child);
    }
  }
  flushLoose();
  if (items.length === 0) return null;
  if (node.tag === 'ol') {
    const start = positiveInt(node.attrs.start, 1, 1_000_000);
    return { ol: items, ...(start !== 1 ? { start } : {}), margin: [0, 0, 0, 6] } as Content;
  }
  return { ul: items, margin: [0, 0, 0, 6] } as Content;
}

interface GridCell {
  node: HtmlElement;
  header: boolean;
}

function tableRows(table: HtmlElement): { rows: HtmlElement[]; headerRows: number } {
  const rows: HtmlElement[] = [];
  let headerRows = 0;
  let headerOpen = true;
  for (const child of table.children) {
    if (child.kind !== 'element') continue;
    if (child.tag === 'tr') {
      rows.push(child);
      headerOpen = false;
    } else if (child.tag === 'thead' || child.tag === 'tbody') {
      const sectionRows = child.children.filter((c): c is HtmlElement => c.kind === 'element' && c.tag === 'tr');
      rows.push(...sectionRows);
      // Repeating header rows on each page only makes sense for a leading thead.
      if (child.tag === 'thead' && headerOpen) headerRows += sectionRows.length;
      else headerOpen = false;
    }
  }
  return { rows, headerRows };
}

/**
 * Wider tables are unreadable on A4 anyway, and the cap keeps the grid (rows
 * × columns) proportional to the input, whatever colspan/rowspan claim.
 */
const MAX_COLUMNS = 40;

function convertTable(table: HtmlElement, style: InlineStyle, options: ConvertOptions): Content | null {
  const { rows, headerRows } = tableRows(table);
  if (rows.length === 0) return null;

  // Lay cells out on a grid first: pdfmake needs every covered position to be
  // present, and every row to have the same number of cells.
  const grid: Array<Array<GridCell | 'covered' | undefined>> = rows.map(() => []);
  const spans = new Map<GridCell, { colSpan: number; rowSpan: number }>();
  rows.forEach((row, r) => {
    let c = 0;
    for (const cellNode of row.children) {
      if (cellNode.kind !== 'element' || (cellNode.tag !== 'td' && cellNode.tag !== 'th')) continue;
      while (grid[r][c] !== undefined) c++;
      if (c >= MAX_COLUMNS) break;
      const colSpan = Math.min(positiveInt(cellNode.attrs.colspan, 1, MAX_COLUMNS), MAX_COLUMNS - c);
      const rowSpan = positiveInt(cellNode.attrs.rowspan, 1, rows.length - r);
      const cell: GridCell = { node: cellNode, header: cellNode.tag === 'th' };
      spans.set(cell, { colSpan, rowSpan });
      for (let dr = 0; dr < rowSpan; dr++) {
        for (let dc = 0; dc < colSpan; dc++) grid[r + dr][c + dc] = dr === 0 && dc === 0 ? cell : 'covered';
      }
      c += colSpan;
    }
  });
  const columns = Math.max(1, ...grid.map((row) => row.length));
  const cellWidth = options.contentWidth / columns - 8;

  const body: TableCell[][] = grid.map((row) => {
    const out: TableCell[] = [];
    for (let c = 0; c < columns; c++) {
      const slot = row[c];
      if (slot === undefined || slot === 'covered') {
        out.push(slot === 'covered' ? {} : { text: '' });
        continue;
      }
      const span = spans.get(slot) ?? { colSpan: 1, rowSpan: 1 };
      const cellStyle = slot.header ? { ...style, bold: true } : style;
      const content = convertChildren(slot.node.children, cellStyle, { contentWidth: cellWidth * span.colSpan });
      const align = textAlign(slot.node.attrs);
      const cell: Record<string, unknown> =
        content.length === 1 && typeof content[0] === 'object' ? { ...(content[0] as object) } : { stack: content };
      if (align) cell.alignment = align;
      if (slot.header) cell.fillColor = '#f0f0f0';
      if (span.colSpan > 1) cell.colSpan = span.colSpan;
      if (span.rowSpan > 1) cell.rowSpan = span.rowSpan;
      out.push(cell as TableCell);
    }
    return out;
  });

  return {
    table: { headerRows: Math.min(headerRows, rows.length), widths: Array(columns).fill('*'), body },
    layout: {
      hLineWidth: () => 0.5,
      vLineWidth: () => 0.5,
      hLineColor: () => '#999999',
      vLineColor: () => '#999999',
    },
    margin: [0, 2, 0, 8],
  } as Content;
}

/** Sanitized HTML → pdfmake content blocks. */
export function htmlToPdfmake(sanitizedHtml: string, options: ConvertOptions): Content[] {
  return convertChildren(parseSanitizedHtml(sanitizedHtml), {}, options);
}

/**
 * Plain-text bodies: a blank line separates paragraphs, every further blank
 * line is kept as vertical space (people space out signature areas that way),
 * single newlines stay line breaks, and leading spaces survive so indented
 * clauses keep their look.
 */
export function textToPdfmake(text: string): Content[] {
  const lines = stripInvisible(text).replace(/\r\n?/g, '\n').replace(/\t/g, '    ').split('\n');
  const blocks: Content[] = [];
  let paragraph: string[] = [];
  const flush = () => {
    blocks.push({ text: paragraph.join('\n'), preserveLeadingSpaces: true, margin: [0, 0, 0, 6] });
    paragraph = [];
  };
  for (const line of lines) {
    if (line.trim() !== '') paragraph.push(line.replace(/\s+$/, ''));
    else if (paragraph.length) flush(); // the blank line that ends a paragraph
    else blocks.push({ text: '\u00a0' }); // any further blank line is space the author wanted
  }
  if (paragraph.length) flush();
  return blocks;
}
