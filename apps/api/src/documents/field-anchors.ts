import { DocumentPdfService, resolveFieldBoxes } from '@dojang/application';
import { AnchorBox, DocumentState, FieldAnchor } from '@dojang/domain';
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
 * Each field's box: its own coordinates, or where its anchor is found in the draft's PDF
 * (resolveFieldBoxes, shared with documents made from templates). A missing anchor or a box off
 * the page is a 400 naming `fields[i].anchor`.
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
  const boxes = await resolveFieldBoxes(
    pdf,
    state,
    dtos.map((dto, i) => ({
      part: dto.part ?? 0,
      anchor: anchors[i],
      box: anchors[i] ? { page: 1, x: 0, y: 0, width: 1, height: 1 } : { page: dto.page as number, x: dto.x as number, y: dto.y as number, width: dto.width as number, height: dto.height as number },
    })),
    (i) => `fields[${i}].anchor`,
  );
  return boxes.map((box, i) => ({ box, anchor: anchors[i] }));
}
