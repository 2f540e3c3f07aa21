import { DomainEvent } from '../shared/decider';
import type { DateFormat } from '../document/field-types';

export type WorkspaceKind = 'personal' | 'team';
export type MemberRole = 'owner' | 'admin' | 'member' | 'viewer';
export type KeyMode = 'test' | 'live';
/**
 * What a key may do: `full` is everything an integrator does; `auditor` reads documents, their
 * histories and evidence, and nothing else. Keys issued before roles existed carry none: `full`.
 */
export type KeyRole = 'full' | 'auditor';
export const KEY_ROLES: readonly KeyRole[] = ['full', 'auditor'];

export type OrganizationCreated = DomainEvent<
  'OrganizationCreated',
  { organization_id: string; name: string; workspace_kind: WorkspaceKind; plan: string; created_at: string }
>;
export type MemberAdded = DomainEvent<
  'MemberAdded',
  { user_id: string; name: string; email: string; role: MemberRole; added_at: string }
>;
export type ApiKeyIssued = DomainEvent<
  'ApiKeyIssued',
  {
    key_id: string;
    mode: KeyMode;
    /** SHA-256 of the secret key: the key itself is shown once and never stored. */
    key_hash: string;
    /** The last four characters, so a person can tell keys apart in listings. */
    key_hint: string;
    /** Absent on keys issued before roles existed, which read as `full`. */
    role?: KeyRole;
    issued_at: string;
  }
>;
export type ApiKeyRevoked = DomainEvent<'ApiKeyRevoked', { key_id: string; key_hash: string; revoked_at: string }>;
export type OrganizationSettingsChanged = DomainEvent<
  'OrganizationSettingsChanged',
  {
    default_expiry_days?: number;
    reminder_interval_days?: number | null;
    /** Origins allowed to frame the signing page (CSP frame-ancestors); [] = none. */
    embed_origins?: string[];
    changed_at: string;
  }
>;
/** How messages present the sender: the name people know, its colour, where replies go. */
export interface OrganizationBrand {
  /** Shown as the e-mail From name, the SMS prefix ("[회사명]") and on the signing page; null: the organization's name. */
  display_name: string | null;
  /** `#rrggbb`: e-mail accents and the signing page header. */
  color: string | null;
  /** Where replies to e-mails go (Reply-To); null: nowhere (the sender address is no-reply). */
  reply_to: string | null;
}
export type OrganizationBrandChanged = DomainEvent<'OrganizationBrandChanged', OrganizationBrand & { changed_at: string }>;
export type OrganizationTimeZoneChanged = DomainEvent<
  'OrganizationTimeZoneChanged',
  {
    /** IANA zone: dates given as days end there, and every time in messages is shown there. */
    time_zone: string;
    /** Local `HH:MM` window in which automatic reminders wait (null: none). */
    quiet_hours: { start: string; end: string } | null;
    changed_at: string;
  }
>;
/** How the organization's documents and messages print dates (DATE_FORMATS): recorded on each document at send. */
export type OrganizationDateFormatChanged = DomainEvent<'OrganizationDateFormatChanged', { date_format: DateFormat; changed_at: string }>;
/**
 * The organization's logo as stored: re-encoded (PNG) or header-checked (JPEG) in the PDF pool,
 * kept content-addressed in the blob store and served under its hash.
 */
export interface OrganizationLogo {
  sha256: string;
  content_type: 'image/png' | 'image/jpeg';
  byte_size: number;
  width: number;
  height: number;
}
/** A logo uploaded (or replaced), or removed (`logo: null`). */
export type OrganizationLogoChanged = DomainEvent<'OrganizationLogoChanged', { logo: OrganizationLogo | null; changed_at: string }>;
/** Message kinds a KakaoTalk 알림톡 template can carry. */
export type KakaoMessageKind = 'signing_request' | 'reminder' | 'completed' | 'canceled' | 'expired' | 'declined';
export const KAKAO_MESSAGE_KINDS: readonly KakaoMessageKind[] = ['signing_request', 'reminder', 'completed', 'canceled', 'expired', 'declined'];
/**
 * The organization's KakaoTalk business channel: its sender profile key and, per message kind, the
 * code of a template Kakao approved. `null` turns 알림톡 off (phones get SMS again).
 */
export type KakaoChannelConfigured = DomainEvent<
  'KakaoChannelConfigured',
  { kakao: { pf_id: string; templates: Partial<Record<KakaoMessageKind, string>> } | null; configured_at: string }
