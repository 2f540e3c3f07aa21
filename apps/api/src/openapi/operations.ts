import { ErrorCode } from '../shared/error-codes';
import { JsonSchema } from './json-schema';
import * as S from './response-schemas';

/**
 * What each operation answers, keyed by operationId (`<Controller>_<method>`, from the Nest
 * routes). openapi.document.ts merges this into the generated document; the platform OpenAPI test
 * fails when a route has no entry here, so a new route cannot ship undocumented.
 *
 * `errors` lists the codes specific to the operation; the builder adds the ones every operation
 * of its kind can answer (authentication, rate limit, body parsing, idempotency, internal_error).
 */
export interface OperationSpec {
  summary: string;
  description: string;
  /** The success status and its body: a JSON schema, or media types for other bodies. */
  ok: { status: number; description: string; json?: JsonSchema; media?: Record<string, JsonSchema> };
  errors: ErrorCode[];
  /** Query parameters (replacing the DTO-generated ones of the same name). */
  query?: Record<string, { description: string; schema: JsonSchema; required?: boolean; /** metadata[key]=value */ style?: 'deepObject' }>;
  /** false: the JSON body may be omitted entirely. */
  bodyRequired?: boolean;
  /** JSON bodies of several shapes: the properties each one requires (published as anyOf). */
  bodyShapes?: string[][];
  /** Refusals answered as an HTML page (a browser opened the URL), by status. */
  pages?: Record<number, { description: string }>;
  /** A multipart body instead of JSON. */
  multipart?: { schema: JsonSchema; encoding?: Record<string, { contentType: string }> };
}

const pdf = { 'application/pdf': { type: 'string', contentMediaType: 'application/pdf' } } as const;
const LIMIT = { description: 'Page size, 1 to 100 (default 20).', schema: { type: 'integer', minimum: 1, maximum: 100, default: 20 } } as const;
const cursor = (what: string) => ({ description: `Cursor: the id of the last ${what} of the previous page; the page after it is returned.`, schema: { type: 'string' } });

/** Operations that render, stamp or serve a PDF. */
const PDF_WORK: ErrorCode[] = ['document_budget_exceeded', 'pdf_job_limit_exceeded', 'evidence_integrity_failure', 'evidence_incomplete'];
/** A template saved is laid out once (issue 32 item 2): its pages and anchors checked as a send checks them. */
const TEMPLATE_LAYOUT: ErrorCode[] = ['signer_without_required_field', 'field_page_out_of_range', 'anchor_not_found', 'anchor_out_of_page', 'field_overlap', ...PDF_WORK];
const DRAFT_EDIT: ErrorCode[] = ['document_not_found', 'document_not_editable', 'document_edit_locked'];
/** Signing operations are rate limited per link and per client address (they carry no API key). */
const SIGNING_LINK: ErrorCode[] = ['signing_link_invalid', 'signing_link_replaced', 'signing_link_inactive', 'rate_limit_error'];
const SIGNER_ACTION: ErrorCode[] = [
  ...SIGNING_LINK,
  'document_not_signable',
  'participant_cannot_sign',
  'participant_already_signed',
  'participant_declined',
  'not_your_turn',
  'pin_verification_required',
];

