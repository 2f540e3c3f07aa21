import type {
  ContentFormat,
  DateFormat,
  DocumentStatus,
  FieldType,
  MemberRole,
  ParticipantAuth,
  ParticipantRole,
  ParticipantStatus,
  WebhookDisableReason,
  WebhookEndpointStatus,
  WorkspaceKind,
} from '@dojang/domain';
import type { MessageKind, WebhookDeliveryStatus } from '@dojang/application';
import type { PublicEventData, PublicEventType } from '@dojang/projections';
import { component, FromSchema, JsonSchema, note } from './json-schema';

/**
 * Every JSON response body the API sends, written once as JSON Schema. The OpenAPI document
 * publishes these (openapi.document.ts) and the presenters return `FromSchema<…>` of them, so the
 * contract and the code that answers cannot drift apart: a field added on either side alone fails
 * `tsc`, and the end-to-end suites validate every response against the served document.
 */

// ---- building blocks ------------------------------------------------------------------------

const str = { type: 'string' } as const;
const int = { type: 'integer' } as const;
const num = { type: 'number' } as const;
const bool = { type: 'boolean' } as const;
const time = { type: 'string', format: 'date-time' } as const;
const timeOrNull = { type: ['string', 'null'], format: 'date-time' } as const;
const strOrNull = { type: ['string', 'null'] } as const;
const intOrNull = { type: ['integer', 'null'] } as const;
const uuid = { type: 'string', format: 'uuid' } as const;
const sha256 = { type: 'string', pattern: '^[0-9a-f]{64}$' } as const;
const konst = <const C extends string | boolean>(value: C) => ({ const: value }) as const;

/** Builds `{type: object, properties, required, additionalProperties: false}`: every property is required unless listed optional. */
function obj<const P extends Record<string, JsonSchema>, const O extends keyof P & string = never>(
  properties: P,
  optional: readonly O[] = [],
): { readonly type: 'object'; readonly properties: P; readonly required: readonly Exclude<keyof P & string, O>[]; readonly additionalProperties: false } {
  const required = Object.keys(properties).filter((k) => !(optional as readonly string[]).includes(k)) as Exclude<keyof P & string, O>[];
  return { type: 'object', properties, required, additionalProperties: false };
}

/** A named schema or null (3.1: a union with the null type). */
const orNull = <const S extends JsonSchema>(schema: S) => ({ oneOf: [schema, { type: 'null' }] }) as const;
const enumOf = <const E extends readonly string[]>(values: E) => ({ type: 'string', enum: values }) as const;
const arrayOf = <const S extends JsonSchema>(items: S) => ({ type: 'array', items }) as const;

/** `{object: 'list', data, has_more}`: every list answer. */
function list<const S extends JsonSchema>(name: string, item: S) {
  return component(
    name,
    obj({
      object: konst('list'),
      data: arrayOf(item),
      has_more: note('True when another page follows; pass the last id as starting_after.', bool),
    }),
  );
}

// ---- enums ---------------------------------------------------------------------------------

/** Type-level equality: a mismatch between a schema enum and the domain's union fails `tsc`. */
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
const same = <T extends true>(_proof?: T) => undefined;

export const DocumentStatusSchema = component(
  'DocumentStatus',
  note(
    'draft (editable), sent (out for signature), completed (everyone signed), canceled (by the sender), declined (by a participant), expired (deadline passed).',
    enumOf(['draft', 'sent', 'completed', 'canceled', 'declined', 'expired']),
  ),
);
same<Same<FromSchema<typeof DocumentStatusSchema>, DocumentStatus>>();

export const ParticipantStatusSchema = component(
  'ParticipantStatus',
  note('pending (not yet opened), viewed (link opened), signed, declined.', enumOf(['pending', 'viewed', 'signed', 'declined'])),
);
same<Same<FromSchema<typeof ParticipantStatusSchema>, ParticipantStatus>>();

export const ParticipantRoleSchema = component(
  'ParticipantRole',
  note('signer signs; reviewer approves without a signature field; cc receives a copy only.', enumOf(['signer', 'reviewer', 'cc'])),
);
same<Same<FromSchema<typeof ParticipantRoleSchema>, ParticipantRole>>();

export const ParticipantAuthSchema = component(
  'ParticipantAuth',
  note('sms_pin: a 6-digit PIN sent by SMS is verified before signing; none: the link alone suffices.', enumOf(['sms_pin', 'none'])),
);
same<Same<FromSchema<typeof ParticipantAuthSchema>, ParticipantAuth>>();

export const FieldTypeSchema = component(
  'FieldType',
  note(
    'signature (drawn) or seal (stamped) take images; the rest take values: initials, text, number, date (YYYY-MM-DD), signing_date (filled when its participant signs), checkbox, radio, dropdown, name, email, phone (filled from the participant), and attachment (a PDF, JPEG or PNG the signer uploads; its value is the attachment_id).',
    enumOf(['signature', 'seal', 'initials', 'text', 'number', 'date', 'signing_date', 'checkbox', 'radio', 'dropdown', 'name', 'email', 'phone', 'attachment']),
  ),
);
same<Same<FromSchema<typeof FieldTypeSchema>, FieldType>>();

export const ContentFormatSchema = component(
  'ContentFormat',
  note('html or text for a body written through the API, pdf for an uploaded file.', enumOf(['html', 'text', 'pdf'])),
);
same<Same<FromSchema<typeof ContentFormatSchema>, ContentFormat>>();

export const EventTypeSchema = component(
  'EventType',
  note(
    'Public event types, in the order they happen for a document: document.sent, document.viewed, participant.signed / participant.declined, then one of document.completed, document.declined, document.canceled, document.expired. bulk_send.completed is a job\'s, not a document\'s: every row of a bulk send was sent or failed.',
    enumOf([
      'document.sent',
      'document.viewed',
      'participant.signed',
      'participant.declined',
      'document.completed',
      'document.declined',
      'document.canceled',
      'document.expired',
      'bulk_send.completed',
    ]),
  ),
);
same<Same<FromSchema<typeof EventTypeSchema>, PublicEventType>>();

export const MemberRoleSchema = component('MemberRole', enumOf(['owner', 'admin', 'member', 'viewer']));
same<Same<FromSchema<typeof MemberRoleSchema>, MemberRole>>();

const WorkspaceKindSchema = enumOf(['personal', 'team']);
same<Same<FromSchema<typeof WorkspaceKindSchema>, WorkspaceKind>>();

const MessageKindSchema = enumOf(['signing_request', 'reminder', 'pin', 'completed', 'canceled', 'expired', 'declined']);
same<Same<FromSchema<typeof MessageKindSchema>, MessageKind>>();

const WebhookEndpointStatusSchema = enumOf(['enabled', 'disabled']);
same<Same<FromSchema<typeof WebhookEndpointStatusSchema>, WebhookEndpointStatus>>();
const WebhookDisableReasonSchema = enumOf(['requested', 'gone']);
same<Same<FromSchema<typeof WebhookDisableReasonSchema>, WebhookDisableReason>>();
const WebhookDeliveryStatusSchema = enumOf(['pending', 'delivering', 'succeeded', 'failed', 'canceled']);
same<Same<FromSchema<typeof WebhookDeliveryStatusSchema>, WebhookDeliveryStatus>>();

// ---- documents -----------------------------------------------------------------------------

export const ParticipantSchema = component(
  'Participant',
  obj({
    id: uuid,
    object: konst('participant'),
    name: str,
    phone: note('As stored: a Korean mobile as its domestic digits (01012345678), a number of another country in E.164 (+14155552671); null when none was given.', strOrNull),
    phone_e164: note('The same number in E.164 (+821012345678, +14155552671), for an SMS provider or a CRM; null when phone is null (or, recorded before the mobile-only rule, is not a valid number).', strOrNull),
    email: strOrNull,
    role: ParticipantRoleSchema,
    signing_order: note('Lower acts first; equal orders act in parallel.', { type: 'integer', minimum: 1 }),
    auth: ParticipantAuthSchema,
    status: ParticipantStatusSchema,
    viewed_at: timeOrNull,
    signed_at: timeOrNull,
    declined_at: timeOrNull,
    signing_url: note('This participant\'s signing link while the document is sent; null otherwise (and always null for auditor keys).', { type: ['string', 'null'], format: 'uri' }),
    redirect_url: note('Where the signing page sends the signer after signing or declining (https), with dojang_event, document_id and participant_id in the query; null when none.', { type: ['string', 'null'], format: 'uri' }),
    group: note('Signing group: participants with the same group (same role and signing_order) are asked together and the first of them to sign signs for all; null when none.', strOrNull),
    allow_delegation: note('Whether the participant may hand their signing to another person (POST /v1/signing/{token}/delegate).', bool),
    representative: note('Whether the participant signs for the sending organization: only a representative is offered, and may stamp, the organization\'s seals (seal_source organization).', bool),
    group_signed_by: note('In a signing group, the member who signed for this participant; null otherwise.', { type: ['string', 'null'], format: 'uuid' }),
    delegated_from: note('Who held this participant before each delegation, oldest first (names only).', arrayOf(obj({ name: str, delegated_at: time }))),
    channel: note('How messages reach them: auto, email, sms or kakao (KakaoTalk 알림톡, SMS/LMS when it fails or the number is not Korean).', enumOf(['auto', 'email', 'sms', 'kakao'])),
    language: note('Language of their messages when set; null: Korean, or English for a foreign phone number.', { type: ['string', 'null'], enum: ['ko', 'en', null] }),
  }),
);
export type ParticipantResponse = FromSchema<typeof ParticipantSchema>;

