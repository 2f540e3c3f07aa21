import { Secrets } from '@dojang/application';
import { PartPages, absolutePage, phoneE164 } from '@dojang/domain';
import { DocumentRow } from '@dojang/projections';
import { DocumentResponse } from '../openapi/response-schemas';
import { presentField } from './field-settings';

/**
 * The public shape of a document. Signing links are shown only to the owning organization.
 * `content` is the body read from the blob store (the row holds only its ref).
 */
/**
 * `layout`: a draft's parts as rendered now (fixed in `part_pages` at send). Fields record their
 * page within their part; every response numbers pages across the whole document, as the PDF's
 * footers, the signing session and the page images do.
 */
export function presentDocument(
  row: DocumentRow,
  origin: string,
  secrets: Secrets,
  content: string | null,
  partContents: Array<string | null> = [],
  layout: PartPages[] | null = null,
): DocumentResponse {
  const linksLive = row.status === 'sent';
  const signedValues = new Map(row.participants.flatMap((p) => (p.values ?? []).map((v) => [v.field_id, v] as const)));
  return {
    id: row.id,
    object: 'document' as const,
    livemode: row.livemode,
    status: row.status,
    title: row.title,
    content,
    content_format: row.content_format,
    file: row.file ? { id: row.file.file_id, sha256: row.file.sha256, byte_size: row.file.byte_size, page_count: row.file.page_count } : null,
    author_name: row.author_name,
    from_template: row.from_template ?? null,
    template_version: row.template_version ?? null,
    show_title: row.show_title !== false,
    metadata: row.metadata,
    external_id: row.external_id ?? null,
    edit_locked: row.edit_locked,
    page_count: row.page_count,
    created_at: row.created_at,
    updated_at: row.updated_at,
    sent_at: row.sent_at,
    expires_at: row.expires_at,
    completed_at: row.completed_at,
    final_pdf_sha256: row.final_pdf?.sha256 ?? null,
    participants: row.participants.map((p) => ({
      id: p.id,
      object: 'participant' as const,
      name: p.name,
      phone: p.phone,
      phone_e164: phoneE164(p.phone),
      email: p.email,
      role: p.role,
      signing_order: p.signing_order,
      auth: p.auth,
      redirect_url: p.redirect_url ?? null,
      channel: p.channel ?? 'auto',
      language: p.language ?? null,
      status: p.status,
      viewed_at: p.viewed_at,
      signed_at: p.signed_at,
      declined_at: p.declined_at,
      signing_url: linksLive && p.token_hash ? `${origin}/sign/${secrets.signingToken(row.id, p.id, p.link_version ?? 0)}` : null,
      group: p.group ?? null,
      allow_delegation: p.allow_delegation === true,
      representative: p.representative === true,
      group_signed_by: p.group_signed_by ?? null,
      delegated_from: p.delegated_from ?? [],
    })),
    parts: presentParts(row, content, partContents, layout),
    fields: row.fields.map((f) => ({ object: 'field' as const, participant_id: f.participant_id, ...presentField(f, signedValues.get(f.id)), page: absolutePage(row, f, layout) })),
  };
}

type PartsSource = Pick<DocumentRow, 'title' | 'content_format' | 'file' | 'page_count'> & Pick<Partial<DocumentRow>, 'parts' | 'part_pages'>;

/**
 * The document's parts in order, with where each starts in the PDF the participants see: fixed at
 * send; before that from the draft's renders when given (`layout`: a draft with fields), else
 * known only while every part before it is an uploaded PDF. A one-part document has one part, its body or file.
 */
export function presentParts(row: PartsSource, content: string | null, partContents: Array<string | null> = [], layout: PartPages[] | null = null) {
  const file = (f: NonNullable<DocumentRow['file']>) => ({ id: f.file_id, sha256: f.sha256, byte_size: f.byte_size, page_count: f.page_count });
  if (!row.parts) {
    return [{ index: 0, title: null, content_format: row.content_format, content, file: row.file ? file(row.file) : null, first_page: 1, page_count: row.page_count }];
  }
  let next: number | null = 1;
  return row.parts.map((part, index) => {
    const laid = (row.part_pages ?? layout)?.[index];
    const pageCount = laid?.page_count ?? part.file?.page_count ?? null;
    const firstPage = laid?.first_page ?? next;
    next = firstPage !== null && pageCount !== null ? firstPage + pageCount : null;
    return {
      index,
      title: part.title,
      content_format: part.content_format,
      content: partContents[index] ?? null,
      file: part.file ? file(part.file) : null,
      first_page: firstPage,
      page_count: pageCount,
    };
  });
}

export type PresentedDocument = DocumentResponse;