export const OPERATIONS: Record<string, OperationSpec> = {
  // ---- service
  Health_health: {
    summary: 'Liveness',
    description: 'Answers 200 while the process runs, with the log and read-model positions. No API key. Route traffic by GET /health/ready instead.',
    ok: { status: 200, description: 'The process is up.', json: S.HealthSchema },
    errors: [],
  },
  Health_ready: {
    summary: 'Readiness',
    description: '200 when the stores answer and every read model is close enough to the log head; 503 `not_ready` otherwise (take the instance out of rotation). No API key.',
    ok: { status: 200, description: 'Ready to serve.', json: S.ReadinessSchema },
    errors: ['not_ready'],
  },
  Metrics_metrics: {
    summary: 'Prometheus metrics',
    description: 'Prometheus text exposition of request, projection and delivery metrics. Not an API-key route: when the server sets METRICS_TOKEN, send `Authorization: Bearer <METRICS_TOKEN>`.',
    ok: { status: 200, description: 'Metrics in the Prometheus text format.', media: { 'text/plain': { type: 'string' } } },
    errors: ['invalid_metrics_token'],
  },
  OpenApi_openapi: {
    summary: 'This OpenAPI document',
    description: 'The OpenAPI 3.1 description of every operation, response, error code and webhook payload. No API key. Generate a client from it.',
    ok: { status: 200, description: 'The OpenAPI 3.1 document.', json: S.OpenApiDocumentSchema },
    errors: [],
  },
  OpenApi_docs: {
    summary: 'API reference page',
    description: 'Interactive reference (Swagger UI) rendering this document; self-contained, loads nothing from other hosts. No API key.',
    ok: { status: 200, description: 'HTML page.', media: { 'text/html': { type: 'string' } } },
    errors: [],
  },
  OpenApi_asset: {
    summary: 'Reference page asset',
    description: 'Scripts, styles and icon of the reference page. No API key.',
    ok: {
      status: 200,
      description: 'The asset.',
      media: { 'text/css': { type: 'string' }, 'application/javascript': { type: 'string' }, 'image/png': { type: 'string', contentMediaType: 'image/png' } },
    },
    errors: ['resource_not_found'],
  },
  // ---- organization
  Organization_get: {
    summary: 'Retrieve the organization',
    description: 'The organization the API key belongs to (a key reaches exactly one), its settings and this month\'s usage: free signatures left and the credit balance live sends draw on.',
    ok: { status: 200, description: 'The organization.', json: S.OrganizationSchema },
    errors: ['organization_not_found'],
  },
  Organization_update: {
    summary: 'Update the brand, time zone and KakaoTalk channel',
    description:
      'Each part given is changed, the rest kept; all parts are checked before any is recorded. `brand` (display_name, color, reply_to; null clears one) shows in e-mails (From name, subject prefix, colour, Reply-To), as the SMS prefix [display_name] and on the signing page. `time_zone` (IANA) is where expires_on dates end, where signing_date fields are dated and how times in messages read; `quiet_hours` (local HH:MM start and end, null for none) hold automatic reminders until they end. `kakao` (pf_id and a template code per message kind, null to turn off) sends phone messages by KakaoTalk 알림톡, with SMS/LMS when KakaoTalk fails. Answers the organization.',
    ok: { status: 200, description: 'The organization as changed.', json: S.OrganizationSchema },
    errors: ['organization_not_found', 'invalid_parameter'],
  },
  Organization_putLogo: {
    summary: 'Upload the logo',
    description:
      'multipart/form-data with the logo in the part `file`: a PNG or a JPEG (judged by its bytes; an SVG is refused, since it can carry script), at most 512 KB (413 file_too_large, counted while it arrives) and 2048 pixels a side. It is decoded in the PDF worker pool — a PNG by a strict decoder and re-encoded, so nothing but its pixels is kept; a JPEG decoded whole — and a file that does not decode is 400 invalid_image. The stored image is served at brand.logo.url (no API key, cached for a year under its content hash) and shown in e-mail headers (alt text: the display name), on the signing page and on the audit certificate. Replaces any earlier logo, whose URL then answers 404. Answers the organization.',
    ok: { status: 200, description: 'The organization with its new logo.', json: S.OrganizationSchema },
    errors: ['organization_not_found', 'missing_parameter', 'invalid_parameter', 'unsupported_file_type', 'file_too_large', 'invalid_image', 'pdf_job_limit_exceeded'],
    multipart: {
      schema: {
        type: 'object',
        required: ['file'],
        properties: { file: { type: 'string', contentMediaType: 'image/png', description: 'The PNG or JPEG, as a file part.' } },
      },
      encoding: { file: { contentType: 'image/png, image/jpeg' } },
    },
  },
  Organization_deleteLogo: {
    summary: 'Remove the logo',
    description: 'Messages, the signing page and certificates show the display name alone again; the logo\'s URL answers 404. Without a logo nothing changes. Answers the organization.',
    ok: { status: 200, description: 'The organization without a logo.', json: S.OrganizationSchema },
    errors: ['organization_not_found'],
  },
  BrandLogo_logo: {
    summary: 'An organization\'s logo',
    description:
      'The image behind brand.logo.url, for mail clients and the signing page: no API key, `Cache-Control: public, max-age=31536000, immutable` (the file name is the content hash, so the bytes at a URL never change). Only an organization\'s current logo is served: a replaced or removed one, or any other name, is 404.',
    ok: { status: 200, description: 'The logo.', media: { 'image/png': { type: 'string', contentMediaType: 'image/png' }, 'image/jpeg': { type: 'string', contentMediaType: 'image/jpeg' } } },
    errors: ['resource_not_found'],
  },
  Organization_members: {
    summary: 'List members',
    description: 'Everyone in the organization with their role. Not paginated.',
    ok: { status: 200, description: 'The members.', json: S.MemberListSchema },
    errors: ['organization_not_found'],
  },
  OrganizationCertificate_get: {
    summary: 'Retrieve the signing certificate',
    description:
      "The certificate that signs this organization's final PDFs: its own when it uploaded one (source organization), else the installation's (source platform). Subject, issuer, validity, serial number, SHA-256 fingerprint (as audit certificates print it) and the chain embedded in signatures.",
    ok: { status: 200, description: 'The signing certificate.', json: S.SigningCertificateSchema },
    errors: ['organization_not_found'],
  },
  OrganizationCertificate_upload: {
    summary: "Upload the organization's own signing certificate",
    description:
      'JSON `{p12, password}`: a PKCS#12 (.p12/.pfx, base64, at most 256 KB) holding an RSA private key, its certificate and optionally the chain, and the password that opens it. It is opened and checked in the PDF worker pool; from then on final PDFs of this organization are signed with it (the chain embedded in each signature and, with PADES_LEVEL B-LT/B-LTA, in the DSS) and audit certificates print its fingerprint. The key and the password are stored encrypted (AES-256-GCM, KEY_ENCRYPTION_KEY); the log records only the certificate (SigningCertificateUploaded). A refused file is 400 with error.param p12 or password and a code naming the problem. Replaces an earlier upload.',
    ok: { status: 200, description: 'The certificate now signing.', json: S.SigningCertificateSchema },
    errors: [
      'organization_not_found',
      'missing_parameter',
      'invalid_parameter',
      'file_too_large',
      'signing_certificate_unsupported_format',
      'signing_certificate_wrong_password',
      'signing_certificate_no_private_key',
      'signing_certificate_key_mismatch',
      'signing_certificate_expired',
      'signing_certificate_not_yet_valid',
    ],
  },
  OrganizationCertificate_remove: {
    summary: "Remove the organization's own signing certificate",
    description: "Final PDFs are signed with the installation's key again (SigningCertificateRemoved records the fingerprint that stopped signing). Documents signed before keep their signatures. Idempotent. Answers the platform certificate.",
    ok: { status: 200, description: 'The certificate now signing (the platform\'s).', json: S.SigningCertificateSchema },
    errors: ['organization_not_found'],
  },
  // ---- documents
  Documents_create: {
    summary: 'Create a draft document',
    description:
      'Creates a draft from exactly one source: `content` (HTML, or text with content_format text), `file_url` (the url of a POST /files upload, before it expires), `from_template` with `variables` for its {{placeholders}}, or `parts` (up to 10 bodies and PDFs shown and signed in order and delivered as one signed PDF; fields name their part). HTML may carry field placeholders such as {{signature:employee}}, rendered as blank room, for fields placed by anchor. Then add participants, place fields and send.',
    ok: { status: 201, description: 'The new draft.', json: S.DocumentSchema },
    errors: ['missing_parameter', 'invalid_parameter', 'template_archived', 'document_budget_exceeded', 'pdf_job_limit_exceeded'],
  },
  Documents_list: {
    summary: 'List documents',
    description: 'The key\'s documents (this organization, this mode), newest first; trashed documents are left out. Page with starting_after. Find the documents of your records with external_id, or with metadata[key]=value (one key per request; e.g. metadata[사번]=E-0001, URL-encoded).',
    ok: { status: 200, description: 'A page of documents.', json: S.DocumentListSchema },
    errors: ['invalid_parameter'],
    query: {
      limit: LIMIT,
      starting_after: cursor('document'),
      created_after: { description: 'Only documents created after this time (ISO 8601 with offset, e.g. 2026-01-31T00:00:00Z).', schema: { type: 'string', format: 'date-time' } },
      external_id: { description: 'Only documents given this external_id (at creation, or by their bulk send row).', schema: { type: 'string', minLength: 1, maxLength: 200 } },
      metadata: {
        description: 'metadata[key]=value: only documents whose metadata holds that value under that key. One key per request (400 invalid_parameter otherwise).',
        schema: { type: 'object', additionalProperties: { type: 'string' } },
        style: 'deepObject',
      },
    },
  },
  Documents_get: {
    summary: 'Retrieve a document',
    description: 'The document with its participants (with their signing links while it is sent) and fields. With as_of, the document as it was at that instant, folded from its stored events.',
    ok: { status: 200, description: 'The document.', json: S.DocumentSchema },
    errors: ['document_not_found', 'invalid_parameter'],
    query: { as_of: { description: 'An ISO 8601 instant with an offset (or a date): the document as it was then.', schema: { type: 'string' } } },
  },
  Documents_update: {
    summary: 'Update a draft',
    description: 'Changes title, content (or every part, with parts), author_name or metadata of a draft; omitted properties are kept and metadata is merged (a null value removes a key). Fields keep their coordinates: after changing a body, PUT the fields again to re-resolve anchors. Sent documents are frozen (409 document_not_editable).',
    ok: { status: 200, description: 'The updated document.', json: S.DocumentSchema },
    errors: [...DRAFT_EDIT, 'invalid_parameter', 'document_budget_exceeded', 'pdf_job_limit_exceeded'],
  },
  Documents_trash: {
    summary: 'Delete a document',
    description: 'Moves the document to the trash: it disappears from lists and reads, and its signing links stop working.',
    ok: { status: 200, description: 'Deleted.', json: S.DeletedDocumentSchema },
    errors: ['document_not_found'],
  },
  Documents_duplicate: {
    summary: 'Duplicate a document',
    description: 'A new draft with the same body, fields and participant set-up (new ids, no signing records). No body.',
    ok: { status: 201, description: 'The new draft.', json: S.DocumentSchema },
    errors: ['document_not_found'],
  },
  Participants_add: {
    summary: 'Add a participant',
    description: 'Adds a signer, reviewer or cc to a draft. auth sms_pin (the default) needs a phone: the signer verifies a PIN sent there before signing. Without signing_order everyone acts in parallel.',
    ok: { status: 201, description: 'The participant.', json: S.ParticipantSchema },
    errors: [...DRAFT_EDIT, 'missing_phone', 'phone_invalid', 'phone_not_mobile', 'participant_limit_exceeded', 'missing_parameter', 'invalid_parameter'],
  },
  Participants_addBatch: {
    summary: 'Add participants in one request',
    description: 'Adds up to 50 participants to a draft, all or none.',
    ok: { status: 201, description: 'The participants created.', json: S.ParticipantListSchema },
    errors: [...DRAFT_EDIT, 'missing_phone', 'phone_invalid', 'phone_not_mobile', 'participant_limit_exceeded', 'missing_parameter', 'invalid_parameter'],
  },
  Participants_remove: {
    summary: 'Remove a participant',
    description: 'Removes a participant (and their fields) from a draft. After sending, cancel and build a new document instead.',
    ok: { status: 200, description: 'Removed.', json: S.DeletedParticipantSchema },
    errors: [...DRAFT_EDIT, 'participant_not_found'],
  },
  Participants_correct: {
    summary: 'Correct a participant',
    description:
      'Changes name, phone, email or auth of a participant who has not signed. On a draft, an ordinary edit. On a sent document it also replaces the participant\'s signing link: the old link answers 404 signing_link_replaced at once, a PIN sent to the old phone is void, and the new link goes out (e-mail and SMS) if it is their turn. Recorded as ParticipantCorrected. A participant who signed: 409 participant_already_signed. Phones are normalized (010-1234-5678, +82 10-1234-5678 → phone 01012345678, phone_e164 +821012345678; other countries in E.164 in both); a blank phone or email removes it.',
    ok: { status: 200, description: 'The participant as it is now (with its new signing link while the document is sent).', json: S.ParticipantSchema },
    errors: ['document_not_found', 'document_not_editable', 'document_edit_locked', 'participant_not_found', 'participant_already_signed', 'participant_declined', 'missing_phone', 'phone_invalid', 'phone_not_mobile', 'missing_parameter', 'invalid_parameter'],
  },
  Participants_resend: {
    summary: 'Resend a participant\'s signing request',
    description:
      'Sends the signing request (e-mail and, with a phone, SMS) again to one participant whose turn it is, with the link they have. At most once every 5 minutes per participant (429 resend_cooldown with Retry-After). Recorded as SigningRequestResent. No body.',
    ok: { status: 200, description: 'The participant.', json: S.ParticipantSchema },
    errors: ['document_not_found', 'participant_not_found', 'document_not_signable', 'participant_cannot_sign', 'participant_already_signed', 'participant_declined', 'not_your_turn', 'resend_cooldown'],
  },
  Participants_replaceFields: {
    summary: 'Replace the fields',
    description:
      'Sets the complete set of fields of a draft (send all of them every time): signature and seal, and value fields (initials, text, number, date, signing_date, checkbox, radio, dropdown, name, email, phone) with label, required, read_only, a prefilled value and their type\'s settings. Coordinates are percentages of the page as displayed (its CropBox, /Rotate applied), 0 to 100, from its top-left corner; on a document of several parts, `page` counts across the whole document (every part once, in order: the numbering of the PDF\'s footers, the signing session and the page images) and `part` is the part holding it (given, it must match: 400 field_page_out_of_range). Instead of coordinates a field may give an `anchor`: a {{type:name}} placeholder of HTML content or text of the PDF such as (인), with an offset and size in percent; it is resolved now and the response shows the page and box found (400 anchor_not_found or anchor_out_of_page naming fields[i].anchor). Every setting is checked here (400 with error.param naming it, e.g. fields[3].options), and the page against the page count as soon as it is known (an uploaded PDF, or the draft\'s render: 400 field_page_out_of_range). A field may not cover more than half of the area of another on the same page (half of the smaller one: touching fields and a seal stamped partly over a name pass): 400 field_overlap naming the later field (fields[3]) and, in the message, the one it covers; anchored fields are checked where their anchors land.',
    ok: { status: 200, description: 'The fields now on the document.', json: S.FieldListSchema },
    errors: [...DRAFT_EDIT, 'invalid_parameter', 'missing_parameter', 'field_page_out_of_range', 'anchor_not_found', 'anchor_out_of_page', 'field_overlap', 'field_values_too_large', 'document_budget_exceeded', 'pdf_job_limit_exceeded'],
  },
  DocumentLifecycle_send: {
    summary: 'Send a draft for signature',
    description:
      'Freezes the draft and gives each participant a signing link (e-mailed and, with a phone, texted; test keys put the messages in GET /outbox). Needs at least one participant, each signer\'s required fields placed, and a phone for every sms_pin participant, and every field on a page the document has: otherwise 400 (type invalid_request_error) whose code is the first unmet condition (document_has_no_participants, document_has_no_signer, signer_without_required_field, missing_phone, phone_not_mobile or phone_invalid for a phone recorded before the mobile-only rule, field_page_out_of_range) and whose message lists every one with what to do. A live send needs a free signature or 1 credit (402). The body is optional.',
    ok: { status: 200, description: 'The sent document, with signing links.', json: S.DocumentSchema },
    errors: ['document_not_found', 'document_not_editable', 'document_has_no_participants', 'document_has_no_signer', 'signer_without_required_field', 'missing_phone', 'phone_not_mobile', 'phone_invalid', 'field_page_out_of_range', 'insufficient_credits', 'invalid_parameter', ...PDF_WORK],
    bodyRequired: false,
  },
  DocumentLifecycle_cancel: {
    summary: 'Cancel a sent document',
    description:
      'Stops the signature request: the status becomes canceled and the links stop working. A completed document cannot be canceled (409 document_already_completed). The body is optional: `reason` (up to 1000 characters) is recorded in DocumentCanceled and shown to the participants in the cancel notice (e-mail, or SMS for those without one), on their signing links and in the history and audit trail. Signing requests not yet delivered when the cancel lands are not sent.',
    ok: { status: 200, description: 'The canceled document.', json: S.DocumentSchema },
    errors: ['document_not_found', 'document_not_sent', 'document_already_completed', 'document_not_cancelable', 'invalid_parameter'],
    bodyRequired: false,
  },
  DocumentLifecycle_remind: {
    summary: 'Remind participants',
    description: 'Sends a reminder to the participants whose turn it is and who have not acted. At most once an hour per document (429 reminder_cooldown with Retry-After). No body.',
    ok: { status: 200, description: 'Who was reminded.', json: S.ReminderSchema },
    errors: ['document_not_found', 'document_not_signable', 'nobody_to_remind', 'reminder_cooldown'],
  },
  FormData_attachment: {
    summary: 'Download an attachment a signature recorded',
    description:
      'The file an attachment field\'s value names (attachment_id from form_data, the document.completed payload or the participant.signed payload), exactly as stored: its SHA-256 is the one form_data, the audit certificate and the evidence bundle (attachments/) list. Only files a signature recorded; an upload no signature named is 404 attachment_not_found. Readable with auditor keys.',
    ok: {
      status: 200,
      description: 'The file, with its content type (application/pdf, image/jpeg or image/png).',
      media: {
        'application/pdf': { type: 'string', contentMediaType: 'application/pdf' },
        'image/jpeg': { type: 'string', contentMediaType: 'image/jpeg' },
        'image/png': { type: 'string', contentMediaType: 'image/png' },
      },
    },
    errors: ['document_not_found', 'attachment_not_found', 'evidence_integrity_failure'],
  },
  FormData_get: {
    summary: 'Form data: the recorded field values',
    description:
      'Every value the participants\' signatures recorded (text, numbers, dates, checkboxes, radio buttons, dropdowns, name/email/phone, signing dates), by field id (values) and in field order with label, participant and signing time (data). Values appear as each participant signs; complete is true once no more can be added. The same values are in the participant.signed and document.completed events.',
    ok: { status: 200, description: 'The form data.', json: S.FormDataSchema },
    errors: ['document_not_found'],
  },
  DocumentLifecycle_audit: {
    summary: 'Audit trail',
    description: 'Every action on the document in time order (created, sent, viewed, PIN sent/failed/verified, signed, declined, reminded, …) with IPs; phone numbers and e-mail addresses are masked. Not paginated.',
    ok: { status: 200, description: 'The audit entries.', json: S.AuditEntryListSchema },
    errors: ['document_not_found'],
  },
  DocumentLifecycle_file: {
    summary: 'Download the PDF',
    description: 'The signed final PDF once completed, otherwise the original (rendered from the body with Korean fonts, or the uploaded file). audit=true appends the audit-trail certificate.',
    ok: { status: 200, description: 'The PDF (Content-Disposition: attachment).', media: pdf },
    errors: ['document_not_found', 'invalid_parameter', 'signing_unavailable', 'signing_certificate_invalid', ...PDF_WORK],
    query: { audit: { description: 'true appends the audit-trail certificate pages.', schema: { type: 'boolean', default: false } } },
  },
  // ---- signer side
  Signing_view: {
    summary: 'Open a signing session',
    description: 'What the signing link\'s holder sees: the document, their fields, PIN state and whether they can sign now. The token in the link is the credential (no API key). The first call records the participant as viewed (document.viewed).',
    ok: { status: 200, description: 'The signing session.', json: S.SigningSessionSchema },
    errors: [...SIGNING_LINK, 'participant_not_found', 'concurrent_modification'],
  },
  Signing_pin: {
    summary: 'Send the SMS PIN',
    description:
      'Texts a 6-digit PIN (valid 10 minutes) to an sms_pin participant\'s phone; test keys put it in GET /outbox (message kind pin, field pin). A new PIN at most once a minute (429 pin_resend_cooldown). On a completed document the PIN is for downloading the signed PDF (GET …/completed.pdf), for 30 days after completion (410 download_expired). No body.',
    ok: { status: 200, description: 'The PIN was sent.', json: S.PinIssuedSchema },
    errors: [...SIGNING_LINK, 'document_not_signable', 'participant_not_found', 'pin_not_required', 'participant_already_signed', 'group_already_signed', 'pin_resend_cooldown', 'signing_link_locked', 'document_not_completed', 'download_expired'],
  },
  Signing_verify: {
    summary: 'Verify the SMS PIN',
    description: 'Checks the PIN (`{"pin": "123456"}`); after 5 wrong tries the PIN is locked and a new one must be requested; after 3 locked PINs the link is locked (409 signing_link_locked) until the sender reminds the participant. A verified PIN allows signing for a few minutes.',
    ok: { status: 200, description: 'Verified.', json: S.PinVerificationSchema },
    errors: [...SIGNING_LINK, 'document_not_signable', 'participant_not_found', 'pin_not_required', 'pin_not_requested', 'pin_incorrect', 'pin_expired', 'pin_locked', 'signing_link_locked', 'missing_parameter', 'invalid_parameter'],
  },
  Signing_sign: {
    summary: 'Sign',
    description:
      'Signs with explicit consent: a drawn signature (PNG/JPEG data URL) for signature fields, and for seal fields an organization seal (seal_id, one of the session\'s organization_seals; a representative participant only, anyone else 400 seal_representative_only with param seal_id) or a seal image (seal_image). seal_source says where the seal came from and is recorded on the signing event with the image\'s SHA-256: made (from POST …/seal_preview, with the same seal_shape and seal_text: the server renders it again, 400 seal_image_mismatch for any other image), drawn, uploaded (the default for seal_image) or organization (the default for seal_id). The participant\'s signing draft is deleted once the signature is recorded. sms_pin participants verify their PIN first (409 pin_verification_required). `values` fills the participant\'s value fields by field id (text, number and date as strings, a number may be a JSON number; checkbox and radio true/false; name, email, phone and signing_date are filled by the service); a missing or invalid value is refused naming it (error.param values.<field id>) and nothing is recorded. The values are recorded with the signature. The last signature completes the document.',
    ok: { status: 200, description: 'The signing session after signing.', json: S.SigningSessionSchema },
    errors: [...SIGNER_ACTION, 'participant_not_found', 'group_already_signed', 'consent_required', 'seal_upload_required', 'seal_representative_only', 'seal_text_invalid', 'seal_image_mismatch', 'field_value_required', 'field_value_invalid', 'field_values_too_large', 'missing_parameter', 'invalid_parameter', 'file_too_large', 'unsupported_file_type', 'signing_unavailable', 'signing_certificate_invalid', ...PDF_WORK],
  },
  Signing_saveDraft: {
    summary: 'Save a signing draft',
    description:
      'Saves what the signer filled so far, so a reload, another tab or another device opening the link resumes there (the session\'s `draft`): `{"values": {"<field id>": value | null}}` is merged into the saved draft (null or a blank string clears one field) and the whole draft is answered. Values take the shapes POST …/sign takes (an attachment field\'s value is the attachment_id of POST …/attachments) and are checked one by one as signing checks them; nothing is required yet. Same rules as signing: the participant\'s turn, and for sms_pin a PIN verified within 30 minutes. Refused, nothing saved: a field that is not this signer\'s (400 field_not_found) or not one they fill — a signature or seal, name, email, phone, signing_date, read-only (400 field_not_fillable) — or a value that does not fit it (400 field_value_invalid), each with error.param values.<field id>; after signing, decline, expiry, cancel, or on a replaced link the same 404/409/410 as signing. A draft is not a legal fact: it is kept beside the read models, never in the event log, the history or the audit trail, and is deleted when the participant signs or declines, the document concludes (completed, declined, canceled, expired, deleted) or the participant\'s link is replaced.',
    ok: { status: 200, description: 'The whole draft after the merge.', json: S.SigningDraftSchema },
    errors: [...SIGNER_ACTION, 'participant_not_found', 'group_already_signed', 'field_not_found', 'field_not_fillable', 'field_value_invalid', 'field_values_too_large', 'missing_parameter', 'invalid_parameter'],
  },
  Signing_sealPreview: {
    summary: 'Make a seal from a name',
    description:
      'A red Korean seal (도장) made from the participant\'s name, or from `text`, `round` or `square`, rendered on the server (in the PDF worker pool) in Nanum Myeongjo ExtraBold: Korean and Hanja in columns read right to left (a 2-character name gets 인), Latin in rows. Text: 1 to 10 characters after trimming — Hangul, Hanja, Latin letters, digits, spaces and the middle dot; anything else (emoji, symbols, control or direction characters) or more: 400 seal_text_invalid with param text. To stamp it, sign with seal_source made, the same seal_shape and seal_text, and this image as seal_image: the server renders it again and refuses any other image (400 seal_image_mismatch). Same rules as signing (turn, PIN).',
    ok: { status: 200, description: 'The seal.', json: S.SealPreviewSchema },
    errors: [...SIGNER_ACTION, 'participant_not_found', 'group_already_signed', 'seal_text_invalid', 'missing_parameter', 'invalid_parameter', ...PDF_WORK],
  },
  Signing_body: {
    summary: 'The contract as text, for reading',
    description:
      'Each part of the document in order with its title and its body as sanitized HTML (the tags the PDF renderer draws; no scripts, styles, event handlers, links or external resources; a plain-text body as escaped paragraphs), for a reading view that reflows to a phone\'s width ("본문 보기"); null for a part that is an uploaded PDF. The page images and the PDF remain what is signed. No API key.',
    ok: { status: 200, description: 'The parts.', json: S.SigningBodySchema },
    errors: [...SIGNING_LINK, 'evidence_integrity_failure', 'pdf_job_limit_exceeded'],
  },
  Signing_sealImage: {
    summary: 'An organization seal\'s image, for the signer',
    description: 'The image of one of the session\'s organization_seals (its image_url), behind the signing link. Any other seal: 404 seal_not_found. No API key.',
    ok: { status: 200, description: 'The seal image.', media: { 'image/png': { type: 'string', contentMediaType: 'image/png' }, 'image/jpeg': { type: 'string', contentMediaType: 'image/jpeg' } } },
    errors: [...SIGNING_LINK, 'seal_not_found'],
  },
  Signing_decline: {
    summary: 'Decline to sign',
    description: 'Declines with a reason; the document ends as declined for everyone. sms_pin participants verify their PIN first.',
    ok: { status: 200, description: 'Declined.', json: S.SigningDeclineSchema },
    errors: [...SIGNER_ACTION, 'participant_not_found', 'missing_parameter', 'invalid_parameter'],
  },
  Signing_attachment: {
    summary: 'Upload a file for an attachment field',
    description:
      'multipart/form-data with the file in the part `file` and the attachment field\'s id in the form field `field_id`. The file must be of a kind the field accepts (pdf, jpeg, png; judged by its bytes, not its name or Content-Type: 415 unsupported_file_type otherwise) and within its max_bytes (413 file_too_large). Same access rules as signing: the participant\'s turn, and for sms_pin a PIN verified within 30 minutes. Stored content-addressed and recorded as AttachmentUploaded; the file becomes the field\'s value when the signature sends its attachment_id in values. A field that is not an attachment field of this participant (or their signing group): 400 with param field_id.',
    ok: { status: 201, description: 'The stored file.', json: S.AttachmentSchema },
    errors: [...SIGNER_ACTION, 'participant_not_found', 'group_already_signed', 'attachment_limit_reached', 'missing_parameter', 'invalid_parameter', 'unsupported_file_type', 'file_too_large', 'file_too_complex'],
    multipart: {
      schema: {
        type: 'object',
        required: ['file', 'field_id'],
        properties: {
          file: { type: 'string', contentMediaType: 'application/octet-stream', description: 'The PDF, JPEG or PNG, as a file part (with a filename).' },
          field_id: { type: 'string', format: 'uuid', description: 'The attachment field the file is for.' },
        },
      },
    },
  },
  Signing_delegate: {
    summary: 'Delegate signing to another person',
    description:
      'When the sender allowed it (participant allow_delegation), the link\'s holder hands their signing to another person: `name` and a `phone` and/or `email` (a phone is needed when the participant signs with an SMS PIN; the delegate verifies a PIN sent there). The participant keeps its id, role, order and fields; its name and contact become the delegate\'s. This link answers 404 signing_link_replaced at once and a new link goes to the delegate (SMS and/or e-mail) if it is their turn. sms_pin participants verify their PIN first. Recorded as ParticipantDelegated. Not allowed: 409 delegation_not_allowed. A delegate cannot delegate again.',
    ok: { status: 200, description: 'Delegated.', json: S.DelegationSchema },
    errors: [...SIGNER_ACTION, 'participant_not_found', 'group_already_signed', 'delegation_not_allowed', 'missing_parameter', 'invalid_parameter', 'missing_phone', 'phone_invalid', 'phone_not_mobile'],
  },
  Signing_completedPdf: {
    summary: 'The signed PDF, for a participant',
    description:
      'The completed document\'s signed PDF through the participant\'s own link: what the completion SMS of a participant without an e-mail address points to. For 30 days after completion (410 download_expired); an sms_pin participant needs a PIN verified within the last 30 minutes, like signing — the one they signed with, or one requested after completion (POST …/pin, then …/verify); 409 pin_verification_required otherwise. No API key.',
    ok: { status: 200, description: 'The signed PDF (Content-Disposition: attachment).', media: pdf },
    errors: [...SIGNING_LINK, 'document_not_completed', 'download_expired', 'pin_verification_required', ...PDF_WORK],
  },
  Signing_file: {
    summary: 'The PDF, for the signer',
    description:
      'The document\'s PDF for the signing link\'s holder: the original while it is out for signature; once completed, the signed PDF under the rules of GET …/completed.pdf (an sms_pin participant within 30 minutes of a verified PIN, for 30 days). No API key.',
    ok: { status: 200, description: 'The PDF (inline).', media: pdf },
    errors: [...SIGNING_LINK, 'pin_verification_required', 'download_expired', ...PDF_WORK],
  },
  Signing_page: {
    summary: 'A page of the document as an image, for the signer',
    description:
      'Page n (1-based) of the PDF the signer is shown (the final one once completed) as an image `w` pixels wide (480, the default, 720 or 960), rendered once per PDF, page and width in the PDF pool: lossless WebP when the request\'s Accept names image/webp (as browsers do for images), PNG otherwise (no Accept, */*, image/*); `Vary: Accept`. With `v` equal to the session\'s `document.pages_version` the image is cached for a year (private); otherwise it is revalidated. The link is checked first, then the page (404 page_not_found) and the width (400 invalid_parameter), before anything is rendered. No API key.',
    ok: { status: 200, description: 'The page as lossless WebP or PNG, as Accept asks.', media: { 'image/webp': { type: 'string', contentMediaType: 'image/webp' }, 'image/png': { type: 'string', contentMediaType: 'image/png' } } },
    errors: [...SIGNING_LINK, 'page_not_found', 'invalid_parameter', 'pin_verification_required', 'download_expired', ...PDF_WORK],
    query: {
      w: { description: 'Width in pixels: 480 (default), 720 or 960.', schema: { type: 'integer', enum: [480, 720, 960] } },
      v: { description: 'The session\'s document.pages_version; makes the response cacheable for good.', schema: { type: 'string' } },
    },
  },
  SigningPage_page: {
    summary: 'Signing page',
    description: 'The HTML page a signing link opens; it calls the /signing/{token} operations. No API key.',
    ok: { status: 200, description: 'HTML page.', media: { 'text/html': { type: 'string' } } },
    errors: [],
  },
  SigningPage_asset: {
    summary: 'Signing page asset',
    description: 'Script and style sheet of the signing page. No API key.',
    ok: { status: 200, description: 'The asset.', media: { 'text/css': { type: 'string' }, 'text/javascript': { type: 'string' } } },
    errors: ['resource_not_found'],
  },
  SigningPage_font: {
    summary: 'Signing page font slice',
    description:
      'Noto Sans KR in unicode-range slices (`nskr-<n>-<hash>.woff2`, cached for a year) and `fonts.css`, the @font-face rules naming them, so a browser without a Korean font downloads only the slices of the characters on screen. No API key.',
    ok: { status: 200, description: 'The slice or its style sheet.', media: { 'font/woff2': { type: 'string', contentMediaType: 'font/woff2' }, 'text/css': { type: 'string' } } },
    errors: ['resource_not_found'],
  },
  // ---- field-placement editor (issue 34)
  EditSessions_forDocument: {
    summary: 'Open the field-placement editor for a document',
    description:
      'A one-time URL (valid 5 minutes) of the editor page, for an iframe in your product: the user sees every part\'s pages, drops fields on them, assigns them to participants and saves (or sends, with actions send). Every save is PUT /documents/{id}/fields as this API key: the same validation, command and errors. The URL opens once; the page then works for session_seconds. Framed only by the organization\'s embed_origins. Auditor keys are refused (403), another organization\'s id is 404. See docs/API.md, "Embedded field placement".',
    ok: { status: 201, description: 'The editor URL.', json: S.EditSessionSchema },
    errors: ['document_not_found'],
    bodyRequired: false,
  },
  EditSessions_forTemplate: {
    summary: 'Open the field-placement editor for a template',
    description:
      'As for a document, on a template: fields are assigned to its roles and a save is PATCH /templates/{id} with fields (a new version), with the same validation and errors. actions send is refused (400): documents are made from a template by POST /signature_requests. An archived template is 404.',
    ok: { status: 201, description: 'The editor URL.', json: S.EditSessionSchema },
    errors: ['template_not_found'],
    bodyRequired: false,
  },
  Editor_view: {
    summary: 'The editor session',
    description: 'What the editor page shows: the document or template, every part with its page count, the fields, the participants or roles, the allowed actions, the locale and the brand. The session secret is the credential (no API key).',
    ok: { status: 200, description: 'The session.', json: S.EditorSessionSchema },
    errors: ['edit_session_invalid', 'edit_session_expired', 'document_not_found', 'template_not_found', ...PDF_WORK],
  },
  Editor_page: {
    summary: 'A page of one part as an image, for the editor',
    description: 'Page n (1-based) of part `part` as a PNG `w` pixels wide (480, 720 or 960), rendered once per PDF, page and width in the PDF pool; with `v` equal to the part\'s pages_version cached for a year (private).',
    ok: { status: 200, description: 'The page as a PNG.', media: { 'image/png': { type: 'string', contentMediaType: 'image/png' } } },
    errors: ['edit_session_invalid', 'edit_session_expired', 'page_not_found', 'invalid_parameter', 'document_not_found', 'template_not_found', ...PDF_WORK],
    query: {
      w: { description: 'Width in pixels: 480 (default), 720 or 960.', schema: { type: 'integer', enum: [480, 720, 960] } },
      v: { description: 'The part\'s pages_version; makes the response cacheable for good.', schema: { type: 'string' } },
    },
  },
  Editor_lines: {
    summary: 'Where the text lines of a part\'s pages are, for the editor',
    description: 'The baselines of the text lines of every page of part `part` (PDFium\'s text layer, found once per PDF in the PDF pool), in percent of the page height: the editor snaps a dropped or dragged field\'s bottom edge to the nearest one. A scanned page has none.',
    ok: { status: 200, description: 'The lines, page by page.', json: S.EditorTextLinesSchema },
    errors: ['edit_session_invalid', 'edit_session_expired', 'page_not_found', 'document_not_found', 'template_not_found', ...PDF_WORK],
  },
  Editor_save: {
    summary: 'Save the fields',
    description:
      'Replaces the fields as PUT /documents/{id}/fields (kind document) or PATCH /templates/{id} with fields (kind template) does, as the API key that opened the session: the same validation and the same errors, whose param names the field (fields[i]…). A document already sent is refused (409 document_not_editable) as the API refuses it. Answers the dojang.editor.saved event the page posts to its parent.',
    ok: { status: 200, description: 'The saved event.', json: S.EditorEventSchema },
    errors: ['edit_session_invalid', 'edit_session_expired', 'edit_action_not_allowed', 'missing_parameter', 'invalid_parameter', 'field_values_too_large', ...DRAFT_EDIT, 'template_not_found', 'template_archived', ...TEMPLATE_LAYOUT],
  },
  Editor_send: {
    summary: 'Send the document',
    description: 'POST /documents/{id}/send with its defaults (expiry, no message), as the key that opened the session; the session then ends. Only with actions send.',
    ok: { status: 200, description: 'The sent event.', json: S.EditorEventSchema },
    errors: ['edit_session_invalid', 'edit_session_expired', 'edit_action_not_allowed', 'document_not_found', 'document_not_editable', 'insufficient_credits', 'signing_unavailable', ...PDF_WORK],
    bodyRequired: false,
  },
  Editor_cancel: {
    summary: 'Close the editor',
    description: 'The user cancelled: nothing is written and the session ends. Answers the dojang.editor.cancelled event.',
    ok: { status: 200, description: 'The cancelled event.', json: S.EditorEventSchema },
    errors: ['edit_session_invalid', 'edit_session_expired'],
    bodyRequired: false,
  },
  EditorPage_page: {
    summary: 'Field-placement editor page',
    description:
      'The HTML page an edit session URL opens. Opening it redeems the URL (a second opening, or one after its minutes, gets a page saying so, 410; an unknown one 404) and hands the page its session. Framed only by the organization\'s embed_origins (CSP frame-ancestors). No API key.',
    ok: { status: 200, description: 'HTML page.', media: { 'text/html': { type: 'string' } } },
    errors: [],
    pages: {
      404: { description: 'A page saying the link is not valid (never issued or mistyped); nothing editable.' },
      410: { description: 'A page saying the link was opened already or has expired; nothing editable.' },
    },
  },
  EditorPage_asset: {
    summary: 'Editor page asset',
    description: 'Script and style sheet of the editor page. No API key.',
    ok: { status: 200, description: 'The asset.', media: { 'text/css': { type: 'string' }, 'text/javascript': { type: 'string' } } },
    errors: ['resource_not_found'],
  },
  // ---- public verification
  PublicVerify_verify: {
    summary: 'Verify a PDF (public)',
    description:
      'No API key. multipart/form-data with a PDF in the part `file` (at most 32 MB). Answers whether this service issued exactly that file (its SHA-256 is one of the final PDFs it recorded, or this service\'s signature covers the whole file), whether it was altered, whether its signatures and timestamps verify (each with its signing certificate\'s subject, SHA-256 fingerprint and chain, the time it is proven to have existed, what its embedded revocation data says, and whether its chain reaches a configured trust anchor: VERIFY_TRUST_ANCHORS; without one every signature says "untrusted issuer") and whether long-term validation material is present, and for an issued file whether its document\'s log verifies, when it was completed and who took part, masked as the audit certificate masks them. Nothing else: no document or organization id. The file is read in the PDF worker pool and not kept (only its hash is answered). Rate limited per client address in a bucket of its own (VERIFY_RATE_LIMIT_PER_MINUTE, 20 by default). The page at /verify calls it.',
    ok: { status: 200, description: 'The verdict.', json: S.PdfVerificationSchema },
    errors: ['missing_parameter', 'invalid_parameter', 'unsupported_file_type', 'file_too_large', 'file_too_complex', 'rate_limit_error'],
    multipart: {
      schema: {
        type: 'object',
        required: ['file'],
        properties: { file: { type: 'string', contentMediaType: 'application/pdf', description: 'The PDF to check, as a file part (with a filename).' } },
      },
      encoding: { file: { contentType: 'application/pdf' } },
    },
  },
  VerifyPage_page: {
    summary: 'Verify page',
    description: 'The public HTML page (Korean and English) where anyone drops a PDF to check it with POST /verify. No API key.',
    ok: { status: 200, description: 'HTML page.', media: { 'text/html': { type: 'string' } } },
    errors: [],
  },
  VerifyPage_asset: {
    summary: 'Verify page asset',
    description: 'Script and style sheet of the verify page. No API key.',
    ok: { status: 200, description: 'The asset.', media: { 'text/css': { type: 'string' }, 'text/javascript': { type: 'string' } } },
    errors: ['resource_not_found'],
  },
  // ---- events, outbox
  Events_list: {
    summary: 'List events',
    description: 'Events of this organization and mode, newest first: the same events webhooks deliver, for catching up on missed deliveries. Read with an auditor key, `data` is masked as every auditor read is (phones, e-mail addresses, and contacts inside reasons and messages).',
    ok: { status: 200, description: 'A page of events.', json: S.EventListSchema },
    errors: ['invalid_parameter'],
    query: { limit: LIMIT, starting_after: cursor('event') },
  },
  Events_get: {
    summary: 'Retrieve an event',
    description: 'One event by its evt_ id (also the webhook-id header of its deliveries). Masked for an auditor key, as the list is.',
    ok: { status: 200, description: 'The event.', json: S.EventSchema },
    errors: ['event_not_found'],
  },
  Extensions_list: {
    summary: 'List the rows of a plugin read model',
    description:
      'A read endpoint declared by a projection plugin loaded with PROJECTIONS (docs/EXTENDING.md): the rows of this organization and mode, by id descending. Each endpoint may declare filters: top-level fields given as query parameters (?month=2026-03), compared for equality. Readable with auditor keys.',
    ok: { status: 200, description: 'A page of rows.', json: S.ExtensionRowListSchema },
    errors: ['extension_not_found', 'invalid_parameter'],
    query: { limit: LIMIT, starting_after: cursor('row'), ending_before: { description: 'Cursor: the id of the first row of the next page; the page before it is returned.', schema: { type: 'string' } } },
  },
  Extensions_get: {
    summary: 'Retrieve a row of a plugin read model',
    description: 'One row by its id; another organization\'s or mode\'s row is 404 extension_row_not_found. Readable with auditor keys.',
    ok: { status: 200, description: 'The row.', json: S.ExtensionRowSchema },
    errors: ['extension_not_found', 'extension_row_not_found'],
  },
  Outbox_list: {
    summary: 'Test-mode outbox',
    description: 'Messages a test key\'s actions would have sent (signing requests, SMS PINs, reminders, completion mail), newest first. A PIN message has the PIN in `pin`. Live keys get 403 test_mode_only: their messages really go out.',
    ok: { status: 200, description: 'A page of messages.', json: S.OutboxMessageListSchema },
    errors: ['test_mode_only', 'invalid_parameter'],
    query: { limit: LIMIT },
  },
  // ---- files
  Files_upload: {
    summary: 'Upload a PDF',
    description: 'multipart/form-data with the PDF in the part `file` (at most 20 MB; judged by its bytes, not its Content-Type). The url in the answer is what POST /documents takes as file_url; it expires after an hour (GET /files/{id} issues a fresh one).',
    ok: { status: 201, description: 'The stored file.', json: S.FileSchema },
    errors: ['missing_parameter', 'invalid_parameter', 'unsupported_file_type', 'file_too_large', 'file_too_complex'],
    multipart: {
      schema: {
        type: 'object',
        required: ['file'],
        properties: { file: { type: 'string', contentMediaType: 'application/pdf', description: 'The PDF, as a file part (with a filename).' } },
      },
      encoding: { file: { contentType: 'application/pdf' } },
    },
  },
  Files_retrieve: {
    summary: 'Retrieve a file',
    description: 'The file object with a freshly signed url.',
    ok: { status: 200, description: 'The file.', json: S.FileSchema },
    errors: ['file_not_found'],
  },
  Files_content: {
    summary: 'Download an uploaded file',
    description: 'The bytes behind a file url. The url\'s signature is the credential: no API key. A wrong or expired signature is 404 file_not_found.',
    ok: { status: 200, description: 'The PDF (inline).', media: pdf },
    errors: ['file_not_found', ...PDF_WORK],
    query: {
      expires: { description: 'Expiry of the url, epoch seconds (part of the signed url).', schema: { type: 'integer', minimum: 0 }, required: true },
      signature: { description: 'Signature of the url (part of the signed url).', schema: { type: 'string' }, required: true },
    },
  },
  // ---- templates, seals
  Templates_create: {
    summary: 'Create a template',
    description:
      'An HTML body with {{variable}} placeholders; POST /documents with from_template and variables fills them. With roles (participants to fill in) and fields placed for them (validated as PUT /documents/{id}/fields validates fields, role for participant_id), POST /signature_requests with template_id sends a ready contract in one call. Instead of content, parts (several files, as POST /documents takes them); fields may give an anchor ({{type:name}} placeholder or PDF text) instead of coordinates, found when a document is made from the template. Checked at save as a send would check it, in the template\'s own render (bodies as written, placeholders included; `page` counts across the whole template, every part once, as a document\'s pages do): a field past the template\'s last page is 400 field_page_out_of_range naming fields[i].page, an anchor the render does not hold 400 anchor_not_found naming fields[i].anchor, a field covering more than half of another (anchored ones where their anchors land) 400 field_overlap naming fields[i], once any field is placed, a signer role without a required field 400 signer_without_required_field naming roles[i].role (roles with no fields at all are saved: their fields are placed next, e.g. in the field-placement editor, POST /templates/{id}/edit_session). Version 1.',
    ok: { status: 201, description: 'The template.', json: S.TemplateSchema },
    errors: ['missing_parameter', 'invalid_parameter', 'field_values_too_large', ...TEMPLATE_LAYOUT],
  },
  Templates_update: {
    summary: 'Update a template (new version)',
    description: 'What is given (name, content or parts, roles, fields) replaces the current version\'s; the rest is carried over into version n+1 (event TemplateUpdated). The same contract again makes no version. Documents already made keep the version they came from. The resulting template is checked as POST /templates checks one (pages, anchors, a field for every signer role).',
    ok: { status: 200, description: 'The template at its new version.', json: S.TemplateSchema },
    errors: ['missing_parameter', 'invalid_parameter', 'field_values_too_large', 'template_not_found', 'template_archived', ...TEMPLATE_LAYOUT],
  },
  Templates_replace: {
    summary: 'Replace a template (new version)',
    description: 'The whole contract of version n+1: name and content (or parts) required; roles and fields are none when absent.',
    ok: { status: 200, description: 'The template at its new version.', json: S.TemplateSchema },
    errors: ['missing_parameter', 'invalid_parameter', 'field_values_too_large', 'template_not_found', 'template_archived', ...TEMPLATE_LAYOUT],
  },
  Templates_archive: {
    summary: 'Archive a template',
    description: 'No longer listed, and no document can be made from it (409 template_archived). GET still shows it with archived: true; documents made from it are unchanged. Archiving twice changes nothing.',
    ok: { status: 200, description: 'The archived template.', json: S.ArchivedTemplateSchema },
    errors: ['template_not_found'],
  },
  Templates_list: {
    summary: 'List templates',
    description: 'Templates of this organization and mode, newest first, without their content.',
    ok: { status: 200, description: 'A page of templates.', json: S.TemplateListSchema },
    errors: ['invalid_parameter'],
    query: { limit: LIMIT, starting_after: cursor('template') },
  },
  Templates_get: {
    summary: 'Retrieve a template',
    description: 'The template with its content and variable names.',
    ok: { status: 200, description: 'The template.', json: S.TemplateSchema },
    errors: ['template_not_found'],
  },
  Seals_create: {
    summary: 'Create a seal',
    description: 'An organization seal for seal fields: generated (a round red seal rendered from company_name) or uploaded (a PNG or JPEG data URL, at most 1 MB).',
    ok: { status: 201, description: 'The seal.', json: S.SealSchema },
    errors: ['missing_parameter', 'invalid_parameter', 'file_too_large', 'unsupported_file_type'],
  },
  Seals_list: {
    summary: 'List seals',
    description: 'Seals of this organization and mode, newest first.',
    ok: { status: 200, description: 'A page of seals.', json: S.SealListSchema },
    errors: ['invalid_parameter'],
    query: { limit: LIMIT, starting_after: cursor('seal') },
  },
  Seals_get: {
    summary: 'Retrieve a seal',
    description: 'One seal of this organization and mode, with its image metadata and image_url.',
    ok: { status: 200, description: 'The seal.', json: S.SealSchema },
    errors: ['seal_not_found'],
  },
  Seals_image: {
    summary: 'Download a seal image',
    description: 'The seal\'s PNG or JPEG.',
    ok: { status: 200, description: 'The image.', media: { 'image/png': { type: 'string', contentMediaType: 'image/png' }, 'image/jpeg': { type: 'string', contentMediaType: 'image/jpeg' } } },
    errors: ['seal_not_found'],
  },
  SignatureRequests_create: {
    summary: 'Create and send in one call',
    description:
      'Creates the document, appends the recipient\'s signature line and field at the end of the body, adds the recipient (auth none) and sends, all or nothing. Idempotency-Key is required: a retry with the same key and body returns the first answer instead of sending twice. With template_id instead of content and recipient: the template\'s body (variables filled), its roles filled from roles (several recipients, sms_pin per role), its fields placed (values prefilled by field id; a field with an anchor found in the document\'s own parts now, 400 anchor_not_found naming fields[i].anchor, i the template field\'s index) and sent; every participant\'s link is in participants. A role left out, or a bad recipient, is 400 naming it (roles.employee.phone).',
    ok: { status: 201, description: 'The sent document, its recipient and signing link.', json: S.SignatureRequestSchema },
    // Inline (as SPEC shows it), or from a template.
    bodyShapes: [
      ['title', 'content', 'recipient'],
      ['template_id', 'roles'],
    ],
    errors: ['missing_parameter', 'invalid_parameter', 'insufficient_credits', 'missing_phone', 'phone_invalid', 'phone_not_mobile', 'field_value_invalid', 'template_not_found', 'template_archived', 'signer_without_required_field', 'field_page_out_of_range', 'anchor_not_found', 'anchor_out_of_page', 'field_overlap', ...PDF_WORK],
  },
  // ---- bulk sends
  BulkSends_create: {
    summary: 'Start a bulk send (JSON rows)',
    description:
      'One template to many recipients: up to 10,000 rows, each assigning the template\'s roles, its variables, prefilled values, metadata and an external_id (unique in the job). Every row is checked before anything is recorded: any problem refuses the whole job with 400 bulk_send_invalid_rows (param names the first: rows[3].employee.phone), unless skip_invalid_rows records those rows as failed. dry_run: true only validates and answers the report (object bulk_send_validation) with every problem by row and column. Otherwise the job is recorded (object bulk_send) and the worker sends its rows one at a time, resumably; a live job needs free signatures or credits for every valid row (402). The whole job is one request against the rate limit. A retry under the Idempotency-Key of an attempt that held credits but never started its job, made after the worker gave that hold back (10 minutes on), is refused with 409 bulk_send_abandoned: send again with a new key.',
    ok: { status: 200, description: 'The job (running), or with dry_run the validation report.', json: S.BulkSendStartSchema },
    errors: ['missing_parameter', 'invalid_parameter', 'bulk_send_invalid_rows', 'template_not_found', 'template_archived', 'insufficient_credits', 'bulk_send_abandoned'],
  },
  BulkSends_upload: {
    summary: 'Start a bulk send (CSV or XLSX upload)',
    description:
      'The rows as a file in the multipart part `file` (at most 10 MB): CSV in UTF-8 (with or without BOM) or EUC-KR, or XLSX (its first sheet). The first row names the columns: <role>.name, <role>.email, <role>.phone, <role>.auth, variables.<name>, values.<field id>, metadata.<key>, external_id. A bad header, an unknown column, a bad encoding or a bad row is 400 bulk_send_invalid_rows naming row and column, before anything is sent. The query takes what the JSON body takes.',
    ok: { status: 200, description: 'The job (running), or with dry_run=true the validation report.', json: S.BulkSendStartSchema },
    errors: ['missing_parameter', 'invalid_parameter', 'bulk_send_invalid_rows', 'template_not_found', 'template_archived', 'insufficient_credits', 'bulk_send_abandoned', 'file_too_large'],
    multipart: {
      schema: {
        type: 'object',
        required: ['file'],
        properties: { file: { type: 'string', contentMediaType: 'text/csv', description: 'The CSV or XLSX, as a file part.' } },
      },
    },
  },
  BulkSends_get: {
    summary: 'Retrieve a bulk send',
    description: 'Its status and rows per state (pending, sent, failed, canceled).',
    ok: { status: 200, description: 'The job.', json: S.BulkSendSchema },
    errors: ['bulk_send_not_found'],
  },
  BulkSends_rows: {
    summary: 'List a bulk send\'s rows',
    description: 'Rows with an outcome, in row order: the document a sent row made, or the error of a failed one naming its column. Rows not yet sent are not listed (counts.pending says how many).',
    ok: { status: 200, description: 'A page of rows.', json: S.BulkSendRowListSchema },
    errors: ['bulk_send_not_found', 'invalid_parameter'],
    query: {
      limit: { description: 'Page size, 1 to 1000 (default 100).', schema: { type: 'integer', minimum: 1, maximum: 1000, default: 100 } },
      starting_after: { description: 'A row number: the rows after it.', schema: { type: 'integer', minimum: 0 } },
      state: { description: 'Only sent or only failed rows.', schema: { type: 'string', enum: ['sent', 'failed'] } },
    },
  },
  BulkSends_cancel: {
    summary: 'Cancel a bulk send',
    description: 'The rows not yet sent are not sent (event BulkSendCanceled); the documents already sent stay sent (POST /bulk_sends/{id}/documents/cancel cancels them). Canceling twice changes nothing.',
    ok: { status: 200, description: 'The job.', json: S.BulkSendSchema },
    errors: ['bulk_send_not_found', 'bulk_send_not_running'],
    bodyRequired: false,
  },
  BulkSends_remindDocuments: {
    summary: 'Remind the signers of a bulk send\'s documents',
    description: 'POST /documents/{id}/remind for every document the job sent; those it does not apply to (completed, in the cooldown) are counted as skipped.',
    ok: { status: 200, description: 'How many were reminded and skipped.', json: S.BulkSendDocumentsResultSchema },
    errors: ['bulk_send_not_found'],
    bodyRequired: false,
  },
  BulkSends_cancelDocuments: {
    summary: 'Cancel a bulk send\'s documents',
    description: 'POST /documents/{id}/cancel for every document the job sent; documents already completed, declined or canceled are counted as skipped.',
    ok: { status: 200, description: 'How many were canceled and skipped.', json: S.BulkSendDocumentsResultSchema },
    errors: ['bulk_send_not_found'],
    bodyRequired: false,
  },
  // ---- webhook endpoints
  WebhookEndpoints_create: {
    summary: 'Register a webhook endpoint',
    description: 'Events of this organization and mode are POSTed to the url, signed per Standard Webhooks (webhook-id, webhook-timestamp, webhook-signature). The answer is the only one that carries the signing secret.',
    ok: { status: 201, description: 'The endpoint, with its secret.', json: S.CreatedWebhookEndpointSchema },
    errors: ['missing_parameter', 'invalid_parameter'],
  },
  WebhookEndpoints_list: {
    summary: 'List webhook endpoints',
    description: 'Endpoints of this organization and mode, newest first.',
    ok: { status: 200, description: 'A page of endpoints.', json: S.WebhookEndpointListSchema },
    errors: ['invalid_parameter'],
    query: { limit: LIMIT, starting_after: cursor('webhook endpoint') },
  },
  WebhookEndpoints_get: {
    summary: 'Retrieve a webhook endpoint',
    description: 'One endpoint (without its secret).',
    ok: { status: 200, description: 'The endpoint.', json: S.WebhookEndpointSchema },
    errors: ['webhook_endpoint_not_found'],
  },
  WebhookEndpoints_update: {
    summary: 'Update a webhook endpoint',
    description: 'Changes url, events or description, or enables/disables it (status, or its alias disabled).',
    ok: { status: 200, description: 'The endpoint.', json: S.WebhookEndpointSchema },
    errors: ['webhook_endpoint_not_found', 'invalid_parameter', 'missing_parameter'],
  },
  WebhookEndpoints_remove: {
    summary: 'Delete a webhook endpoint',
    description: 'Stops deliveries to it; pending deliveries are canceled.',
    ok: { status: 200, description: 'Deleted.', json: S.DeletedWebhookEndpointSchema },
    errors: ['webhook_endpoint_not_found'],
  },
  WebhookEndpoints_deliveries: {
    summary: 'List deliveries',
    description: 'Deliveries to this endpoint, newest first, with every attempt\'s status code, error and timing.',
    ok: { status: 200, description: 'A page of deliveries.', json: S.WebhookDeliveryListSchema },
    errors: ['webhook_endpoint_not_found', 'invalid_parameter'],
    query: { limit: LIMIT, starting_after: cursor('delivery') },
  },
  WebhookEndpoints_rotateSecret: {
    summary: 'Rotate a webhook endpoint\'s secret',
    description: 'Issues a new signing secret, shown only in this answer. For grace_period_seconds (default 86,400, at most 604,800) deliveries carry two signatures in webhook-signature, from the new and the old secret, so receivers can switch without losing a delivery.',
    ok: { status: 200, description: 'The endpoint with its new secret.', json: S.RotatedWebhookSecretSchema },
    errors: ['webhook_endpoint_not_found', 'invalid_parameter'],
  },
  WebhookEndpoints_test: {
    summary: 'Send a test event',
    description: 'Sends a webhook.test event to the endpoint now, signed like every delivery, and answers with the delivery and its attempt. A failed test is not retried.',
    ok: { status: 201, description: 'The test delivery.', json: S.WebhookDeliverySchema },
    errors: ['webhook_endpoint_not_found', 'webhook_endpoint_disabled'],
  },
  WebhookEndpoints_redeliver: {
    summary: 'Redeliver a past delivery',
    description: 'Sends a finished delivery (succeeded, failed or canceled) again now, with the same webhook-id and body, and adds the attempt to its log.',
    ok: { status: 200, description: 'The delivery with the new attempt.', json: S.WebhookDeliverySchema },
    errors: ['webhook_endpoint_not_found', 'webhook_delivery_not_found', 'webhook_delivery_in_progress', 'webhook_endpoint_disabled'],
  },

  // ---- auditing
  DocumentHistory_list: {
    summary: 'Read a document\'s stored history',
    description:
      'The stored events of the document\'s stream in order (revision, type, time, actor, masked data, prev_hash and hash), with the verification of the whole stored chain. With as_of, only the events up to that instant and the document as it was then; with include=deliveries, the chained records of the messages sent. Readable with auditor keys.',
    ok: { status: 200, description: 'A page of the history.', json: S.DocumentHistorySchema },
    errors: ['document_not_found', 'invalid_parameter'],
    query: {
      limit: LIMIT,
      starting_after: { description: 'Cursor: a revision; the page starts after it.', schema: { type: 'string', pattern: '^\\d{1,9}$' } },
      as_of: { description: 'An ISO 8601 instant with an offset (or a date): the history and the document as they were then.', schema: { type: 'string' } },
      include: { description: 'deliveries: also the chained delivery records.', schema: { type: 'string', enum: ['deliveries'] } },
    },
  },
  Evidence_bundle: {
    summary: 'Download the evidence bundle',
    description:
      'One ZIP with the stored events (events.jsonl, with their hashes), the delivery records (deliveries.jsonl, the delivery-<id> stream, likewise), the original and final PDFs, the files signers attached for attachment fields (attachments/<attachment_id>-<filename>), the audit certificate, the signing certificate (PEM; with final-signing-chain.pem the organization\'s own certificate when it signed final.pdf) and a manifest of SHA-256s, signed (manifest.json.jws). `npx dojang-verify bundle.zip` checks it offline. Readable with auditor keys: their bundle masks the events as /history does (no PIN or token hash, phones and e-mails masked) and the manifest lists the masked revisions (redacted_events). A concluded document whose certification (DocumentCertified, Dojang\'s signature over its concluded log) is no longer in its log (the certification ledger says it was made), or whose final PDF or an attachment is missing from the blob store, is refused with 500 evidence_incomplete naming what is missing: the certification is never made again over whatever the log then says.',
    ok: { status: 200, description: 'The ZIP.', media: { 'application/zip': { type: 'string', contentMediaType: 'application/zip' } } },
    errors: ['document_not_found', 'signing_unavailable', 'signing_certificate_invalid', ...PDF_WORK],
  },
  Admin_projections: {
    summary: 'Projection status (operators)',
    description: 'For each projection its version, checkpoint, lag behind the log (events and seconds), generation and last error. Needs Authorization: Bearer <ADMIN_TOKEN>, not an API key; answers 404 when the server has no ADMIN_TOKEN.',
    ok: { status: 200, description: 'Every projection\'s status.', json: S.ProjectionStatusListSchema },
    errors: ['invalid_admin_token', 'resource_not_found'],
  },
};