/** A value as recorded: text, numbers and dates as strings, checkbox and radio as booleans. */
const fieldValue = note('A string (text, number, YYYY-MM-DD date, option, name, email, phone) or a boolean (checkbox, radio).', { type: ['string', 'boolean'] });

/** How a field was placed by text in the document; page/x/y/width/height beside it are where it was found. */
const FieldAnchorSchema = component(
  'FieldAnchor',
  obj({
    text: note('The placeholder ({{signature:employee}}) or PDF text ((인)) the field was placed at.', str),
    occurrence: note('Which appearance of text, 1-based in reading order.', { type: 'integer', minimum: 1 }),
    offset_x: note('Percent of the page width added to the text\'s left edge.', num),
    offset_y: note('Percent of the page height added to the text\'s top edge.', num),
    width: note('The width asked for (percent); null: the text\'s own.', { type: ['number', 'null'] }),
    height: note('The height asked for (percent); null: the text\'s own.', { type: ['number', 'null'] }),
  }),
);

/** The settings of value fields: present on a field only when the sender set them. */
const FIELD_SETTINGS = {
  anchor: note('Present when the field was placed by an anchor (PUT /fields with anchor): page, x, y, width and height are where it resolved.', FieldAnchorSchema),
  label: str,
  read_only: bool,
  value: note('The sender\'s prefill; once its participant signed, the value they signed.', fieldValue),
  font_size: num,
  multiline: bool,
  max_length: int,
  pattern: str,
  pattern_message: str,
  min: num,
  max: num,
  decimals: int,
  number_format: enumOf(['plain', 'grouped', 'won', 'krw']),
  options: arrayOf(str),
  group: str,
  option: str,
  min_checked: int,
  max_checked: int,
  locale: enumOf(['ko', 'en']),
  accept: note('attachment: the kinds of file it takes, judged by the bytes (default all three).', arrayOf(enumOf(['pdf', 'jpeg', 'png']))),
  max_bytes: note('attachment: the largest upload in bytes (default 10 MiB, at most 25 MiB).', { type: 'integer', minimum: 1, maximum: 26214400 }),
} as const;
const FIELD_SETTING_KEYS = Object.keys(FIELD_SETTINGS) as (keyof typeof FIELD_SETTINGS)[];
const FieldSettingsSchema = obj(FIELD_SETTINGS, FIELD_SETTING_KEYS);
export type FieldSettingsResponse = FromSchema<typeof FieldSettingsSchema>;

const VALUE_FIELD_TYPE = note('The field\'s type (signature and seal record images, not values).', enumOf(['initials', 'text', 'number', 'date', 'signing_date', 'checkbox', 'radio', 'dropdown', 'name', 'email', 'phone', 'attachment']));

/** An attachment field's value: the uploaded file the attachment_id names. */
const AttachmentValueSchema = component(
  'AttachmentValue',
  obj({ attachment_id: str, filename: str, content_type: enumOf(['application/pdf', 'image/jpeg', 'image/png']), sha256, byte_size: int }),
);

export const FieldValueSchema = component(
  'FieldValue',
  obj({
    field_id: uuid,
    type: VALUE_FIELD_TYPE,
    label: strOrNull,
    value: fieldValue,
    attachment: note('attachment fields: the file (in the evidence bundle and the completed package under attachments/).', AttachmentValueSchema),
  }, ['attachment']),
);

/** What a form_data entry adds to the value (issue 32 item 3): the same in GET /form_data and document.completed. */
const ChosenOptionSchema = component('ChosenOption', obj({ value: str, label: str }));
const FORM_DATA_MAPPING = {
  template_field_key: note('The template field (its id in the template) this document field was made from: the same in every document of that template; null when the document was not made from a template.', strOrNull),
  group: note('radio and checkbox: the group the field belongs to; null otherwise.', strOrNull),
  option: note('radio: the option this button stands for; null otherwise.', strOrNull),
  selected: note(
    'What was chosen: for a radio button, its group\'s chosen option (value: the option, label: that button\'s label or the option), the same on every button of the group; for a dropdown, the chosen option; for a checked box of a checkbox group, the box (value: its template field key or field id, label: its label). null when nothing was chosen and for other types.',
    orNull(ChosenOptionSchema),
  ),
} as const;

export const FormDataSchema = component(
  'FormData',
  obj({
    object: konst('form_data'),
    document_id: uuid,
    status: DocumentStatusSchema,
    complete: note('Every participant with value fields has signed: no value will be added.', bool),
    values: note('Every recorded value by field id.', { type: 'object', additionalProperties: fieldValue }),
    data: note(
      'Every recorded value in field order, with its label, who filled it and when they signed.',
      arrayOf(
        obj({
          field_id: uuid,
          participant_id: uuid,
          type: VALUE_FIELD_TYPE,
          label: strOrNull,
          value: fieldValue,
          display_value: note('As the final PDF and the audit certificate show it (dates per the field\'s locale, else in the organization\'s date_format recorded when the document was sent, numbers per its number_format, ✓/□ for a checkbox, ●/○ and the option for a radio button, file name and SHA-256 for an attachment, which the final PDF lists on its 입력값 부록 annex; a value too long for its box is printed whole there too).', str),
          ...FORM_DATA_MAPPING,
          signed_at: time,
          attachment: note('attachment fields: the uploaded file.', AttachmentValueSchema),
        }, ['attachment']),
      ),
    ),
  }),
);
export type FormDataResponse = FromSchema<typeof FormDataSchema>;

export const FieldSchema = component(
  'Field',
  obj({
    object: konst('field'),
    id: uuid,
    participant_id: uuid,
    type: FieldTypeSchema,
    part: note('The part the field is on (0 for a one-part document).', { type: 'integer', minimum: 0 }),
    page: note('The page of the whole document, every part counted once (page n of part p is parts[p].first_page + n - 1): the numbering of the PDF\'s footers, the signing session and the page images (pages/{page}.png). Templates number their own render\'s pages the same way.', { type: 'integer', minimum: 1 }),
    x: note('Percent of the page width from the left edge.', { type: 'number', minimum: 0, maximum: 100 }),
    y: note('Percent of the page height from the top edge.', { type: 'number', minimum: 0, maximum: 100 }),
    width: { type: 'number', minimum: 0, maximum: 100 },
    height: { type: 'number', minimum: 0, maximum: 100 },
    required: bool,
    upload_only: note('Seal fields only: the signer must upload a seal image.', bool),
    ...FIELD_SETTINGS,
  }, FIELD_SETTING_KEYS),
);
export type FieldResponse = FromSchema<typeof FieldSchema>;

const DocumentFileSchema = component(
  'DocumentFile',
  obj({ id: note('The file_… id of the uploaded PDF.', str), sha256, byte_size: int, page_count: int }),
);

/** Where a part starts in the PDF the participants see (page n of the part is page first_page + n - 1 of the document). */
const PART_PLACE = {
  index: note('The part\'s index; fields name it as part.', { type: 'integer', minimum: 0 }),
  title: note('The part\'s heading, or null (part 0 of a one-part document: null, the document\'s title applies).', strOrNull),
  first_page: note('The part\'s first page in the document\'s PDF, pages counted across the whole document (fixed at send); null while an earlier part\'s pages are unknown (a draft body not yet rendered: placing fields renders it).', intOrNull),
  page_count: note('The part\'s pages; null until known (a draft body: once fields are placed, and at send).', intOrNull),
} as const;

export const DocumentPartSchema = component(
  'DocumentPart',
  obj({
    ...PART_PLACE,
    content_format: ContentFormatSchema,
    content: note('The part\'s body (HTML or text); null for an uploaded PDF.', strOrNull),
    file: note('The uploaded PDF of the part, or null.', orNull(DocumentFileSchema)),
  }),
);

