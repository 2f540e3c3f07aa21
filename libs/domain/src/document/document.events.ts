import { DomainEvent } from '../shared/decider';
import { AttachmentContentType, DateFormat, FieldSettings, FieldType, FieldValueEntry, FormDataEntry } from './field-types';
import type { FieldAnchor } from './field-anchor';

export type { FieldType } from './field-types';

export type ParticipantRole = 'signer' | 'reviewer' | 'cc';
export type ParticipantAuth = 'sms_pin' | 'none';
export type ContentFormat = 'html' | 'text' | 'pdf';

export interface ParticipantSetup {
  id: string;
  name: string;
  phone: string | null;
  email: string | null;
  role: ParticipantRole;
  signing_order: number;
  auth: ParticipantAuth;
  /** Embedded signing: where the signing page sends the signer after signing or declining (https). */
  redirect_url?: string | null;
  /**
   * A signing group: participants with the same group (and the same role and signing_order) are
   * asked together, and the first of them to sign signs for all (SigningGroupSatisfied).
   */
  group?: string | null;
  /** Whether this participant may hand their signing over to another person (ParticipantDelegated). */
  allow_delegation?: boolean;
  /**
   * How messages reach the participant: `auto` (absent: e-mail when there is an address, and the
   * phone too for requests and reminders, by KakaoTalk when the organization set it up, else SMS),
   * or only `email`, only `sms`, or only `kakao` (falling back to SMS when KakaoTalk fails).
   */
  channel?: ParticipantChannel;
  /** The language of their messages; absent: Korean for a Korean (or no) number, English for a foreign one. */
  language?: MessageLanguage;
  /**
   * Signs for the sending organization: only a representative is offered, and may stamp, the
   * organization's registered seals (seal source `organization`). Absent: false, so events recorded
   * before it fold unchanged.
   */
  representative?: boolean;
}

export type ParticipantChannel = 'auto' | 'email' | 'sms' | 'kakao';
/**
 * Where a signer's seal came from: made from a name on the server (POST …/seal_preview), drawn on
 * the page, uploaded as an image, or one of the organization's registered seals (seal_id).
 */
export type SigningSealSource = 'made' | 'drawn' | 'uploaded' | 'organization';
export const SIGNING_SEAL_SOURCES: readonly SigningSealSource[] = ['made', 'drawn', 'uploaded', 'organization'];
export const PARTICIPANT_CHANNELS: readonly ParticipantChannel[] = ['auto', 'email', 'sms', 'kakao'];
export type MessageLanguage = 'ko' | 'en';
export const MESSAGE_LANGUAGES: readonly MessageLanguage[] = ['ko', 'en'];

/** A placement (SPEC's Field) and, for value fields, its settings (field-types.ts). */
export interface Field extends FieldSettings {
  id: string;
  participant_id: string;
  type: FieldType;
  page: number;
  x: number;
  y: number;
  width: number;
  height: number;
  required: boolean;
  upload_only: boolean;
  /** The part the field is on (document-parts.ts); `page` counts within it. Absent: part 0. */
  part?: number;
  /** Placed by an anchor (field-anchor.ts): page/x/y/width/height are where it was found. Absent on coordinate fields. */
  anchor?: FieldAnchor;
  /** Made from a template: the template field's id, the same in every document of that template. Absent otherwise. */
  template_field_key?: string;
}

export interface FileRef {
  file_id: string;
  sha256: string;
  byte_size: number;
  page_count: number;
}

export interface BlobPointer {
  sha256: string;
  byte_size: number;
}

/**
 * A document's or template's body, kept out of the event (EventStoreDB refuses appends over
 * 1 MiB; bodies reach 2,000,000 characters): the blob store holds its UTF-8 bytes.
 */
export interface BodyRef extends BlobPointer {
  /**
   * The text itself, only on events recorded before bodies left the events (schema_version 1):
   * the upcaster moves their inline `content` here, since stored events are never rewritten.
   */
  inline?: string;
}

/** One part of a document of several (document-parts.ts). */
export interface DocumentPart {
  /** Printed as the part's heading (HTML/text parts); null: none (part 0: the document's title, as show_title says). */
  title: string | null;
  content_blob: BodyRef | null;
  content_format: ContentFormat;
  file: FileRef | null;
}

