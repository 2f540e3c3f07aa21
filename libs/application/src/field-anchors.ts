import { AnchorBox, DocumentState, FieldAnchor, anchorNotFound, isPlaceholderAnchor, placeAtAnchor } from '@dojang/domain';
import { DocumentPdfService } from './document-pdf.service';

/** One field to place: by its own box, or by an anchor found in its part. */
export interface FieldPlacement {
  part: number;
  anchor: FieldAnchor | null;
  /** The field's own coordinates (ignored when it has an anchor). */
  box: AnchorBox;
}

/**
 * Each field's box: its own coordinates, or where its anchor is found in the draft's PDF (the
 * uploaded file, or the body's render, whose placeholders the renderer reports; with parts, the
 * PDF of the field's part, so the page found counts within the part like `page`). The text search
 * runs in the PDF pool, once per part for all anchors; nothing is searched when no field has an
 * anchor. A missing anchor or a box off the page is a 400 naming `paramOf(i)` (fields[i].anchor).
 * PUT /v1/documents/{id}/fields and a document made from a template (TemplateSender) both place
 * fields with it, so an anchor lands in the same spot either way.
 */
export async function resolveFieldBoxes(pdf: DocumentPdfService, state: DocumentState, fields: FieldPlacement[], paramOf: (i: number) => string): Promise<AnchorBox[]> {
  if (fields.every((f) => f.anchor === null)) return fields.map((f) => f.box);

  // Each anchor is looked for in its field's part: a body's render (with its placeholders), or a PDF.
  const parts = state.parts ? await pdf.partPdfs(state) : null;
  const sourceOf = async (part: number) => {
    if (parts) {
      const info = parts[part];
      if (!info) return null;
      const html = !state.parts?.[part]?.file;
      return { html, anchors: info.anchors ?? [], bytes: () => pdf.blob(info.sha256), where: `part ${part} (${html ? 'its rendered content' : 'its uploaded PDF'})` };
    }
    const html = !state.file;
    const render = html ? await pdf.rendered(state) : null;
    return { html, anchors: render?.anchors ?? [], bytes: () => pdf.original(state), where: html ? 'the rendered content' : 'the uploaded PDF' };
  };
  const byPart = new Map<number, Awaited<ReturnType<typeof sourceOf>>>();
  for (const f of fields) {
    if (f.anchor && !byPart.has(f.part)) byPart.set(f.part, await sourceOf(f.part));
  }
  const textResults = new Map<number, { box: AnchorBox | null; count: number }>();
  for (const [part, source] of byPart) {
    if (!source) continue;
    // Placeholders come from the render's record; any other text from the PDF's text layer.
    const searched = fields.map((f, i) => ({ a: f.anchor, i })).filter(({ a, i }) => a !== null && fields[i].part === part && !(source.html && isPlaceholderAnchor(a.text)));
    if (searched.length === 0) continue;
    const found = await pdf.findAnchors(await source.bytes(), searched.map(({ a }) => ({ text: (a as FieldAnchor).text, occurrence: (a as FieldAnchor).occurrence })), state.organization_id || undefined);
    searched.forEach(({ i }, k) => textResults.set(i, found[k]));
  }
  return fields.map(({ anchor, part, box }, i) => {
    if (!anchor) return box;
    const at = paramOf(i);
    const source = byPart.get(part);
    // A part the document does not have: the decider names fields[i].part.
    if (!source) return { page: 1, x: 0, y: 0, width: 1, height: 1 };
    let hit: AnchorBox | null;
    let count: number;
    const result = textResults.get(i);
    if (result) {
      hit = result.box;
      count = result.count;
    } else {
      const same = source.anchors.filter((p) => p.text === anchor.text);
      count = same.length;
      hit = same[anchor.occurrence - 1] ?? null;
    }
    if (!hit) throw anchorNotFound(anchor, count, at, source.where);
    return placeAtAnchor(anchor, hit, at);
  });
}
