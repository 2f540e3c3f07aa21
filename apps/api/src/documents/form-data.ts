import { AuditFieldValue } from '@dojang/pdf';
import { AttachmentValue, absolutePage, displayValue, formDataEntries } from '@dojang/domain';
import { DocumentRow } from '@dojang/projections';
import { FormDataResponse } from '../openapi/response-schemas';

/**
 * Every value the participants' signatures recorded, in field order: by field id and with each
 * field's label, the participant who filled it and when they signed.
 */
export function formDataOf(row: DocumentRow): FormDataResponse {
  const fields = new Map(row.fields.map((f, i) => [f.id, { field: f, index: i }]));
  const signedAt = new Map(row.participants.map((p) => [p.id, p.signed_at as string]));
  // The same entries document.completed carries (template field key, group, option, choice).
  const entries = formDataEntries(
    row.fields,
    row.participants.flatMap((p) => (p.values ?? []).map((v) => ({ participant_id: p.id, ...v }))),
  );
  const data: FormDataResponse['data'] = entries.map((v) => ({
    field_id: v.field_id,
    participant_id: v.participant_id,
    type: v.type as FormDataResponse['data'][number]['type'],
    label: v.label,
    value: v.value,
    // Dates in the format the document was sent with, as its final PDF prints them.
    display_value: displayValue(fields.get(v.field_id)?.field ?? v, v.value, v, row.date_format),
    template_field_key: v.template_field_key,
    group: v.group,
    option: v.option,
    selected: v.selected,
    signed_at: signedAt.get(v.participant_id) as string,
    ...(v.attachment ? { attachment: v.attachment } : {}),
  }));
  const order = (id: string) => fields.get(id)?.index ?? Number.MAX_SAFE_INTEGER;
  data.sort((a, b) => order(a.field_id) - order(b.field_id));
  const valueFields = row.fields.filter((f) => f.type !== 'signature' && f.type !== 'seal');
  return {
    object: 'form_data',
    document_id: row.id,
    status: row.status,
    // Every participant with value fields has signed: no value will be added.
    // (a signing group's fields are done once any member signed for it).
    complete: valueFields.every((f) => {
      const owner = row.participants.find((p) => p.id === f.participant_id);
      return owner?.status === 'signed' || Boolean(owner?.group_signed_by);
    }),
    values: Object.fromEntries(data.map((d) => [d.field_id, d.value])),
    data,
  };
}

/** The certificate's list: label (or type) → value as the PDF shows it, who, when. */
export function auditFieldValues(row: DocumentRow): AuditFieldValue[] {
  const names = new Map(row.participants.map((p) => [p.id, p.name]));
  const fields = new Map(row.fields.map((f) => [f.id, f]));
  return formDataOf(row).data.map((d) => {
    const field = fields.get(d.field_id);
    return {
      label: d.label ?? d.type,
      value: d.display_value,
      participant: names.get(d.participant_id) ?? d.participant_id,
      at: d.signed_at,
      // The page counted across the whole document, as the API and the footers count it.
      ...(field ? { page: absolutePage(row, field) } : {}),
    };
  });
}

/** The files signatures recorded as attachment values (uploads never named by a signature are not evidence). */
export function recordedAttachments(row: DocumentRow): AttachmentValue[] {
  const seen = new Set<string>();
  const out: AttachmentValue[] = [];
  for (const p of row.participants) {
    for (const v of p.values ?? []) {
      if (v.attachment && !seen.has(v.attachment.attachment_id)) {
        seen.add(v.attachment.attachment_id);
        out.push(v.attachment);
      }
    }
  }
  return out;
}
