import { DocumentPdfService } from '@dojang/application';
import { AnchorBox, DocumentState, FieldAnchor, anchorNotFound, isPlaceholderAnchor, placeAtAnchor } from '@dojang/domain';
import { ApiError } from '../shared/api-error';
import { FieldAnchorDto, FieldDto } from './document.dto';

/** The anchor as recorded: every default written out, so the event says exactly what was asked. */
export function toAnchor(dto: FieldAnchorDto): FieldAnchor {
  return {
    text: dto.text,
    occurrence: dto.occurrence ?? 1,
    offset_x: dto.offset_x ?? 0,
    offset_y: dto.offset_y ?? 0,
    width: dto.width ?? null,
    height: dto.height ?? null,
  };
}

/**
 * Each field's box: its own coordinates, or where its anchor is found in the draft's PDF (the
 * uploaded file, or the body's render, whose placeholders the renderer reports; with parts, the
 * PDF of the field's part, so the page found counts within the part like `page`). The text search
 * runs in the PDF pool, once for all anchors of the request; nothing is searched when no field has
 * an anchor. A missing anchor or a box off the page is a 400 naming `fields[i].anchor`.
 */
export async function placeFields(pdf: DocumentPdfService, state: DocumentState, dtos: FieldDto[]): Promise<Array<{ box: AnchorBox; anchor: FieldAnchor | null }>> {
  dtos.forEach((dto, i) => {
    if (dto.anchor === undefined) return;
    for (const key of ['page', 'x', 'y', 'width', 'height'] as const) {
      if (dto[key] !== undefined) {
        throw ApiError.invalid(`fields[${i}].${key}`, `fields[${i}] gives an anchor: leave page, x, y, width and height out (the anchor's offset_x, offset_y, width and height place it).`);
      }
    }
  });
  const anchors = dtos.map((dto) => (dto.anchor ? toAnchor(dto.anchor) : null));
  const boxes: Array<AnchorBox | null> = dtos.map((dto) =>
    dto.anchor ? null : { page: dto.page as number, x: dto.x as number, y: dto.y as number, width: dto.width as number, height: dto.height as number },
  );
  if (anchors.every((a) => a === null)) return boxes.map((box) => ({ box: box as AnchorBox, anchor: null }));

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
  for (const dto of dtos) {
    const part = dto.part ?? 0;
    if (dto.anchor && !byPart.has(part)) byPart.set(part, await sourceOf(part));
  }
  const textResults = new Map<number, { box: AnchorBox | null; count: number }>();
  for (const [part, source] of byPart) {
    if (!source) continue;
    // Placeholders come from the render's record; any other text from the PDF's text layer.
    const searched = anchors.map((a, i) => ({ a, i })).filter(({ a, i }) => a !== null && (dtos[i].part ?? 0) === part && !(source.html && isPlaceholderAnchor(a.text)));
    if (searched.length === 0) continue;
    const found = await pdf.findAnchors(await source.bytes(), searched.map(({ a }) => ({ text: (a as FieldAnchor).text, occurrence: (a as FieldAnchor).occurrence })), state.organization_id || undefined);
    searched.forEach(({ i }, k) => textResults.set(i, found[k]));
  }
  return anchors.map((anchor, i) => {
    if (!anchor) return { box: boxes[i] as AnchorBox, anchor: null };
    const at = `fields[${i}].anchor`;
    const source = byPart.get(dtos[i].part ?? 0);
    // A part the document does not have: the decider names fields[i].part.
    if (!source) return { box: { page: 1, x: 0, y: 0, width: 1, height: 1 }, anchor };
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
    return { box: placeAtAnchor(anchor, hit, at), anchor };
  });
}