>;
export type CreditsGranted = DomainEvent<'CreditsGranted', { amount: number; reason: string; granted_at: string }>;
export type SignatureUsageRecorded = DomainEvent<
  'SignatureUsageRecorded',
  { document_id: string; source: 'free' | 'credit'; period: string; credits: number; recorded_at: string }
>;
/**
 * An organization's own document-signing certificate, as uploaded (a .p12 checked in the PDF
 * pool): what anyone may see of it. The key itself is never in an event.
 */
export interface OrganizationSigningCertificate {
  subject: string;
  issuer: string;
  not_before: string;
  not_after: string;
  serial_number: string;
  /** SHA-256 of the certificate's DER, lower-case hex: printed on audit certificates. */
  sha256_fingerprint: string;
  /** The signing certificate then the rest of the chain the file carried, PEM. */
  chain_pem: string[];
}
/**
 * From now on the organization's final PDFs are signed with its own certificate. `key_blob` is
 * the blob holding the .p12 and its password encrypted (AES-256-GCM, organization-signing-keys.ts):
 * a pointer to ciphertext, so the log can be read, exported and replayed without the key.
 */
export type SigningCertificateUploaded = DomainEvent<
  'SigningCertificateUploaded',
  { certificate: OrganizationSigningCertificate; key_blob: string; uploaded_at: string }
>;
/** Back to the platform's signing key; the fingerprint says which certificate stopped signing. */
export type SigningCertificateRemoved = DomainEvent<'SigningCertificateRemoved', { sha256_fingerprint: string; removed_at: string }>;

/**
 * Credits (free signatures first) held for a live bulk send's valid rows when it starts, so other
 * sends cannot spend what the job's rows need (issue 23). `reservation_id` is the bulk send's id.
 */
export type CreditsReserved = DomainEvent<'CreditsReserved', { reservation_id: string; count: number; reserved_at: string }>;
/**
 * A reservation's rows settled so far (sent, failed or canceled), `settled` in all: the `released`
 * more than last time no longer hold credits. A sent row's document is then charged at completion
 * like any other; a failed or canceled row's credit is free again. Recorded with the job's running
 * total, so a repeat changes nothing.
 */
export type CreditReservationSettled = DomainEvent<'CreditReservationSettled', { reservation_id: string; settled: number; released: number; settled_at: string }>;
/**
 * Why a reservation was released whole rather than settled by its job's rows.
 * `bulk_send_not_started`: no bulk send was ever recorded under it (the process that reserved died,
 * or its append failed, before `BulkSendStarted`), found by the worker's sweep past the grace period.
 */
export type CreditReservationReleaseReason = 'bulk_send_not_started';
/**
 * A reservation given back whole, not by its job's rows: the `released` signatures it still held
 * are free again and the reservation ends. Its own event (not a `CreditReservationSettled`), so
 * that an auditor reading the log sees no rows claimed settled that never existed.
 */
export type CreditReservationReleased = DomainEvent<
  'CreditReservationReleased',
  { reservation_id: string; released: number; reason: CreditReservationReleaseReason; released_at: string }
>;

export type OrganizationEvent =
  | OrganizationCreated
  | MemberAdded
  | ApiKeyIssued
  | ApiKeyRevoked
  | OrganizationSettingsChanged
  | OrganizationBrandChanged
  | OrganizationTimeZoneChanged
  | OrganizationDateFormatChanged
  | OrganizationLogoChanged
  | KakaoChannelConfigured
  | CreditsGranted
  | SignatureUsageRecorded
  | CreditsReserved
  | CreditReservationSettled
  | CreditReservationReleased
  | SigningCertificateUploaded
  | SigningCertificateRemoved;

export const ORGANIZATION_EVENT_TYPES: readonly OrganizationEvent['type'][] = [
  'OrganizationCreated',
  'MemberAdded',
  'ApiKeyIssued',
  'ApiKeyRevoked',
  'OrganizationSettingsChanged',
  'OrganizationBrandChanged',
  'OrganizationTimeZoneChanged',
  'OrganizationDateFormatChanged',
  'OrganizationLogoChanged',
  'KakaoChannelConfigured',
  'CreditsGranted',
  'SignatureUsageRecorded',
  'CreditsReserved',
  'CreditReservationSettled',
  'CreditReservationReleased',
  'SigningCertificateUploaded',
  'SigningCertificateRemoved',
];

export const organizationStreamId = (organizationId: string) => `organization-${organizationId}`;