/** Where a part landed in the joined PDF, fixed at send. */
export interface PartPages {
  first_page: number;
  page_count: number;
}

export type DocumentCreated = DomainEvent<
  'DocumentCreated',
  {
    document_id: string;
    organization_id: string;
    livemode: boolean;
    title: string;
    /** The body (html/text); null for an uploaded PDF. */
    content_blob: BodyRef | null;
    content_format: ContentFormat;
    file: FileRef | null;
    author_name: string;
    metadata: Record<string, string>;
    /**
     * The integrator's own id for the document (a bulk row's `external_id`, or given at creation),
     * returned in every webhook about it. Present only when given (older events: none, read as null).
     */
    external_id?: string;
    from_template: string | null;
    /** The template's version the document was made from (absent when not from a template, and in older events). */
    template_version?: number;
    duplicated_from: string | null;
    created_at: string;
    /** Present (false) only when the rendered PDF has no title heading above the body. */
    show_title?: boolean;
    /**
     * Present only on documents made with several parts (document-parts.ts); content_blob,
     * content_format and file above are then part 0's, so readers that know no parts see the first.
     */
    parts?: DocumentPart[];
  }
>;
export type DocumentUpdated = DomainEvent<
  'DocumentUpdated',
  {
    title?: string;
    content_blob?: BodyRef;
    author_name?: string;
    metadata?: Record<string, string>;
    /** Every part, replacing the draft's (content_blob, content_format and file then follow part 0). */
    parts?: DocumentPart[];
    updated_at: string;
  }
>;
export type DocumentEditLockChanged = DomainEvent<'DocumentEditLockChanged', { locked: boolean; at: string }>;
export type DocumentTrashed = DomainEvent<'DocumentTrashed', { trashed_at: string }>;
export type ParticipantAdded = DomainEvent<'ParticipantAdded', { participant: ParticipantSetup; added_at: string }>;
export type ParticipantRemoved = DomainEvent<'ParticipantRemoved', { participant_id: string; removed_at: string }>;
export type FieldsReplaced = DomainEvent<'FieldsReplaced', { fields: Field[]; replaced_at: string }>;
export type DocumentSent = DomainEvent<
  'DocumentSent',
  {
    sent_at: string;
    expires_at: string | null;
    message: string | null;
    page_count: number;
    /** The PDF the participants are asked to sign, fixed at send (uploaded or rendered). */
    original_pdf: BlobPointer | null;
    /** Documents of several parts: where each part starts in original_pdf (absent on one-part documents). */
    parts?: PartPages[];
    /**
     * How the document prints dates from now on (the organization's date_format at send): the
     * final PDF, the certificate and form_data agree whatever the setting becomes later. Absent
     * (older documents, or the default): 1995년 3월 15일.
     */
    date_format?: DateFormat;
    /** Only the SHA-256 of each signing token is kept; the token itself exists in the link alone. */
    links: Array<{ participant_id: string; token_hash: string }>;
  }
>;
export type SigningLinkOpened = DomainEvent<
  'SigningLinkOpened',
  { participant_id: string; opened_at: string; ip: string | null; user_agent: string | null }
>;
export type PinIssued = DomainEvent<
  'PinIssued',
  {
    participant_id: string;
    pin_hash: string;
    issued_at: string;
    expires_at: string;
    phone_masked: string;
    /** download: issued after completion to fetch the signed PDF (absent: to sign or decline). */
    purpose?: 'download';
  }
>;
export type PinVerificationFailed = DomainEvent<
  'PinVerificationFailed',
  {
    participant_id: string;
    failed_at: string;
    failed_attempts: number;
    locked: boolean;
    ip: string | null;
    /** wrong: a wrong PIN (counts toward the lock); locked / expired: refused without checking. */
    reason?: 'wrong' | 'locked' | 'expired';
  }
>;
export type PinVerified = DomainEvent<'PinVerified', { participant_id: string; verified_at: string; ip: string | null }>;
export type ParticipantSigned = DomainEvent<
  'ParticipantSigned',
  {
    participant_id: string;
    signed_at: string;
    signature: BlobPointer | null;
    /** source: how the signer got the seal (absent on signatures before it was recorded). */
    seal: { seal_id: string | null; image: BlobPointer; source?: SigningSealSource } | null;
    auth_method: ParticipantAuth;
    auth_phone_masked: string | null;
    ip: string | null;
    user_agent: string | null;
    /** What the participant filled (and the service filled for them): evidence, in field order. Absent when none. */
    values?: FieldValueEntry[];
  }