const DOCUMENT_PROPERTIES = {
  id: uuid,
  object: konst('document'),
  livemode: note('true for documents made with a live key.', bool),
  status: DocumentStatusSchema,
  title: str,
  content: note('The body (HTML or text); null for an uploaded PDF.', strOrNull),
  content_format: ContentFormatSchema,
  file: note('The uploaded PDF the document was made from, or null.', orNull(DocumentFileSchema)),
  author_name: str,
  from_template: note('The template (tmpl_…) the document was made from, or null.', strOrNull),
  template_version: note('The version of from_template the document was made from (it keeps that version when the template changes later); null when not from a template or made before templates had versions.', intOrNull),
  show_title: note('Whether the rendered PDF prints the title as a heading above the body (create with show_title: false to leave it out).', bool),
  metadata: note('Your key-value pairs (at most 20 keys of 1 to 40 characters, values of at most 500): sent back in every webhook about the document.', { type: 'object', additionalProperties: str }),
  external_id: note('Your own id for the document (given at creation, or by its bulk send row\'s external_id column), or null: sent back in every webhook about the document; GET /documents?external_id= finds it.', strOrNull),
  edit_locked: bool,
  page_count: note('Pages of the PDF, known once sent (or from an uploaded file).', intOrNull),
  created_at: time,
  updated_at: time,
  sent_at: timeOrNull,
  expires_at: timeOrNull,
  completed_at: timeOrNull,
  final_pdf_sha256: note('SHA-256 of the signed final PDF once completed.', { type: ['string', 'null'], pattern: '^[0-9a-f]{64}$' }),
  participants: arrayOf(ParticipantSchema),
  parts: note('The document\'s parts in order (docs/API.md, "Documents of several parts"); a document made with content or file_url has one.', arrayOf(DocumentPartSchema)),
  fields: arrayOf(FieldSchema),
} as const;

export const DocumentSchema = component('Document', obj(DOCUMENT_PROPERTIES));
export type DocumentResponse = FromSchema<typeof DocumentSchema>;

export const DocumentListSchema = list('DocumentList', DocumentSchema);
export type DocumentListResponse = FromSchema<typeof DocumentListSchema>;

export const DeletedDocumentSchema = component('DeletedDocument', obj({ id: uuid, object: konst('document'), deleted: konst(true) }));
export type DeletedDocumentResponse = FromSchema<typeof DeletedDocumentSchema>;

export const ParticipantListSchema = list('ParticipantList', ParticipantSchema);
export type ParticipantListResponse = FromSchema<typeof ParticipantListSchema>;

export const DeletedParticipantSchema = component('DeletedParticipant', obj({ id: uuid, object: konst('participant'), deleted: konst(true) }));
export type DeletedParticipantResponse = FromSchema<typeof DeletedParticipantSchema>;

export const FieldListSchema = list('FieldList', FieldSchema);
export type FieldListResponse = FromSchema<typeof FieldListSchema>;

export const ReminderSchema = component(
  'Reminder',
  obj({
    object: konst('reminder'),
    document_id: uuid,
    participant_ids: note('Participants a reminder went to (those whose turn it is and who have not acted).', arrayOf(uuid)),
    reminded_at: time,
  }),
);
export type ReminderResponse = FromSchema<typeof ReminderSchema>;

export const AuditEntrySchema = component(
  'AuditEntry',
  obj(
    {
      object: konst('audit_entry'),
      event: enumOf(['created', 'sent', 'viewed', 'pin_sent', 'pin_failed', 'pin_verified', 'signed', 'declined', 'reminded', 'canceled', 'expired', 'completed', 'corrected', 'resent', 'delegated', 'group_signed', 'attachment_uploaded']),
      actor: note('Who acted, named the same in GET /audit, GET /history and the audit certificate: the participant\'s name (as it was then) for their own act (viewing, PIN, signing, declining, delegating), the API key (key_…) for an act made with a key (a correction, a resend, a cancel), or "system" for the service\'s own (expiry, automatic reminders, completion).', str),
      at: time,
      participant_id: uuid,
      ip: note('On viewed, signed, declined and PIN checks.', strOrNull),
      user_agent: strOrNull,
      auth_phone: note('Masked phone the PIN went to, on signed.', strOrNull),
      detail: note('Human-readable detail (masked: no full phone numbers or e-mail addresses).', str),
    },
    ['participant_id', 'ip', 'user_agent', 'auth_phone', 'detail'],
  ),
);
export type AuditEntryResponse = FromSchema<typeof AuditEntrySchema>;
export const AuditEntryListSchema = list('AuditEntryList', AuditEntrySchema);
export type AuditEntryListResponse = FromSchema<typeof AuditEntryListSchema>;

export const SignatureRequestSchema = component(
  'SignatureRequest',
  obj({
    ...DOCUMENT_PROPERTIES,
    participant: note('The recipient, as in participants. From a template: the first signer (or the first participant).', ParticipantSchema),
    signing_url: note('The recipient\'s signing link (also in participant.signing_url). From a template every participant\'s link is in participants.', { type: ['string', 'null'], format: 'uri' }),
    roles: note('From a template only: each role\'s participant id.', { type: 'object', additionalProperties: uuid }),
  }, ['roles']),
);
export type SignatureRequestResponse = FromSchema<typeof SignatureRequestSchema>;

// ---- events and webhooks -------------------------------------------------------------------

export const EventDataSchema = component(
  'EventData',
  obj(
    {
      document_id: note('Every document.* and participant.* event; absent from bulk_send.completed.', uuid),
      metadata: note('Every document.* and participant.* event: the document\'s metadata ({} when none), to map it back to your records; absent from bulk_send.completed.', { type: 'object', additionalProperties: str }),
      external_id: note('Every document.* and participant.* event: your id for the document (given at creation, or its bulk send row\'s external_id), or null; absent from bulk_send.completed.', strOrNull),
      participant_id: note('participant.* events and document.viewed / document.declined.', uuid),
      expires_at: note('document.sent: the signing deadline.', timeOrNull),
      signed_at: note('participant.signed.', time),
      reason: note('participant.declined: the reason the participant gave; document.canceled: the reason the sender gave, when they gave one.', str),
      completed_at: note('document.completed.', time),
      values: note('participant.signed: the values this participant filled (and the service filled for them), in field order; absent when none.', arrayOf(FieldValueSchema)),
      form_data: note(
        'document.completed: every participant\'s values, each with its template field key and, for radio, dropdown and checkbox groups, the option chosen; [] when there are none.',
        arrayOf(obj({ participant_id: uuid, field_id: uuid, type: VALUE_FIELD_TYPE, label: strOrNull, value: fieldValue, ...FORM_DATA_MAPPING, attachment: AttachmentValueSchema }, ['attachment'])),
      ),
      bulk_send_id: note('bulk_send.completed: the job (bulk_…; GET /bulk_sends/{id} and its rows).', str),
      template_id: note('bulk_send.completed: the template the job sent.', strOrNull),
      template_version: note('bulk_send.completed: the template version the job sent.', intOrNull),
      row_count: note('bulk_send.completed: rows in the job.', intOrNull),
      counts: note('bulk_send.completed: rows per state (pending and canceled are 0 for a completed job).', obj({ pending: int, sent: int, failed: int, canceled: int })),
      finished_at: note('bulk_send.completed: when the last row was sent or failed.', time),
    },
    [
      'document_id',
      'metadata',
      'external_id',
      'participant_id',
      'expires_at',
      'signed_at',
      'reason',
      'completed_at',
      'values',
      'form_data',
      'bulk_send_id',
      'template_id',
      'template_version',
      'row_count',
      'counts',
      'finished_at',
    ],
  ),
);
same<Same<FromSchema<typeof EventDataSchema>, PublicEventData>>();

export const EventSchema = component(
  'Event',
  obj({ id: note('evt_…; also the webhook-id header of its deliveries.', str), object: konst('event'), type: EventTypeSchema, created_at: time, livemode: bool, data: EventDataSchema }),
);
export type EventResponse = FromSchema<typeof EventSchema>;
export const EventListSchema = list('EventList', EventSchema);
export type EventListResponse = FromSchema<typeof EventListSchema>;

