import { DomainEvent } from '../shared/decider';

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
  { default_expiry_days?: number; reminder_interval_days?: number | null; changed_at: string }
>;
export type CreditsGranted = DomainEvent<'CreditsGranted', { amount: number; reason: string; granted_at: string }>;
export type SignatureUsageRecorded = DomainEvent<
  'SignatureUsageRecorded',
  { document_id: string; source: 'free' | 'credit'; period: string; credits: number; recorded_at: string }
>;

export type OrganizationEvent =
  | OrganizationCreated
  | MemberAdded
  | ApiKeyIssued
  | ApiKeyRevoked
  | OrganizationSettingsChanged
  | CreditsGranted
  | SignatureUsageRecorded;

export const ORGANIZATION_EVENT_TYPES: readonly OrganizationEvent['type'][] = [
  'OrganizationCreated',
  'MemberAdded',
  'ApiKeyIssued',
  'ApiKeyRevoked',
  'OrganizationSettingsChanged',
  'CreditsGranted',
  'SignatureUsageRecorded',
];

export const organizationStreamId = (organizationId: string) => `organization-${organizationId}`;
