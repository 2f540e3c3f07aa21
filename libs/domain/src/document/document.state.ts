import { assertNever } from '../shared/decider';
import { BodyRef, ContentFormat, DocumentEvent, DocumentPart, Field, FileRef, ParticipantCorrected, ParticipantSetup, PartPages, BlobPointer, SigningSealSource } from './document.events';
import { DateFormat, FieldValueEntry } from './field-types';
import type { UploadedAttachment } from './field-values';

export type DocumentStatus = 'draft' | 'sent' | 'completed' | 'canceled' | 'declined' | 'expired';
export type ParticipantStatus = 'pending' | 'viewed' | 'signed' | 'declined';

export interface PinState {
  pin_hash: string;
  issued_at: string;
  expires_at: string;
  failed_attempts: number;
  locked: boolean;
  verified: boolean;
  /** When it was verified: the verification lasts PIN_SESSION_SECONDS. */
  verified_at: string | null;
  used: boolean;
  /** The first attempt on this PIN after it expired was recorded; later ones are refused without an event. */
  expiry_recorded?: boolean;
  /** Issued after completion for the signed PDF: it authorises a download, never a signature. */
  for_download?: boolean;
}

export interface ParticipantState extends ParticipantSetup {
  status: ParticipantStatus;
  token_hash: string | null;
  viewed_at: string | null;
  signed_at: string | null;
  declined_at: string | null;
  pin: PinState | null;
  /** The last PIN issue time, kept across PINs for the resend cooldown. */
  last_pin_issued_at: string | null;
  /**
   * PINs locked by wrong attempts since the link was sent or the sender last reminded this
   * participant; at MAX_PIN_LOCKOUTS the link takes no more PINs (see signingLinkLocked).
   */
  pin_lockouts: number;
  signature: BlobPointer | null;
  seal: { seal_id: string | null; image: BlobPointer; source?: SigningSealSource } | null;
  /** Which derivation of the signing token is live: 0 (absent) at send, +1 per correction after it. */
  link_version?: number;
  /** The last time the sender resent this participant's request (the resend cooldown). */
  request_resent_at?: string | null;
  /** The values recorded with the signature; absent before it (or when there were none). */
  values?: FieldValueEntry[];
  /** In a signing group another member signed for: the member who did (SigningGroupSatisfied). */
  group_signed_by?: string | null;
  /** Who held this participant before each delegation, oldest first (ParticipantDelegated). */
  delegated_from?: Array<{ name: string; delegated_at: string }>;
}

export interface DocumentState {
  exists: boolean;
  id: string;
  organization_id: string;
  livemode: boolean;
  status: DocumentStatus;
  title: string;
  content_blob: BodyRef | null;
  content_format: ContentFormat;
  file: FileRef | null;
  author_name: string;
  metadata: Record<string, string>;
  /** The integrator's id for it (DocumentCreated.external_id); null when none was given. */
  external_id: string | null;
  from_template: string | null;
  /** The version of from_template it was made from; null when unknown (older documents) or none. */
  template_version: number | null;
  /** Whether the rendered PDF prints the title as a heading above the body. */
  show_title: boolean;
  edit_locked: boolean;
  trashed: boolean;
  created_at: string;
  sent_at: string | null;
  expires_at: string | null;
  completed_at: string | null;
  participants: ParticipantState[];
  fields: Field[];
  page_count: number | null;
  original_pdf: BlobPointer | null;
  final_pdf: BlobPointer | null;
  last_reminded_at: string | null;
  /** What the sender said when canceling, shown to participants. */
  canceled_reason?: string | null;
  /** Files signers uploaded for attachment fields (AttachmentUploaded), in upload order. */
  attachments?: UploadedAttachment[];
  /** The parts of a document made with several (document-parts.ts); absent or null: one part, the body or file above. */
  parts?: DocumentPart[] | null;
  /** Where each part starts in the original PDF, fixed at send (documents with parts only). */
  part_pages?: PartPages[] | null;
  /** How its dates print, fixed at send (DocumentSent.date_format); absent: the default. */
  date_format?: DateFormat;
  /** A DocumentCertified followed the terminal event. */
  certified?: boolean;
}