/** The data each event type carries (what a webhook receiver can rely on). */
export const EVENT_DATA_BY_TYPE: Record<PublicEventType, { required: string[]; description: string }> = {
  'document.sent': { required: ['document_id', 'metadata', 'external_id', 'expires_at'], description: 'A draft was sent: every participant has a signing link.' },
  'document.viewed': { required: ['document_id', 'metadata', 'external_id', 'participant_id'], description: 'A participant opened the signing link for the first time.' },
  'participant.signed': { required: ['document_id', 'metadata', 'external_id', 'participant_id', 'signed_at'], description: 'A participant signed; with signing_order the next participant is notified.' },
  'participant.declined': { required: ['document_id', 'metadata', 'external_id', 'participant_id', 'reason'], description: 'A participant declined to sign.' },
  'document.completed': { required: ['document_id', 'metadata', 'external_id', 'completed_at', 'form_data'], description: 'Everyone signed; the final PDF can be downloaded.' },
  'document.declined': { required: ['document_id', 'metadata', 'external_id', 'participant_id'], description: 'The document ended because a participant declined.' },
  'document.canceled': { required: ['document_id', 'metadata', 'external_id'], description: 'The sender canceled the request; the links no longer work. `reason` when the sender gave one.' },
  'document.expired': { required: ['document_id', 'metadata', 'external_id'], description: 'The deadline passed before everyone signed.' },
  'bulk_send.completed': {
    required: ['bulk_send_id', 'template_id', 'template_version', 'row_count', 'counts', 'finished_at'],
    description: 'Every row of a bulk send was sent or failed (sent once per job; a canceled job does not complete). No document_id: the job\'s documents are its rows (GET /bulk_sends/{id}/rows).',
  },
};

// ---- organization, outbox, files, templates, seals -----------------------------------------

const LogoSchema = component(
  'Logo',
  obj({
    url: note('Public, without an API key, cached for a year: the file name is the content hash, so a new logo has a new URL.', { type: 'string', format: 'uri' }),
    content_type: { type: 'string', enum: ['image/png', 'image/jpeg'] },
    width: int,
    height: int,
    byte_size: note('As stored: a PNG is re-encoded, a JPEG kept as uploaded.', int),
    sha256: { type: 'string', pattern: '^[0-9a-f]{64}$' },
  }),
);
const BrandSchema = component(
  'Brand',
  obj({
    display_name: note('Shown as the e-mail From name and subject prefix, the SMS prefix ([회사명]) and on the signing page; null: the organization\'s name.', strOrNull),
    color: note('#rrggbb for e-mail accents and the signing page header; null: Dojang\'s.', { type: ['string', 'null'], pattern: '^#[0-9a-f]{6}$' }),
    reply_to: note('Reply-To of e-mails; null: none (replies are not read).', { type: ['string', 'null'], format: 'email' }),
    logo: note(
      'The logo (PUT /organization/logo; DELETE removes it), shown in e-mail headers, on the signing page and on the audit certificate; null: none.',
      orNull(LogoSchema),
    ),
  }),
);
const QuietHoursSchema = component(
  'QuietHours',
  note('Local HH:MM window (in time_zone) in which automatic reminders wait until it ends; null: none. Default 21:00–08:00.', {
    type: ['object', 'null'],
    properties: { start: { type: 'string', pattern: '^([01]\\d|2[0-3]):[0-5]\\d$' }, end: { type: 'string', pattern: '^([01]\\d|2[0-3]):[0-5]\\d$' } },
    required: ['start', 'end'],
    additionalProperties: false,
  } as const),
);
const KakaoSettingsSchema = component(
  'KakaoSettings',
  note('KakaoTalk 알림톡: the channel\'s sender profile key and an approved template code per message kind; null: off (phones get SMS/LMS).', {
    type: ['object', 'null'],
    properties: {
      pf_id: { type: 'string' },
      templates: {
        type: 'object',
        properties: { signing_request: str, reminder: str, completed: str, canceled: str, expired: str, declined: str },
        additionalProperties: false,
      },
    },
    required: ['pf_id', 'templates'],
    additionalProperties: false,
  } as const),
);

export const OrganizationSchema = component(
  'Organization',
  obj({
    id: str,
    object: konst('organization'),
    name: str,
    workspace_kind: WorkspaceKindSchema,
    plan: note('e.g. business.', str),
    livemode: note('Whether the calling key is a live key.', bool),
    created_at: time,
    settings: obj({
      default_expiry_days: { type: 'integer', minimum: 1, maximum: 365 },
      reminder_interval_days: intOrNull,
      embed_origins: note('Origins allowed to frame the signing page (CSP frame-ancestors); empty: none.', arrayOf(str)),
    }),
    brand: BrandSchema,
    time_zone: note('IANA zone (default Asia/Seoul): expires_on dates end at 23:59:59.999 there, and every time in messages, the signing page and the audit certificate is shown there with its zone.', str),
    quiet_hours: QuietHoursSchema,
    date_format: note(
      'How the organization\'s documents print dates: a date field\'s value in the final PDF, the audit certificate and form_data\'s display_value (unless the field gives its own locale), and the date of every time in its Korean messages. Recorded on each document when it is sent: a later change leaves sent documents as they were. Default "YYYY년 M월 D일".',
      enumOf(['YYYY년 M월 D일', 'YYYY. M. D.', 'YYYY.MM.DD', 'YYYY-MM-DD'] satisfies readonly DateFormat[]),
    ),
    kakao: KakaoSettingsSchema,
    usage: obj({
      period: note('The month usage is counted for, YYYY-MM (UTC).', { type: 'string', pattern: '^\\d{4}-\\d{2}$' }),
      free_signatures_per_month: int,
      free_signatures_remaining: int,
      credit_balance: note('May be fractional.', num),
    }),
  }),
);
export type OrganizationResponse = FromSchema<typeof OrganizationSchema>;

export const MemberSchema = component('Member', obj({ object: konst('member'), user_id: str, name: str, email: str, role: MemberRoleSchema }));
export const MemberListSchema = list('MemberList', MemberSchema);
export type MemberListResponse = FromSchema<typeof MemberListSchema>;

export const OutboxMessageSchema = component(
  'OutboxMessage',
  obj({
    id: str,
    object: konst('message'),
    kind: MessageKindSchema,
    channel: note('Which channel carried it: email, sms (SMS or LMS, see sms_type) or kakao (KakaoTalk 알림톡; in live mode an undelivered one is followed by an sms). KakaoTalk reaches Korean (+82) numbers only: a message to a foreign number is sms, as in live mode.', enumOf(['email', 'sms', 'kakao'])),
    to: str,
    subject: note('E-mail subject; for an LMS its subject.', strOrNull),
    body: str,
    sms_type: note('sms: SMS (at most 90 EUC-KR bytes) or LMS; null otherwise.', { type: ['string', 'null'], enum: ['SMS', 'LMS', null] }),
    template_id: note('kakao: the organization\'s approved template code it used; null otherwise.', strOrNull),
    from_name: note('email: the organization\'s name on the From header (its brand display_name); null: the installation\'s.', strOrNull),
    reply_to: note('email: the Reply-To (the brand\'s reply_to); null: none.', strOrNull),
    signing_url: { type: ['string', 'null'], format: 'uri' },
    pin: note('kind pin: the 6-digit PIN the SMS carries (test mode shows it so you can verify).', { type: ['string', 'null'], pattern: '^\\d{6}$' }),
    attachments: arrayOf(obj({ filename: str, content_type: str, byte_size: int })),
    document_id: uuid,
    participant_id: { type: ['string', 'null'], format: 'uuid' },
    created_at: time,
  }),
);
export const OutboxMessageListSchema = list('OutboxMessageList', OutboxMessageSchema);
export type OutboxMessageListResponse = FromSchema<typeof OutboxMessageListSchema>;

export const FileSchema = component(
  'File',
  obj({
    id: note('file_…', { type: 'string', pattern: '^file_[A-Za-z0-9]+$' }),
    object: konst('file'),
    url: note('Signed download URL; pass it as file_url to POST /documents before expires_at. Works without an API key.', { type: 'string', format: 'uri' }),
    byte_size: int,
    expires_at: note('End of the url\'s validity.', time),
    page_count: int,
    filename: strOrNull,
    sha256,
    livemode: bool,
    created_at: time,
  }),
);
export type FileResponse = FromSchema<typeof FileSchema>;

export const TemplateRoleSchema = component(
  'TemplateRole',
  obj({
    role: note('The template\'s name for the participant (employee, representative…): the key of roles in POST /signature_requests and the column prefix of a bulk send.', str),
    participant_role: ParticipantRoleSchema,
    signing_order: { type: 'integer', minimum: 1, maximum: 1000 },
    auth: ParticipantAuthSchema,
    representative: note('Whoever fills the role signs for the organization: may stamp its registered seals.', bool),
  }),
);

