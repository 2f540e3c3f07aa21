import { invalid } from '../shared/domain-error';

/**
 * Where a field goes, given by what the document says instead of measured coordinates (issue 21,
 * item 4): the `occurrence`-th appearance of `text` (a `{{type:name}}` placeholder of HTML content,
 * or any text of the PDF such as "(인)"), moved by the offset and sized by width/height. Offsets and
 * sizes are in percent of the page, like a field's coordinates; width/height default to the found
 * text's own box. The shell resolves it against the document's PDF when the fields are placed; the
 * field records both the anchor and the resolved page/x/y/width/height.
 */
export interface FieldAnchor {
  text: string;
  occurrence: number;
  offset_x: number;
  offset_y: number;
  width: number | null;
  height: number | null;
}

/** A found occurrence: its page and box in percent of the displayed page, origin top-left. */
export interface AnchorBox {
  page: number;
  x: number;
  y: number;
  width: number;
  height: number;
}

export const MAX_ANCHOR_TEXT_LENGTH = 200;
export const MAX_ANCHOR_OCCURRENCE = 1000;

/** `{{type:name}}`, whole: a placeholder of HTML content (rendered as blank room, never as text). */
export const FIELD_PLACEHOLDER_TEXT = /^\{\{[a-z_]{1,20}:[^\s{}]{1,60}\}\}$/;

export function isPlaceholderAnchor(text: string): boolean {
  return FIELD_PLACEHOLDER_TEXT.test(text);
}

const round = (n: number) => Math.round(n * 1000) / 1000;

/**
 * The field's box for an anchor found at `box`: its top-left corner plus the offset, sized by the
 * anchor's width/height or, absent, the found text's. Throws 400 naming `fields[i].anchor` when the
 * result leaves the page, so the integrator learns which anchor to adjust.
 */
export function placeAtAnchor(anchor: FieldAnchor, box: AnchorBox, at: string): AnchorBox {
  const placed = {
    page: box.page,
    x: round(box.x + anchor.offset_x),
    y: round(box.y + anchor.offset_y),
    width: round(anchor.width ?? Math.max(box.width, 1)),
    height: round(anchor.height ?? Math.max(box.height, 1)),
  };
  if (placed.x < 0 || placed.y < 0 || placed.x + placed.width > 100 || placed.y + placed.height > 100) {
    throw invalid(
      'anchor_out_of_page',
      `${at}: "${anchor.text}" is on page ${box.page} at x ${box.x}, y ${box.y}; with offset_x ${anchor.offset_x}, offset_y ${anchor.offset_y} the field (x ${placed.x}, y ${placed.y}, ${placed.width} × ${placed.height}) would leave the page. Adjust the offset or size.`,
      at,
    );
  }
  return placed;
}

/** The 400 for an anchor whose occurrence is not in the document, with what was found. */
export function anchorNotFound(anchor: FieldAnchor, found: number, at: string, where: string) {
  const seen = found === 0 ? 'does not appear' : `appears ${found} time${found === 1 ? '' : 's'}, so occurrence ${anchor.occurrence} does not exist`;
  const hint = isPlaceholderAnchor(anchor.text)
    ? ' Placeholders are written in HTML content exactly as given (e.g. {{signature:employee}}).'
    : ' The text is matched in the PDF\'s text layer, white space ignored; a scanned page has no text to match.';
  return invalid('anchor_not_found', `${at}: "${anchor.text}" ${seen} in ${where}.${hint}`, at);
}