export const initialDocumentState = (): DocumentState => ({
  exists: false,
  id: '',
  organization_id: '',
  livemode: false,
  status: 'draft',
  title: '',
  content_blob: null,
  content_format: 'html',
  file: null,
  author_name: '',
  metadata: {},
  external_id: null,
  from_template: null,
  template_version: null,
  show_title: true,
  edit_locked: false,
  trashed: false,
  created_at: '',
  sent_at: null,
  expires_at: null,
  completed_at: null,
  participants: [],
  fields: [],
  page_count: null,
  original_pdf: null,
  final_pdf: null,
  last_reminded_at: null,
});

/** Known before any render only when every part is an uploaded PDF. */
function pdfOnlyPageCount(parts: DocumentPart[]): number | null {
  return parts.every((p) => p.file) ? parts.reduce((n, p) => n + (p.file?.page_count ?? 0), 0) : null;
}

function updateParticipant(
  state: DocumentState,
  id: string,
  change: (p: ParticipantState) => ParticipantState,
): DocumentState {
  return { ...state, participants: state.participants.map((p) => (p.id === id ? change(p) : p)) };
}

export function evolveDocument(state: DocumentState, event: DocumentEvent): DocumentState {
  switch (event.type) {
    case 'DocumentCreated': {
      const d = event.data;
      return {
        ...initialDocumentState(),
        exists: true,
        id: d.document_id,
        organization_id: d.organization_id,
        livemode: d.livemode,
        title: d.title,
        content_blob: d.content_blob,
        content_format: d.content_format,
        file: d.file,
        author_name: d.author_name,
        metadata: d.metadata,
        external_id: d.external_id ?? null,
        from_template: d.from_template ?? null,
        template_version: d.template_version ?? null,
        show_title: d.show_title !== false,
        created_at: d.created_at,
        page_count: d.parts ? pdfOnlyPageCount(d.parts) : (d.file?.page_count ?? null),
        ...(d.parts ? { parts: d.parts } : {}),
      };
    }
    case 'DocumentUpdated': {
      const { updated_at: _at, parts, ...changes } = event.data;
      if (!parts) return { ...state, ...changes } as DocumentState;
      // The first part stands for the body, as on DocumentCreated.
      const first = parts[0];
      return { ...state, ...changes, parts, content_blob: first.content_blob, content_format: first.content_format, file: first.file, page_count: pdfOnlyPageCount(parts) } as DocumentState;
    }
    case 'DocumentEditLockChanged':
      return { ...state, edit_locked: event.data.locked };
    case 'DocumentTrashed':
      return { ...state, trashed: true };
    case 'ParticipantAdded':
      return {
        ...state,
        participants: [
          ...state.participants,
          {
            ...event.data.participant,
            status: 'pending',
            token_hash: null,
            viewed_at: null,
            signed_at: null,
            declined_at: null,
            pin: null,
            last_pin_issued_at: null,
            pin_lockouts: 0,
            signature: null,
            seal: null,
          },
        ],
      };
    case 'ParticipantRemoved':
      return {
        ...state,
        participants: state.participants.filter((p) => p.id !== event.data.participant_id),
        // A removed participant's fields go with it: nobody could ever fill them.
        fields: state.fields.filter((f) => f.participant_id !== event.data.participant_id),
      };
    case 'FieldsReplaced':
      return { ...state, fields: event.data.fields };
    case 'DocumentSent': {
      const tokens = new Map(event.data.links.map((l) => [l.participant_id, l.token_hash]));
      return {
        ...state,
        status: 'sent',
        sent_at: event.data.sent_at,
        expires_at: event.data.expires_at,
        page_count: event.data.page_count,
        original_pdf: event.data.original_pdf ?? null,
        ...(event.data.parts ? { part_pages: event.data.parts } : {}),
        ...(event.data.date_format ? { date_format: event.data.date_format } : {}),
        participants: state.participants.map((p) => ({ ...p, token_hash: tokens.get(p.id) ?? null })),
      };
    }
    case 'SigningLinkOpened':
      return updateParticipant(state, event.data.participant_id, (p) => ({
        ...p,
        status: p.status === 'pending' ? 'viewed' : p.status,
        viewed_at: p.viewed_at ?? event.data.opened_at,
      }));
    case 'PinIssued':
      return updateParticipant(state, event.data.participant_id, (p) => ({
        ...p,
        last_pin_issued_at: event.data.issued_at,
        pin: {
          pin_hash: event.data.pin_hash,
          issued_at: event.data.issued_at,
          expires_at: event.data.expires_at,
          failed_attempts: 0,
          locked: false,
          verified: false,
          verified_at: null,
          used: false,
          ...(event.data.purpose === 'download' ? { for_download: true } : {}),
        },
      }));
    case 'PinVerificationFailed':
      return updateParticipant(state, event.data.participant_id, (p) => ({
        ...p,
        // A lockout is the attempt that locked the PIN; attempts recorded on a PIN already locked are not new ones.
        pin_lockouts: (p.pin_lockouts ?? 0) + (event.data.locked && p.pin && !p.pin.locked ? 1 : 0),
        pin: p.pin && {
          ...p.pin,
          failed_attempts: event.data.failed_attempts,
          locked: event.data.locked,
          ...(event.data.reason === 'expired' ? { expiry_recorded: true } : {}),
        },
      }));
    case 'PinVerified':
      return updateParticipant(state, event.data.participant_id, (p) => ({
        ...p,
        pin: p.pin && { ...p.pin, verified: true, verified_at: event.data.verified_at },
      }));
    case 'ParticipantSigned':
      return updateParticipant(state, event.data.participant_id, (p) => ({
        ...p,
        status: 'signed',
        signed_at: event.data.signed_at,
        signature: event.data.signature,
        seal: event.data.seal,
        ...(event.data.values ? { values: event.data.values } : {}),
        // The PIN is single use: consumed by the signature it authorised.
        pin: p.pin && { ...p.pin, used: true },
      }));
    case 'ParticipantDeclined':
      return updateParticipant(state, event.data.participant_id, (p) => ({
        ...p,
        status: 'declined',
        declined_at: event.data.declined_at,
      }));
    case 'DocumentCompleted':
      return { ...state, status: 'completed', completed_at: event.data.completed_at, final_pdf: event.data.final_pdf };
    case 'DocumentCanceled':
      return { ...state, status: 'canceled', canceled_reason: event.data.reason ?? null };
    case 'DocumentDeclined':
      return { ...state, status: 'declined' };
    case 'DocumentExpired':
      return { ...state, status: 'expired' };
    case 'DocumentCertified':
      return { ...state, certified: true };
    case 'DocumentArchiveTimestamped':
      // The re-timestamped file is the document's final PDF from now on (it holds the earlier one).
      return { ...state, final_pdf: event.data.final_pdf };
    case 'ReminderSent': {
      // The sender reminding (not the automatic schedule) vouches for the link again: its PIN
      // lockouts start over. The reminder reaches the participant's own e-mail or phone.
      const reminded = new Set(event.data.participant_ids);
      return {
        ...state,
        last_reminded_at: event.data.reminded_at,
        participants: event.data.automatic ? state.participants : state.participants.map((p) => (reminded.has(p.id) ? { ...p, pin_lockouts: 0 } : p)),
      };
    }
    case 'ParticipantCorrected':
      return updateParticipant(state, event.data.participant_id, (p) => correctedParticipant(p, event.data));
    case 'SigningRequestResent':
      return updateParticipant(state, event.data.participant_id, (p) => ({ ...p, request_resent_at: event.data.resent_at }));
    case 'ParticipantDelegated': {
      const d = event.data;
      return updateParticipant(state, d.participant_id, (p) => ({
        ...p,
        name: d.to.name,
        phone: d.to.phone,
        email: d.to.email,
        token_hash: d.link.token_hash,
        link_version: d.link.version,
        status: p.status === 'viewed' ? 'pending' : p.status,
        viewed_at: null,
        pin: null,
        last_pin_issued_at: null,
        pin_lockouts: 0,
        // The delegate signs; handing it on again is not what the sender allowed.
        allow_delegation: false,
        delegated_from: [...(p.delegated_from ?? []), { name: d.from.name, delegated_at: d.delegated_at }],
      }));
    }
    case 'SigningGroupSatisfied': {
      const released = new Set(event.data.released);
      return {
        ...state,
        participants: state.participants.map((p) => (released.has(p.id) ? { ...p, group_signed_by: event.data.signed_by } : p)),
      };
    }
    case 'AttachmentUploaded': {
      const d = event.data;
      return {
        ...state,
        attachments: [
          ...(state.attachments ?? []),
          {
            attachment_id: d.attachment_id,
            participant_id: d.participant_id,
            field_id: d.field_id,
            filename: d.filename,
            content_type: d.content_type,
            sha256: d.blob.sha256,
            byte_size: d.blob.byte_size,
          },
        ],
      };
    }
    default:
      return assertNever(event);
  }
}