export const TemplateFieldSchema = component(
  'TemplateField',
  obj({
    id: note('Stable while the sender keeps it in later versions; what `values` in POST /signature_requests names.', uuid),
    role: note('The role the field is placed for.', str),
    type: FieldTypeSchema,
    part: note('The part the field is on (0 for a template of one body).', { type: 'integer', minimum: 0 }),
    page: note('With an anchor: 1 until a document made from the template finds the anchor.', { type: 'integer', minimum: 1 }),
    x: note('Percent of the page width from the left edge.', { type: 'number', minimum: 0, maximum: 100 }),
    y: note('Percent of the page height from the top edge.', { type: 'number', minimum: 0, maximum: 100 }),
    width: { type: 'number', minimum: 0, maximum: 100 },
    height: { type: 'number', minimum: 0, maximum: 100 },
    required: bool,
    upload_only: note('Seal fields only: the signer must upload a seal image.', bool),
    ...FIELD_SETTINGS,
  }, [...FIELD_SETTING_KEYS, 'part']),
);

const TEMPLATE_PROPERTIES = {
  id: note('tmpl_…', str),
  object: konst('template'),
  name: str,
  variables: note('The {{variable}} names the content uses; pass them as variables to POST /documents.', arrayOf(str)),
  version: note('1 at creation, one more per update (PATCH/PUT). Documents record the version they were made from.', { type: 'integer', minimum: 1 }),
  roles: note('The participants a document made from the template needs (empty for a body-only template).', arrayOf(TemplateRoleSchema)),
  archived: note('true after DELETE: no longer listed, and no document can be made from it.', bool),
  livemode: bool,
  created_at: time,
  updated_at: note('When the current version was made (or the template archived).', time),
} as const;
export const TemplateSummarySchema = component('TemplateSummary', obj(TEMPLATE_PROPERTIES));
export type TemplateSummaryResponse = FromSchema<typeof TemplateSummarySchema>;
export const TemplateSchema = component(
  'Template',
  obj({
    ...TEMPLATE_PROPERTIES,
    content: note('HTML with {{variable}} placeholders.', str),
    fields: note('The fields placed for the roles (the shape PUT /documents/{id}/fields takes, with role for participant_id).', arrayOf(TemplateFieldSchema)),
    parts: note(
      'Templates of several files only: the parts every document made from it holds, in order (content is then part 0\'s body, or empty when part 0 is a PDF).',
      arrayOf(
        obj({
          index: { type: 'integer', minimum: 0 },
          title: strOrNull,
          content_format: ContentFormatSchema,
          content: note('The part\'s body with {{variable}} placeholders; null for an uploaded PDF.', strOrNull),
          file: note('The uploaded PDF of the part, or null.', orNull(DocumentFileSchema)),
        }),
      ),
    ),
  }, ['parts']),
);
export type TemplateResponse = FromSchema<typeof TemplateSchema>;
export const ArchivedTemplateSchema = component('ArchivedTemplate', obj({ id: str, object: konst('template'), archived: konst(true), version: int }));
export type ArchivedTemplateResponse = FromSchema<typeof ArchivedTemplateSchema>;
export const TemplateListSchema = list('TemplateList', TemplateSummarySchema);
export type TemplateListResponse = FromSchema<typeof TemplateListSchema>;

export const SealSchema = component(
  'Seal',
  obj({
    id: note('seal_…', str),
    object: konst('seal'),
    name: str,
    type: enumOf(['corporate', 'usage']),
    source: enumOf(['generated', 'uploaded']),
    restricted: note('A restricted seal cannot be chosen through a signing link.', bool),
    company_name: note('The name a generated seal was rendered from; null for uploaded seals.', strOrNull),
    image: obj({ content_type: enumOf(['image/png', 'image/jpeg']), width: int, height: int, byte_size: int, sha256 }),
    image_url: note('GET it with the API key to download the image.', { type: 'string', format: 'uri' }),
    livemode: bool,
    created_at: time,
  }),
);
export type SealResponse = FromSchema<typeof SealSchema>;
export const SealListSchema = list('SealList', SealSchema);
export type SealListResponse = FromSchema<typeof SealListSchema>;

// ---- webhook endpoints ---------------------------------------------------------------------

const WEBHOOK_ENDPOINT_PROPERTIES = {
  id: note('whe_…', { type: 'string', pattern: '^whe_[0-9a-f]{24}$' }),
  object: konst('webhook_endpoint'),
  url: { type: 'string', format: 'uri' },
  events: note('Event types delivered; "*" means all, including types added later.', arrayOf(str)),
  description: strOrNull,
  status: WebhookEndpointStatusSchema,
  disabled_reason: note('requested (disabled through the API) or gone (the receiver answered 410).', { type: ['string', 'null'], enum: ['requested', 'gone', null] }),
  livemode: bool,
  created_at: time,
  updated_at: time,
} as const;
export const WebhookEndpointSchema = component('WebhookEndpoint', obj(WEBHOOK_ENDPOINT_PROPERTIES));
export type WebhookEndpointResponse = FromSchema<typeof WebhookEndpointSchema>;
export const CreatedWebhookEndpointSchema = component(
  'CreatedWebhookEndpoint',
  obj({ ...WEBHOOK_ENDPOINT_PROPERTIES, secret: note('whsec_…: the signing secret. Shown only in this response; store it.', str) }),
);
export type CreatedWebhookEndpointResponse = FromSchema<typeof CreatedWebhookEndpointSchema>;
export const WebhookEndpointListSchema = list('WebhookEndpointList', WebhookEndpointSchema);
export type WebhookEndpointListResponse = FromSchema<typeof WebhookEndpointListSchema>;
export const DeletedWebhookEndpointSchema = component('DeletedWebhookEndpoint', obj({ id: str, object: konst('webhook_endpoint'), deleted: konst(true) }));
export type DeletedWebhookEndpointResponse = FromSchema<typeof DeletedWebhookEndpointSchema>;

export const WebhookDeliverySchema = component(
  'WebhookDelivery',
  obj({
    id: note('del_…', str),
    object: konst('webhook_delivery'),
    endpoint_id: str,
    event_id: str,
    event_type: note('A public event type, or webhook.test for a test delivery.', { anyOf: [EventTypeSchema, konst('webhook.test')] }),
    webhook_id: note('The webhook-id header sent (= event_id): deduplicate on it.', str),
    status: WebhookDeliveryStatusSchema,
    attempt_count: int,
    attempts: arrayOf(
      obj({
        attempt: int,
        started_at: time,
        finished_at: timeOrNull,
        status_code: note('HTTP status the receiver answered, or null when none came.', intOrNull),
        error_code: strOrNull,
        error: strOrNull,
        duration_ms: intOrNull,
        response_body: note('The start of the receiver\'s answer.', strOrNull),
      }),
    ),
    next_attempt_at: note('When the next retry is scheduled (pending only).', timeOrNull),
    canceled_reason: { type: ['string', 'null'], enum: ['endpoint_disabled', 'endpoint_deleted', null] },
    livemode: bool,
    created_at: time,
    completed_at: timeOrNull,
  }),
);
export type WebhookDeliveryResponse = FromSchema<typeof WebhookDeliverySchema>;
export const RotatedWebhookSecretSchema = component(
  'RotatedWebhookSecret',
  obj({
    ...WEBHOOK_ENDPOINT_PROPERTIES,
    secret: note('The new whsec_… secret. Shown only in this response; store it.', str),
    previous_secret_expires_at: note('Until then deliveries carry signatures from both secrets; null without a grace period.', timeOrNull),
  }),
);
export type RotatedWebhookSecretResponse = FromSchema<typeof RotatedWebhookSecretSchema>;
export const WebhookDeliveryListSchema = list('WebhookDeliveryList', WebhookDeliverySchema);
export type WebhookDeliveryListResponse = FromSchema<typeof WebhookDeliveryListSchema>;

// ---- auditing ------------------------------------------------------------------------------

const ChainSummarySchema = component(
  'ChainSummary',
  obj(
    {
      head_hash: note('Hash of the stream\'s last stored event; null for an empty stream.', { type: ['string', 'null'], pattern: '^[0-9a-f]{64}$' }),
      event_count: int,
      verified: note('Whether every stored event links to its predecessor and hashes to its recorded hash.', bool),
      broken_at: note('Revision of the first event that does not verify.', int),
      reason: str,
    },
    ['broken_at', 'reason'],
  ),
);

export const HistoryEventSchema = component(
  'HistoryEvent',
  obj({
    object: konst('history_event'),
    id: note('The stored event id.', str),
    revision: int,
    type: note('The stored (domain) event type, e.g. DocumentSent.', str),
    occurred_at: time,
    actor: note('Who acted, named the same in GET /audit, GET /history and the audit certificate: the participant\'s name (as it was then) for their own act (viewing, PIN, signing, declining, delegating), the API key (key_…) for an act made with a key (a correction, a resend, a cancel), or "system" for the service\'s own (expiry, automatic reminders, completion).', str),
    data: note('The event\'s data, personal data masked as in the audit trail and hashes of secrets redacted.', {}),
    prev_hash: sha256,
    hash: sha256,
  }),
);