>;
export type ParticipantDeclined = DomainEvent<
  'ParticipantDeclined',
  { participant_id: string; declined_at: string; reason: string; ip: string | null; user_agent: string | null }
>;
/**
 * The stream's head as the server saw it when the last signature arrived, signed with the
 * document-signing key: an auditor who holds the certificate can tell a log that was edited and
 * re-hashed, or cut short, from the one the server wrote (libs/application/src/verification).
 */
export interface ChainHeadProof {
  /** Revision and hash of the last event before the completing append. */
  revision: number;
  hash: string;
  /** Events up to and including `revision`. */
  event_count: number;
  /** Events in the stream once the completing append (last signature + completion) is written. */
  completed_event_count: number;
  algorithm: 'RSA-SHA256';
  /** SHA-256 of the DER certificate whose key made `signature`. */
  certificate_sha256: string;
  /** Base64 signature over the canonical JSON of `chainHeadStatement(...)`. */
  signature: string;
}
export type DocumentCompleted = DomainEvent<
  'DocumentCompleted',
  {
    completed_at: string;
    original_sha256: string | null;
    final_pdf: BlobPointer | null;
    chain_head?: ChainHeadProof | null;
    /** Every participant's values, as their ParticipantSigned recorded them (for document.completed). Absent when none. */
    /** Every participant's values, each with its template field key, group, option and choice (FormDataEntry; older events: the value alone). */
    form_data?: Array<FieldValueEntry & { participant_id: string } & Partial<Omit<FormDataEntry, keyof FieldValueEntry | 'participant_id'>>>;
  }
>;
/** reason: what the sender told the participants (absent on events recorded before cancel reasons). */
export type DocumentCanceled = DomainEvent<'DocumentCanceled', { canceled_at: string; reason?: string | null }>;
export type DocumentDeclined = DomainEvent<'DocumentDeclined', { declined_at: string; participant_id: string }>;
export type DocumentExpired = DomainEvent<'DocumentExpired', { expired_at: string }>;
/**
 * Dojang's certification of a concluded document: the installation's document-signing key's
 * signature over the stream's head once it concluded (completed, declined, canceled or expired).
 * The head includes the events that concluded it, and `facts` states what they say
 * (libs/verifier/src/document-facts.ts), so a verifier names the fact an edit changed.
 * `timestamp_token`: an RFC 3161 token over the signature when a TSA is configured. Called a
 * "seal" before issue 35 ("seal" now means only a company stamp image); `sealed_at` keeps its name
 * because it is inside the signed statement, whose format ('dojang-seal-v1', frozen like the hash
 * chain) lives with the offline verifier (document-certification.ts).
 */
export interface DocumentCertification {
  head: { revision: number; hash: string; event_count: number };
  facts: Record<string, unknown>;
  sealed_at: string;
  algorithm: 'RSA-SHA256';
  certificate_sha256: string;
  signature: string;
  timestamp_token: string | null;
  timestamped_at: string | null;
}
/**
 * Stored as `DocumentSealed` with `{ seal }` before issue 35: the upcaster (libs/projections
 * upcasters.ts) reads those as this event; the hash chain and the verifier read the stored bytes.
 */
export type DocumentCertified = DomainEvent<'DocumentCertified', { certification: DocumentCertification }>;
/**
 * The archive job re-timestamped a completed B-LTA document before its newest timestamp's
 * certificate expired: `final_pdf` is the previous final PDF plus a DSS round and a document
 * timestamp (incremental updates, so every earlier signature keeps verifying) and from now on the
 * document's final PDF. `previous_final_sha256` is the file it extended (what makes a second
 * worker or a replay add nothing).
 */
export type DocumentArchiveTimestamped = DomainEvent<
  'DocumentArchiveTimestamped',
  {
    final_pdf: BlobPointer;
    previous_final_sha256: string;
    /** The new document timestamp's genTime. */
    timestamped_at: string;
    /** When the new timestamp's TSA certificate expires (the next archive is due before it). */
    tsa_certificate_expires_at: string;
  }