/** How long an issued SMS PIN stays valid (IssuePin's ttl_seconds). */
export const PIN_TTL_SECONDS = 10 * 60;
/** Least time between two PINs for one participant (IssuePin's cooldown_seconds). */
export const PIN_RESEND_COOLDOWN_SECONDS = 60;
/** Wrong tries one PIN takes before it is locked (VerifyPin's max_attempts). */
export const PIN_MAX_ATTEMPTS = 5;

/**
 * Locked PINs a signing link survives: after the third, guessing (five tries per PIN, a PIN a
 * minute) stops until the sender reminds the participant, instead of lasting the link's whole life.
 */
export const MAX_PIN_LOCKOUTS = 3;

/** Whether the participant's link takes no more PINs until the sender reminds them. */
export const signingLinkLocked = (p: Pick<ParticipantState, 'pin_lockouts'>): boolean => (p.pin_lockouts ?? 0) >= MAX_PIN_LOCKOUTS;

/**
 * A correction's effect. With a new link (after send) the participant starts over as whoever now
 * holds the contact: the old token, a PIN sent to the old phone and the record of the old link's
 * opening no longer speak for them (the events before stay in the log).
 */
function correctedParticipant(p: ParticipantState, data: ParticipantCorrected['data']): ParticipantState {
  const changed: ParticipantState = { ...p, ...data.changes };
  if (!data.link) return changed;
  return {
    ...changed,
    token_hash: data.link.token_hash,
    link_version: data.link.version,
    status: p.status === 'viewed' ? 'pending' : p.status,
    viewed_at: null,
    pin: null,
    last_pin_issued_at: null,
    // A new contact holds the new link: the old contact's lockouts say nothing about them.
    pin_lockouts: 0,
  };
}