export const DocumentHistorySchema = component(
  'DocumentHistory',
  obj(
    {
      object: konst('list'),
      document_id: uuid,
      data: arrayOf(HistoryEventSchema),
      has_more: bool,
      chain: ChainSummarySchema,
      as_of: note('With ?as_of: the instant asked for.', time),
      document: note('With ?as_of: the document as it was at that instant.', DocumentSchema),
      deliveries: note(
        'With ?include=deliveries: the chained delivery records (delivery-<document_id> stream).',
        obj({ object: konst('list'), data: arrayOf(HistoryEventSchema), chain: ChainSummarySchema }),
      ),
    },
    ['as_of', 'document', 'deliveries'],
  ),
);
export type DocumentHistoryResponse = FromSchema<typeof DocumentHistorySchema>;

export const ProjectionStatusListSchema = component(
  'ProjectionStatusList',
  obj({
    projections: arrayOf(
      obj({
        name: str,
        version: int,
        checkpoint: int,
        lag_events: int,
        lag_seconds: num,
        generation: int,
        last_error: strOrNull,
        last_error_at: timeOrNull,
      }),
    ),
  }),
);
export type ProjectionStatusListResponse = FromSchema<typeof ProjectionStatusListSchema>;

// ---- signer side ---------------------------------------------------------------------------

const DRAFT_VALUES = note(
  'Values by field id, in the shapes POST /signing/{token}/sign takes (as signing records them: text trimmed, a number as its string); an attachment field\'s value is the attachment_id of POST …/attachments.',
  { type: 'object', additionalProperties: { oneOf: [str, bool] } } as const,
);

export const SigningDraftSchema = component(
  'SigningDraft',
  obj({
    object: konst('signing_draft'),
    values: DRAFT_VALUES,
    updated_at: time,
  }),
);
export type SigningDraftResponse = FromSchema<typeof SigningDraftSchema>;

export const SealPreviewSchema = component(
  'SealPreview',
  obj({
    object: konst('seal_preview'),
    shape: enumOf(['round', 'square']),
    text: note('The text set in the seal, trimmed (the participant\'s name unless text was given).', str),
    image: note('The seal as a PNG data URL: send it as seal_image with seal_source made, seal_shape and seal_text when signing.', str),
    sha256: note('SHA-256 of the PNG bytes: what the signing event records as seal.sha256.', sha256),
  }),
);
export type SealPreviewResponse = FromSchema<typeof SealPreviewSchema>;

export const SigningBodySchema = component(
  'SigningBody',
  obj({
    parts: note(
      'The document\'s parts in order: each part\'s body as sanitized HTML (the tags and attributes the PDF renderer draws; no scripts, styles, event handlers or links out) for a reading view that reflows to the screen; null for a part that is an uploaded PDF. The page images (and the PDF) remain what is signed.',
      arrayOf(obj({ title: str, html: strOrNull })),
    ),
  }),
);
export type SigningBodyResponse = FromSchema<typeof SigningBodySchema>;

export const SigningSessionSchema = component(
  'SigningSession',
  obj({
    object: konst('signing_session'),
    sender: note(
      'Who asks: the organization\'s brand name, colour and logo for the page header, and the zone the page shows times in.',
      obj({
        display_name: str,
        color: { type: ['string', 'null'], pattern: '^#[0-9a-f]{6}$' },
        time_zone: str,
        logo_url: note('The logo\'s path on this origin (/sign/brand/…), or null.', strOrNull),
      }),
    ),
    document: obj({
      id: uuid,
      title: str,
      status: DocumentStatusSchema,
      author_name: str,
      page_count: intOrNull,
      expires_at: timeOrNull,
      completed_at: timeOrNull,
      pages_version: note('Names the PDF the page images show (the final one once completed); pass it as `v` to GET /signing/{token}/pages/{n}.png so the images can be cached for good.', strOrNull),
      parts: note('The document\'s parts in order and where each starts; a field\'s page counts across the whole document, so its page image is pages/{page}.png.', arrayOf(obj(PART_PLACE))),
      date_format: note(
        'How this document prints dates: the organization\'s date_format recorded when it was sent. A date field\'s value in the final PDF, certificate and form_data is written this way unless the field gives its own locale; the signing page shows date values the same way.',
        enumOf(['YYYY년 M월 D일', 'YYYY. M. D.', 'YYYY.MM.DD', 'YYYY-MM-DD'] satisfies readonly DateFormat[]),
      ),
    }),
    participant: obj({
      id: uuid,
      name: str,
      role: ParticipantRoleSchema,
      status: ParticipantStatusSchema,
      auth: ParticipantAuthSchema,
      phone_masked: note('e.g. 010-****-5678', strOrNull),
      email_masked: note('e.g. g******@example.com: what an email field will print (in full), masked as the phone is', strOrNull),
      signed_at: timeOrNull,
      redirect_url: note('Where the page sends the signer after signing or declining; null when none.', { type: ['string', 'null'], format: 'uri' }),
    }),
    fields: note(
      'This participant\'s fields.',
      arrayOf(
        obj({
          id: uuid,
          type: FieldTypeSchema,
          part: int,
          page: int,
          x: num,
          y: num,
          width: num,
          height: num,
          required: bool,
          upload_only: bool,
          ...FIELD_SETTINGS,
        }, FIELD_SETTING_KEYS),
      ),
    ),
    other_fields: note(
      'The other participants\' fields, placement and type only (no values or identities), so the page can show the whole form; `participant_index` is the participant\'s position in the document (one colour each).',
      arrayOf(obj({ type: FieldTypeSchema, page: int, x: num, y: num, width: num, height: num, participant_index: int })),
    ),
    pin_required: bool,
    pin_verified: note('A verified PIN is good for a few minutes of signing. Once completed: whether the signed PDF may be served now (a PIN verified within the last 30 minutes); otherwise request a new PIN first.', bool),
    pin: note(
      'PIN state for sms_pin participants; null for auth none.',
      orNull(
        obj({
          requested: bool,
          expires_at: timeOrNull,
          resend_available_at: timeOrNull,
          attempts_left: { type: 'integer', minimum: 0 },
          locked: bool,
          link_locked: note('Three PINs were locked by wrong attempts: the link takes no more PINs until the sender reminds this participant (POST /documents/{id}/remind).', bool),
        }),
      ),
    ),
    your_turn: bool,
    can_sign: note('POST /sign would be accepted now (turn, PIN verified when required).', bool),
    waiting_for_others: note('Participants with a lower signing_order have not acted yet.', bool),
    draft: note(
      'What the signer saved so far under this link (PUT /signing/{token}/draft), to resume after a reload or on another device; null when none, and always null once the participant signed or declined, the document concluded or the link was replaced. Not a legal fact: never in the event log, the history or the audit trail.',
      orNull(obj({ values: DRAFT_VALUES, updated_at: time })),
    ),
    organization_seals: note(
      'The sending organization\'s seals this signer may stamp with seal_id (seal_source organization): its unrestricted seals, for a representative participant with a seal field that takes more than uploads; empty otherwise. image_url is a path on this origin.',
      arrayOf(obj({ id: str, name: str, image_url: str })),
    ),
  }),
);
export type SigningSessionResponse = FromSchema<typeof SigningSessionSchema>;

export const SigningDeclineSchema = component(
  'SigningDecline',
  obj({
    object: konst('signing_session'),
    document: obj({ id: uuid, status: konst('declined') }),
    participant: obj({ id: uuid, status: konst('declined') }),
  }),
);
export type SigningDeclineResponse = FromSchema<typeof SigningDeclineSchema>;

export const AttachmentSchema = component(
  'Attachment',
  obj({
    attachment_id: note('att_…: send it as the attachment field\'s value when signing.', str),
    field_id: uuid,
    filename: note('The file name the client sent (path and control characters removed).', str),
    content_type: note('What the bytes are (not what the client declared).', enumOf(['application/pdf', 'image/jpeg', 'image/png'])),
    size: note('Bytes stored (a PDF is stored without scripts, actions and embedded files).', int),
    sha256: note('SHA-256 of the stored file: the hash form_data, the audit certificate and the evidence bundle list.', sha256),
  }),
);
export type AttachmentResponse = FromSchema<typeof AttachmentSchema>;

export const DelegationSchema = component(
  'Delegation',
  obj({
    object: konst('delegation'),
    document_id: uuid,
    participant_id: note('The participant, now held by the delegate (same id, fields and order).', uuid),
    delegate: obj({ name: str, phone_masked: strOrNull, email_masked: strOrNull }),
    delegated_at: time,
  }),
);
export type DelegationResponse = FromSchema<typeof DelegationSchema>;

