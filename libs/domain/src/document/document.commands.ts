import { AttachmentKind, DateFormat } from './field-types';
import { BlobPointer, ChainHeadProof, DocumentCreated, DocumentPart, DocumentCertification, Field, ParticipantChanges, ParticipantSetup, PartPages, SigningSealSource } from './document.events';

/** Every command carries its own time, so the decider stays deterministic and replayable. */
interface Timed {
  now: string;
}

/** The command carries what DocumentCreated records, except what the decider derives. */
export type CreateDocument = Timed &
  Omit<DocumentCreated['data'], 'created_at' | 'duplicated_from'> & {
    type: 'CreateDocument';
    /** When duplicating: the set-up copied from the source, with fresh ids. */
    duplicate_of?: { document_id: string; participants: ParticipantSetup[]; fields: Field[] };
  };
export type UpdateDocument = Timed & {
  type: 'UpdateDocument';
  title?: string;
  /** The new body, already in the blob store. */
  content_blob?: BlobPointer;
  author_name?: string;
  metadata?: Record<string, string | null>;
  /** Every part, bodies already in the blob store (replaces the draft's; document-parts.ts). */
  parts?: DocumentPart[];
};
export type SetEditLock = Timed & { type: 'SetEditLock'; locked: boolean };
export type TrashDocument = Timed & { type: 'TrashDocument' };
export type AddParticipants = Timed & {
  type: 'AddParticipants';
  participants: ParticipantSetup[];
  /** From the batch endpoint: errors name the item (participants[i].phone), even in a batch of one. */
  batch?: boolean;
};
export type RemoveParticipant = Timed & { type: 'RemoveParticipant'; participant_id: string };
export type ReplaceFields = Timed & {
  type: 'ReplaceFields';
  fields: Field[];
  /** The pages of the draft's current render when the shell knows it (HTML bodies): fields are checked against it now, not at send. */
  page_count?: number | null;
  /** Documents with parts: each part's page count when the shell knows it (uploaded, or rendered for this request). */
  part_page_counts?: Array<number | null> | null;
};
export type SendDocument = Timed & {
  type: 'SendDocument';
  expires_at: string | null;
  message: string | null;
  page_count: number;
  original_pdf: BlobPointer | null;
  links: Array<{ participant_id: string; token_hash: string }>;
  /** Documents with parts: where each part starts in original_pdf (the shell joined them). */
  parts?: PartPages[];
  /** The organization's date format now (dateFormatOf); absent: the default, recorded as nothing. */
  date_format?: DateFormat;
};
export type OpenSigningLink = Timed & {
  type: 'OpenSigningLink';
  participant_id: string;
  ip: string | null;
  user_agent: string | null;
};
export type IssuePin = Timed & {
  type: 'IssuePin';
  participant_id: string;
  pin_hash: string;
  ttl_seconds: number;
  cooldown_seconds: number;
  /** After completion: a PIN that lets the participant download the signed PDF (completed-download.decider.ts). */
  for_download?: boolean;
};
export type VerifyPin = Timed & {
  type: 'VerifyPin';
  participant_id: string;
  pin_hash: string;
  max_attempts: number;
  ip: string | null;
};
export type SignDocument = Timed & {
  type: 'SignDocument';
  participant_id: string;
  consent: boolean;
  signature: BlobPointer | null;
  /** source: recorded on the event (absent: organization for a seal_id, else uploaded). */
  seal: { seal_id: string | null; image: BlobPointer; uploaded: boolean; source?: SigningSealSource } | null;
  ip: string | null;
  user_agent: string | null;
  /** Built by the shell when this signature completes the document (see wouldComplete). */
  final_pdf: BlobPointer | null;
  /** Signed with the final PDF, by the shell (see ChainHeadProof). */
  chain_head?: ChainHeadProof | null;
  /** The signer's field values by field id, as sent (validated by the decider). */
  values?: Record<string, unknown>;
  /** The organization's time zone for signing_date fields (default Asia/Seoul). */
  time_zone?: string;
};
export type DeclineDocument = Timed & {
  type: 'DeclineDocument';
  participant_id: string;
  reason: string;
  ip: string | null;
  user_agent: string | null;
};
/** reason: shown to the participants in the cancel notice and on their (dead) signing links. */
export type CancelDocument = Timed & { type: 'CancelDocument'; reason?: string | null };
export type ExpireDocument = Timed & { type: 'ExpireDocument' };
export type RemindParticipants = Timed & { type: 'RemindParticipants'; automatic: boolean; cooldown_seconds: number };

export type CorrectParticipant = Timed & {
  type: 'CorrectParticipant';
  participant_id: string;
  changes: ParticipantChanges;
  /**
   * After send, the replacement link (the shell derives the token from the version, so only its
   * hash reaches the decider); ignored for a draft, which has no links yet.
   */
  link: { version: number; token_hash: string } | null;
};
export type ResendSigningRequest = Timed & { type: 'ResendSigningRequest'; participant_id: string; cooldown_seconds: number };

/** The signer hands their signing to `delegate`; the shell derives the new link's token from `link.version`. */
export type DelegateSigning = Timed & {
  type: 'DelegateSigning';
  participant_id: string;
  delegate: { name: string; phone: string | null; email: string | null };
  link: { version: number; token_hash: string };
  ip: string | null;
  user_agent: string | null;
};
/** A file for an attachment field, already checked by its bytes and in the blob store. */
export type UploadAttachment = Timed & {
  type: 'UploadAttachment';
  participant_id: string;
  field_id: string;
  attachment_id: string;
  filename: string;
  /** What the bytes are (magic bytes), as the shell recognised them. */
  kind: AttachmentKind;
  blob: BlobPointer;
  ip: string | null;
};
/** Built by the shell after a terminal event (it signs the stored head); a second certification is a no-op. */
export type CertifyDocument = Timed & { type: 'CertifyDocument'; certification: DocumentCertification };

/**
 * Built by the archive job: the current final PDF (`previous_final_sha256`) re-timestamped. A
 * command whose previous file is no longer the final PDF (another worker, a replay) adds nothing.
 */
export type ArchiveTimestampDocument = Timed & {
  type: 'ArchiveTimestampDocument';
  previous_final_sha256: string;
  final_pdf: BlobPointer;
  timestamped_at: string;
  tsa_certificate_expires_at: string;
};

export type DocumentCommand =
  | CreateDocument
  | UpdateDocument
  | SetEditLock
  | TrashDocument
  | AddParticipants
  | RemoveParticipant
  | ReplaceFields
  | SendDocument
  | OpenSigningLink
  | IssuePin
  | VerifyPin
  | SignDocument
  | DeclineDocument
  | CancelDocument
  | ExpireDocument
  | RemindParticipants
  | CorrectParticipant
  | ResendSigningRequest
  | DelegateSigning
  | UploadAttachment
  | CertifyDocument
  | ArchiveTimestampDocument;