>;
export type ReminderSent = DomainEvent<
  'ReminderSent',
  { participant_ids: string[]; reminded_at: string; automatic: boolean }
>;

/** What a correction may change on a participant who has not signed. */
export interface ParticipantChanges {
  name?: string;
  phone?: string | null;
  email?: string | null;
  auth?: ParticipantAuth;
}
/**
 * A participant corrected by the sender. In a draft, an ordinary edit (`link` null). After send the
 * participant's signing link is replaced: only the new token's SHA-256 is kept, the old link stops
 * working at once, and any PIN issued to the old contact is void.
 */
export type ParticipantCorrected = DomainEvent<
  'ParticipantCorrected',
  { participant_id: string; changes: ParticipantChanges; corrected_at: string; link: { version: number; token_hash: string } | null }
>;
/**
 * A signer handed their signing over to another person, as the sender allowed (allow_delegation).
 * The participant (its id, role, order, fields) stays; who holds it changes: `from` is who held it,
 * `to` the delegate. The old link stops working at once; only the new token's SHA-256 is kept.
 */
export type ParticipantDelegated = DomainEvent<
  'ParticipantDelegated',
  {
    participant_id: string;
    delegated_at: string;
    from: { name: string; phone: string | null; email: string | null };
    to: { name: string; phone: string | null; email: string | null };
    link: { version: number; token_hash: string };
    ip: string | null;
    user_agent: string | null;
  }
>;
/**
 * One member of a signing group signed (the ParticipantSigned just before): the group is done, and
 * the other members (`released`) are no longer asked; their links show the group as signed.
 */
export type SigningGroupSatisfied = DomainEvent<'SigningGroupSatisfied', { group: string; signed_by: string; released: string[]; satisfied_at: string }>;
/** A file a signer uploaded for an attachment field; the signature that names it makes it the field's value. */
export type AttachmentUploaded = DomainEvent<
  'AttachmentUploaded',
  {
    attachment_id: string;
    participant_id: string;
    field_id: string;
    filename: string;
    content_type: AttachmentContentType;
    blob: BlobPointer;
    uploaded_at: string;
    ip: string | null;
  }
>;
/** The sender asked for one participant's signing request to go out again (same link). */
export type SigningRequestResent = DomainEvent<'SigningRequestResent', { participant_id: string; resent_at: string }>;

export type DocumentEvent =
  | DocumentCreated
  | DocumentUpdated
  | DocumentEditLockChanged
  | DocumentTrashed
  | ParticipantAdded
  | ParticipantRemoved
  | FieldsReplaced
  | DocumentSent
  | SigningLinkOpened
  | PinIssued
  | PinVerificationFailed
  | PinVerified
  | ParticipantSigned
  | ParticipantDeclined
  | DocumentCompleted
  | DocumentCanceled
  | DocumentDeclined
  | DocumentExpired
  | DocumentCertified
  | DocumentArchiveTimestamped
  | ReminderSent
  | ParticipantCorrected
  | SigningRequestResent
  | ParticipantDelegated
  | SigningGroupSatisfied
  | AttachmentUploaded;

export type DocumentEventType = DocumentEvent['type'];

export const DOCUMENT_EVENT_TYPES: readonly DocumentEventType[] = [
  'DocumentCreated',
  'DocumentUpdated',
  'DocumentEditLockChanged',
  'DocumentTrashed',
  'ParticipantAdded',
  'ParticipantRemoved',
  'FieldsReplaced',
  'DocumentSent',
  'SigningLinkOpened',
  'PinIssued',
  'PinVerificationFailed',
  'PinVerified',
  'ParticipantSigned',
  'ParticipantDeclined',
  'DocumentCompleted',
  'DocumentCanceled',
  'DocumentDeclined',
  'DocumentExpired',
  'DocumentArchiveTimestamped',
  'ReminderSent',
  'ParticipantCorrected',
  'SigningRequestResent',
  'ParticipantDelegated',
  'SigningGroupSatisfied',
  'AttachmentUploaded',
];

export const documentStreamId = (documentId: string) => `document-${documentId}`;