export const PinIssuedSchema = component(
  'PinIssued',
  obj({
    object: konst('pin'),
    sent_to: note('The masked phone the SMS went to (test mode: the outbox, message kind pin).', strOrNull),
    expires_at: time,
    resend_available_at: time,
  }),
);
export type PinIssuedResponse = FromSchema<typeof PinIssuedSchema>;

export const PinVerificationSchema = component('PinVerification', obj({ object: konst('pin_verification'), verified: konst(true) }));
export type PinVerificationResponse = FromSchema<typeof PinVerificationSchema>;

// ---- service -------------------------------------------------------------------------------

const StoreKindSchema = enumOf(['sqlite', 'postgres', 'esdb+mongo']);

export const HealthSchema = component(
  'Health',
  obj({
    status: konst('ok'),
    store: StoreKindSchema,
    event_store: enumOf(['sqlite', 'postgresql', 'eventstoredb']),
    read_store: enumOf(['sqlite', 'postgresql', 'mongodb']),
    log_position: note('Position of the newest event in the log.', int),
    projections_position: note('Position the read models have caught up to.', int),
  }),
);
export type HealthResponse = FromSchema<typeof HealthSchema>;

export const ReadinessSchema = component('Readiness', obj({ status: konst('ready'), store: StoreKindSchema, max_lag_events: { type: 'integer', minimum: 0 } }));
export type ReadinessResponse = FromSchema<typeof ReadinessSchema>;

/** The OpenAPI document itself: its own schema is the OpenAPI 3.1 specification. */
export const OpenApiDocumentSchema = component(
  'OpenApiDocument',
  { type: 'object', required: ['openapi', 'info', 'paths'], properties: { openapi: { type: 'string' } }, additionalProperties: true } as const,
);

// ---- plugin read models (GET /v1/extensions/{projection}/{endpoint}) ------------------------

export const ExtensionRowSchema = component(
  'ExtensionRow',
  note('A row of a plugin read model (PROJECTIONS): its fields are the plugin\'s own; id, organization_id and livemode are always there.', {
    type: 'object',
    required: ['id', 'organization_id', 'livemode'],
    properties: { id: str, organization_id: str, livemode: bool },
    additionalProperties: true,
  } as const),
);
export type ExtensionRowResponse = FromSchema<typeof ExtensionRowSchema>;
export const ExtensionRowListSchema = list('ExtensionRowList', ExtensionRowSchema);
export type ExtensionRowListResponse = FromSchema<typeof ExtensionRowListSchema>;


// ---- public verification (POST /verify) ----------------------------------------------------

const TimestampSchema = obj({
  valid: note('The token stamps exactly these bytes and its signature verifies with the authority certificate it carries.', bool),
  time: note('The time the authority vouches for.', timeOrNull),
  authority: note('The timestamp authority certificate subject.', strOrNull),
});

const PdfSignatureSchema = obj({
  kind: note('signature: a CMS signature (PAdES); document_timestamp: an RFC 3161 document timestamp (PAdES B-LTA).', enumOf(['signature', 'document_timestamp'])),
  valid: note('The bytes it covers hash to what it signed, and it verifies with the certificate in its CMS.', bool),
  covers_whole_file: note('It covers the file to its last byte (only the last signature can; earlier ones cover their revision).', bool),
  signer: note('Subject of the signing certificate, as the PDF names it.', strOrNull),
  by_this_service: note('Signed with this Dojang installation\'s document-signing certificate.', bool),
  timestamp: note('The signature\'s own RFC 3161 timestamp (PAdES B-T), or null.', orNull(TimestampSchema)),
  certificate_sha256: note('SHA-256 fingerprint of the signing certificate (DER): compare it with the one the operator publishes; a look-alike certificate has another.', strOrNull),
  chain: note('The signer\'s certificate chain as the file carries it (signature and DSS), signer first.', arrayOf(obj({ subject: str, sha256: note('SHA-256 of the certificate (DER).', sha256) }))),
  proven_at: note('When the signature is proven to have existed: its timestamp\'s time (the authority\'s, not the signer\'s clock); null when the time is only claimed.', timeOrNull),
  revocation: note('What the revocation data the file embeds (OCSP responses, CRLs in its DSS) says about the signing certificate at that time, or why it says nothing.', strOrNull),
  standing_problem: note('The signed bytes verify but the signature does not hold, and why: the certificate was revoked at the signature\'s time, was outside its validity then, its revocation is unknown (revocation data that is malformed, stale, about another certificate or signed by another key), or its chain reaches none of the configured trust anchors. null otherwise; valid is false whenever this is set.', strOrNull),
  trusted: note('The signer\'s chain reaches one of the trust anchors this installation is configured with (VERIFY_TRUST_ANCHORS; see trust_anchors). false when none is configured: trust is never implied. null for a document timestamp.', { type: ['boolean', 'null'] }),
  trust: note('The trust judgement in words: "trusted: the chain reaches the anchor …", or "untrusted issuer: …" (no trust anchor configured, or none reached; then valid is false). null for a document timestamp.', strOrNull),
});

const VerifiedParticipantSchema = obj({
  name: str,
  role: ParticipantRoleSchema,
  phone_masked: note('Masked as the audit certificate masks it (010-****-5678).', strOrNull),
  email_masked: note('Masked as the audit certificate masks it (k**@example.com).', strOrNull),
  signed_at: timeOrNull,
});

export const PdfVerificationSchema = component(
  'PdfVerification',
  obj({
    object: konst('pdf_verification'),
    verdict: note(
      'issued_unchanged: this service issued exactly this file and its signature holds; issued_signature_invalid: this service issued exactly this file, but its signature does not hold (the signing certificate was revoked or outside its validity at the signature\'s time, or its revocation is unknown: see signatures[].standing_problem); altered: the file carries this service\'s signature or a document head it sealed, but its bytes were changed; not_issued: this service did not issue it.',
      enumOf(['issued_unchanged', 'issued_signature_invalid', 'altered', 'not_issued']),
    ),
    sha256: note('SHA-256 of the file you sent (the file itself is not kept).', sha256),
    issued: note('This service issued exactly this file.', bool),
    unchanged: note('true: not a byte differs from what was issued; false: the file was altered; null: nothing to compare with (not issued here).', { type: ['boolean', 'null'] }),
    matched_by: note(
      'final_pdf_hash: the hash is one of the final PDFs this service recorded; chain_head_proof: a whole-file signature of this service over a document head it recorded (e.g. the audit certificate version); signature: a whole-file signature of this service, no document recorded for it.',
      { type: ['string', 'null'], enum: ['final_pdf_hash', 'chain_head_proof', 'signature', null] },
    ),
    signatures: arrayOf(PdfSignatureSchema),
    trust_anchors: note(
      'The trust anchors signatures were judged against (VERIFY_TRUST_ANCHORS), subject and SHA-256 each; empty when none is configured, and then every signature says "untrusted issuer".',
      arrayOf(obj({ subject: str, sha256: note('SHA-256 of the certificate (DER).', sha256) })),
    ),
    ltv: note('Long-term validation material in the file.', obj({ dss: note('A DSS dictionary (PAdES B-LT).', bool), revocation_data: note('The DSS holds OCSP responses or CRLs.', bool), document_timestamp: note('A document timestamp (PAdES B-LTA).', bool) })),
    document: note(
      'The issued document, when this file is one this service issued; null otherwise. Only what the audit certificate prints, masked the same way: no ids, no organization.',
      orNull(
        obj({
          title: str,
          livemode: note('false: made with a test key (not a real contract).', bool),
          completed_at: time,
          chain_verified: note('The document\'s event log verifies: every hash links, and the head sealed at completion verifies with this service\'s certificate.', bool),
          participants: arrayOf(VerifiedParticipantSchema),
        }),
      ),
    ),
  }),
);
export type PdfVerificationResponse = FromSchema<typeof PdfVerificationSchema>;
// ---- bulk sends ----------------------------------------------------------------------------

const BulkRowErrorSchema = component(
  'BulkSendRowError',
  obj({
    row: note('The data row (1 = the first row after the header; null: the header or the file itself).', intOrNull),
    column: note('The column (`employee.phone`, `variables.start_date`, `values.<field id>`, `external_id`); the template\'s field (`fields[0].page`, `fields[2].anchor`) when the row\'s variables lay its document out so that the field has no place; null for the whole row or file.', strOrNull),
    code: str,
    message: str,
  }),
);

