import { BodyRef, DocumentPart, DocumentState, TemplateField, validateFieldOverlaps } from '@dojang/domain';
import { DocumentPdfService } from '../document-pdf.service';
import { resolveFieldBoxes } from '../field-anchors';

/** What a template's layout is made of: its name (part 0's title), its body or parts, its fields. */
export interface TemplateLayoutSource {
  organization_id: string;
  name: string;
  content_blob: BodyRef;
  parts?: DocumentPart[] | undefined;
  fields: TemplateField[];
  /** The render's creation time (printed nowhere that moves a page break; part of its cache key). */
  now: string;
}

/**
 * The template's own pages, for the checks a send would make (issue 32 item 2): each part's page
 * count (one entry for a template of one body), its bodies rendered as written, placeholders
 * included, or its PDFs as uploaded. Every anchored field is looked for in its part there, by the
 * very function a send places fields with (resolveFieldBoxes): a missing anchor is a 400 naming
 * `fields[i].anchor` at save instead of a failed send later, and so is a field that, once its
 * anchor is found, covers another (field_overlap naming `fields[i]`). The decider then checks each field's
 * page against the counts (`page_counts` of CreateTemplate/UpdateTemplate).
 *
 * No field: nothing to check, nothing rendered (undefined).
 */
export async function templatePageCounts(pdf: DocumentPdfService, template: TemplateLayoutSource): Promise<number[] | undefined> {
  if (template.fields.length === 0) return undefined;
  // The template as the draft of a document would hold it: a body, or its parts.
  const draft = {
    organization_id: template.organization_id,
    title: template.name.trim() || ' ',
    content_format: 'html',
    created_at: template.now,
    content_blob: template.content_blob,
    file: null,
    original_pdf: null,
    parts: template.parts ?? null,
  } as unknown as DocumentState;
  const counts = template.parts ? (await pdf.partPdfs(draft)).map((p) => p.page_count) : [(await pdf.rendered(draft)).page_count];
  if (template.fields.some((f) => f.anchor)) {
    const boxes = await resolveFieldBoxes(
      pdf,
      draft,
      template.fields.map((f) => ({ part: f.part ?? 0, anchor: f.anchor ?? null, box: { page: f.page, x: f.x, y: f.y, width: f.width, height: f.height } })),
      (i) => `fields[${i}].anchor`,
    );
    // Where the anchors landed, with the coordinate fields: a field hiding another here would be
    // refused by every document made from the template (ReplaceFields), so it is refused at save.
    validateFieldOverlaps(boxes.map((box, i) => ({ ...box, part: template.fields[i].part ?? 0 })));
  }
  return counts;
}