/** Signers and reviewers must act; cc only receives copies and never blocks completion. */
export const mustAct = (p: ParticipantSetup) => p.role !== 'cc';

/**
 * The participants whose turn it is: among those who must act and have not finished, everyone
 * with the lowest signing_order (equal orders act in parallel).
 */
export function activeParticipants(state: DocumentState): ParticipantState[] {
  const open = state.participants.filter((p) => mustAct(p) && !actedFor(p) && p.status !== 'declined');
  if (open.length === 0) return [];
  const lowest = Math.min(...open.map((p) => p.signing_order));
  return open.filter((p) => p.signing_order === lowest);
}

/** Signed, or in a signing group another member signed for. */
export const actedFor = (p: Pick<ParticipantState, 'status' | 'group_signed_by'>): boolean => p.status === 'signed' || Boolean(p.group_signed_by);

/** The participant and the other members of their signing group (just the participant without one). */
export function groupOf(state: DocumentState, p: ParticipantSetup): ParticipantState[] {
  if (!p.group) return state.participants.filter((x) => x.id === p.id);
  return state.participants.filter((x) => x.group === p.group);
}

/** True when signing by `participantId` would leave nobody who must act (their group signs with them). */
export function wouldComplete(state: DocumentState, participantId: string): boolean {
  const signer = state.participants.find((p) => p.id === participantId);
  const group = signer?.group ?? null;
  return state.participants.every((p) => !mustAct(p) || actedFor(p) || p.id === participantId || (group !== null && p.group === group));
}