export const BulkSendValidationSchema = component(
  'BulkSendValidation',
  obj({
    object: konst('bulk_send_validation'),
    template_id: str,
    template_version: int,
    row_count: int,
    valid_rows: int,
    errors: note('Every problem found, by row and column, by the very checks the job\'s send makes (each row\'s document laid out, its anchors found, its pages counted): a row without one fails in the job only on delivery. Empty when every row can be sent.', arrayOf(BulkRowErrorSchema)),
    warnings: note(
      'What will be sent but looks like a mistake: a row whose recipient\'s phone or e-mail an earlier row gave too (code duplicate_recipient; rows: both row numbers, the earlier first). A role whose recipient is the same in every row is not reported.',
      arrayOf(
        obj({
          row: int,
          column: note('The role\'s column (`employee.phone`, `직원.email`).', str),
          code: konst('duplicate_recipient'),
          message: str,
          rows: { type: 'array', items: int, minItems: 2, maxItems: 2 },
        }),
      ),
    ),
  }),
);
export type BulkSendValidationResponse = FromSchema<typeof BulkSendValidationSchema>;

export const BulkSendSchema = component(
  'BulkSend',
  obj({
    id: note('bulk_…', str),
    object: konst('bulk_send'),
    status: enumOf(['running', 'completed', 'canceled']),
    template_id: str,
    template_version: int,
    row_count: int,
    counts: note('Rows per state: pending = not sent yet.', obj({ pending: int, sent: int, failed: int, canceled: int })),
    livemode: bool,
    created_at: time,
    finished_at: timeOrNull,
  }),
);
export type BulkSendResponse = FromSchema<typeof BulkSendSchema>;

export const BulkSendRowSchema = component(
  'BulkSendRow',
  obj({
    object: konst('bulk_send_row'),
    row: int,
    state: enumOf(['sent', 'failed']),
    document_id: note('The document the row made (sent), or null.', { type: ['string', 'null'], format: 'uuid' }),
    external_id: strOrNull,
    error: note('Why the row failed, naming its column; null when sent.', orNull(obj({ code: str, message: str, column: strOrNull }))),
    at: time,
  }),
);
export const BulkSendRowListSchema = list('BulkSendRowList', BulkSendRowSchema);
export type BulkSendRowListResponse = FromSchema<typeof BulkSendRowListSchema>;

export const BulkSendDocumentsResultSchema = component(
  'BulkSendDocumentsResult',
  obj({
    object: konst('bulk_send_documents_result'),
    action: enumOf(['remind', 'cancel']),
    succeeded: note('Documents acted on.', int),
    skipped: note('Documents the action did not apply to (already completed, canceled, within the reminder cooldown…).', int),
  }),
);
export type BulkSendDocumentsResultResponse = FromSchema<typeof BulkSendDocumentsResultSchema>;

/** POST /bulk_sends answers the job, or with dry_run the validation report: `object` tells which. */
/** The job (bulk_send), or a dry run's report (bulk_send_validation): each closed, told apart by `object`. */
export const BulkSendStartSchema = component('BulkSendStart', {
  oneOf: [BulkSendSchema, BulkSendValidationSchema],
} as const);

/** GET/PUT/DELETE /organization/signing_certificate: the certificate that signs this organization's final PDFs. */
export const SigningCertificateSchema = component(
  'SigningCertificate',
  obj({
    object: konst('signing_certificate'),
    source: note("`organization`: the organization's own uploaded certificate signs its final PDFs; `platform`: the installation's key does.", enumOf(['organization', 'platform'])),
    subject: note('Distinguished name, e.g. CN=…, O=….', str),
    issuer: str,
    not_before: time,
    not_after: time,
    serial_number: note('Hex.', str),
    sha256_fingerprint: note("SHA-256 of the certificate's DER, lower-case hex: the fingerprint printed on audit certificates.", sha256),
    chain_pem: note('The signing certificate then the rest of its chain, PEM: embedded in every signature it makes (and in the DSS with PADES_LEVEL B-LT or B-LTA).', arrayOf(str)),
    uploaded_at: note('When the organization uploaded it; null for the platform key.', timeOrNull),
    validity: note(
      "Whether it may sign now. An organization's certificate that expired (or is not yet valid) after its upload does not sign: completions answer 503 `signing_unavailable` until the organization uploads a valid one or removes it (DELETE) to sign with the platform key.",
      enumOf(['valid', 'expired', 'not_yet_valid']),
    ),
    expired: note('true: not_after has passed (validity `expired`).', bool),
  }),
);
export type SigningCertificateResponse = FromSchema<typeof SigningCertificateSchema>;

/** POST /documents/{id}/edit_session, POST /templates/{id}/edit_session: the one-time URL of the field-placement editor. */
export const EditSessionSchema = component(
  'EditSession',
  obj({
    object: konst('edit_session'),
    url: note('The editor page for an iframe (or a new window): opens once, within expires_at. Its token is the credential; only its hash is kept.', { type: 'string', format: 'uri' }),
    expires_at: note('The URL must be opened before then (minutes from now); the opened editor then works for session_seconds.', time),
    session_seconds: note('How long the opened editor may save, send or preview.', int),
    kind: enumOf(['document', 'template']),
    document_id: note('kind document: the draft edited.', strOrNull),
    template_id: note('kind template: the template edited (a save makes a new version).', strOrNull),
    actions: arrayOf(enumOf(['save', 'send', 'preview'])),
    redirect_url: strOrNull,
    locale: enumOf(['ko', 'en']),
  }),
);
export type EditSessionResponse = FromSchema<typeof EditSessionSchema>;

/** GET /editor/{session}: what the editor page shows. */
export const EditorSessionSchema = component(
  'EditorSession',
  obj({
    object: konst('editor_session'),
    kind: enumOf(['document', 'template']),
    actions: arrayOf(enumOf(['save', 'send', 'preview'])),
    locale: enumOf(['ko', 'en']),
    redirect_url: strOrNull,
    expires_at: time,
    embed_origins: note('The origins that may frame the editor: its events are posted to these only.', arrayOf(str)),
    brand: obj({ display_name: str, color: note('The organization\'s brand colour (#rrggbb), or null.', strOrNull) }),
    document: orNull(obj({ id: uuid, title: str, status: DocumentStatusSchema, editable: note('Only a draft\'s fields change; a save after send is refused as PUT /documents/{id}/fields refuses it.', bool) })),
    template: orNull(obj({ id: str, name: str, version: int })),
    parts: note(
      'Every part in order with its page count; its pages are GET /editor/{session}/parts/{part}/pages/{n}.png. Field coordinates are percent of a page of their part.',
      arrayOf(obj({ index: int, title: strOrNull, page_count: int, pages_version: note('Changes with the part\'s PDF: pass it as v to cache page images.', str) })),
    ),
    participants: note('kind document: who fields can be assigned to.', arrayOf(obj({ id: uuid, name: str, role: ParticipantRoleSchema }))),
    roles: note('kind template: the roles fields can be assigned to.', arrayOf(TemplateRoleSchema)),
    fields: note('The fields as GET /documents/{id} (kind document) or GET /templates/{id} (kind template) shows them.', arrayOf({ anyOf: [FieldSchema, TemplateFieldSchema] } as const)),
  }),
);
export type EditorSessionResponse = FromSchema<typeof EditorSessionSchema>;

/** GET /editor/{session}/parts/{part}/lines: where the text lines of a part's pages are, for snapping. */
export const EditorTextLinesSchema = component(
  'EditorTextLines',
  obj({
    object: konst('text_lines'),
    part: int,
    pages: note(
      'One entry per page of the part, in order: the y of each text line\'s baseline in percent of the page height from its top, sorted (empty for a page without a text layer, such as a scan).',
      arrayOf(obj({ page: int, lines: arrayOf({ type: 'number', minimum: 0, maximum: 100 } as const) })),
    ),
  }),
);
export type EditorTextLinesResponse = FromSchema<typeof EditorTextLinesSchema>;

/** What the editor's save, send and close answer: the event the page posts to its parent. */
export const EditorEventSchema = component(
  'EditorEvent',
  obj({
    object: konst('editor_event'),
    type: note('The postMessage type the page sends to the parent window: dojang.editor.saved, dojang.editor.sent or dojang.editor.cancelled.', enumOf(['dojang.editor.saved', 'dojang.editor.sent', 'dojang.editor.cancelled'])),
    document_id: strOrNull,
    template_id: strOrNull,
    template_version: note('kind template, after a save: the version it made.', intOrNull),
    field_count: note('After a save: how many fields the document or template now has.', intOrNull),
    redirect_url: note('Where the frame goes next (the session\'s redirect_url with dojang_event and the ids), or null.', strOrNull),
  }),
);
export type EditorEventResponse = FromSchema<typeof EditorEventSchema>;
