import { buildDocDefinition } from './render-document';
import { renderDocDefinition } from './pdfmake-render';

const HTML_ENTITIES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };
const escapeHtml = (s: string) => s.replace(/[&<>"']/g, (c) => HTML_ENTITIES[c]);

/** A4 in points, as the renderer lays it out. */
const A4_WIDTH = 595.28;
const A4_HEIGHT = 841.89;
/** The recipient's signature box: a third of the line, 8% of the page high. */
export const SIGNATURE_BOX = { width: 35, height: 8 };
const BOX_HEIGHT_PT = (SIGNATURE_BOX.height / 100) * A4_HEIGHT;

interface Position {
  pageNumber: number;
  top: number;
  left: number;
}

export interface SignatureBlockInput {
  title: string;
  content: string;
  format: 'html' | 'text';
  signer_name: string;
}

export interface SignatureBlock {
  /** The body with the signature line and the room for the signature appended. */
  content: string;
  field: { page: number; x: number; y: number; width: number; height: number };
}

/** Where the next node after `content` would start, by laying the document out exactly as send renders it. */
async function endOf(title: string, content: string, format: 'html' | 'text'): Promise<Position> {
  const def = buildDocDefinition({ title, content, format }) as unknown as {
    content: unknown[];
    pageBreakBefore?: (node: { id?: string; startPosition?: Position }) => boolean;
  };
  let found: Position | null = null;
  def.content.push({ text: ' ', id: 'dojang-end-of-body' });
  def.pageBreakBefore = (node) => {
    if (node.id === 'dojang-end-of-body' && node.startPosition) found = { ...node.startPosition };
    return false;
  };
  await renderDocDefinition(def as never);
  if (!found) throw new Error('could not locate the end of the document body');
  return found;
}

const round = (n: number) => Math.round(n * 100) / 100;

/**
 * Runs in the PDF pool only (the PLACE_SIGNATURE job): every try lays the whole document out twice,
 * which for a long body took seconds to minutes on the API's event loop (issue 24, item 15).
 *
 * Appends the recipient's signature line to the end of the body, followed by blank lines that
 * reserve room for the signature, and returns the field that covers that room. When the room
 * would run over the page end, blank lines before the signature line push it to the next page, so
 * the box never crosses a page boundary.
 */
export async function appendSignatureBlock({ title, content, format, signer_name: signerName }: SignatureBlockInput): Promise<SignatureBlock> {
  // The renderer drops empty paragraphs; a zero-width space keeps a blank line.
  const blank = format === 'html' ? '<p>\u200b</p>' : '\u200b\n';
  const label = format === 'html' ? `<p><strong>서명 / Signature</strong>: ${escapeHtml(signerName)}</p>` : `\n\n서명 / Signature: ${signerName}\n`;
  const room = blank.repeat(format === 'html' ? 5 : 6);
  for (let pad = 0; pad <= 40; pad++) {
    const head = content + blank.repeat(pad) + label;
    const start = await endOf(title, head, format);
    const full = head + room;
    const end = await endOf(title, full, format);
    if (end.pageNumber === start.pageNumber && end.top - start.top >= BOX_HEIGHT_PT) {
      return {
        content: full,
        field: {
          page: start.pageNumber,
          x: round((start.left / A4_WIDTH) * 100),
          y: round((start.top / A4_HEIGHT) * 100),
          width: SIGNATURE_BOX.width,
          height: SIGNATURE_BOX.height,
        },
      };
    }
  }
  throw new Error('could not place the signature box');
}
