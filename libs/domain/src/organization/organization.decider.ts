import { Decider, assertNever } from '../shared/decider';
import { conflict, invalid, notFound } from '../shared/domain-error';
import { KEY_ROLES, KeyMode, KeyRole, MemberRole, OrganizationEvent, WorkspaceKind } from './organization.events';

/** Personal workspaces get this many free signatures a month; team workspaces get none. */
export const PERSONAL_FREE_SIGNATURES_PER_MONTH = 3;
/** When send gives no expires_in_days and the organization set no default. */
export const DEFAULT_EXPIRY_DAYS = 14;

export interface OrganizationState {
  exists: boolean;
  id: string;
  name: string;
  workspace_kind: WorkspaceKind;
  plan: string;
  created_at: string;
  members: Array<{ user_id: string; name: string; email: string; role: MemberRole }>;
  keys: Array<{ key_id: string; mode: KeyMode; role: KeyRole; key_hash: string; key_hint: string; revoked: boolean }>;
  default_expiry_days: number;
  reminder_interval_days: number | null;
  credit_balance: number;
  free_used: Record<string, number>;
  usage_documents: string[];
}

export const initialOrganizationState = (): OrganizationState => ({
  exists: false,
  id: '',
  name: '',
  workspace_kind: 'personal',
  plan: 'business',
  created_at: '',
  members: [],
  keys: [],
  default_expiry_days: DEFAULT_EXPIRY_DAYS,
  reminder_interval_days: null,
  credit_balance: 0,
  free_used: {},
  usage_documents: [],
});

export type OrganizationCommand =
  | { type: 'CreateOrganization'; organization_id: string; name: string; workspace_kind: WorkspaceKind; plan: string; now: string }
  | { type: 'AddMember'; user_id: string; name: string; email: string; role: MemberRole; now: string }
  | { type: 'IssueApiKey'; key_id: string; mode: KeyMode; role?: KeyRole; key_hash: string; key_hint: string; now: string }
  | { type: 'RevokeApiKey'; key_id: string; now: string }
  | { type: 'ChangeSettings'; default_expiry_days?: number; reminder_interval_days?: number | null; now: string }
  | { type: 'GrantCredits'; amount: number; reason: string; now: string }
  | { type: 'RecordSignatureUsage'; document_id: string; livemode: boolean; now: string };

const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

export function freeSignaturesPerMonth(state: OrganizationState): number {
  return state.workspace_kind === 'personal' ? PERSONAL_FREE_SIGNATURES_PER_MONTH : 0;
}

/** What a live send may draw on: a free signature left this month, or at least one whole credit. */
export function canAffordSignature(state: OrganizationState, now: string): boolean {
  const period = now.slice(0, 7);
  return (state.free_used[period] ?? 0) < freeSignaturesPerMonth(state) || state.credit_balance >= 1;
}

export function evolveOrganization(state: OrganizationState, event: OrganizationEvent): OrganizationState {
  switch (event.type) {
    case 'OrganizationCreated':
      return {
        ...initialOrganizationState(),
        exists: true,
        id: event.data.organization_id,
        name: event.data.name,
        workspace_kind: event.data.workspace_kind,
        plan: event.data.plan,
        created_at: event.data.created_at,
      };
    case 'MemberAdded': {
      const { added_at: _a, ...member } = event.data;
      return { ...state, members: [...state.members.filter((m) => m.user_id !== member.user_id), member] };
    }
    case 'ApiKeyIssued':
      return {
        ...state,
        keys: [
          ...state.keys,
          { key_id: event.data.key_id, mode: event.data.mode, role: event.data.role ?? 'full', key_hash: event.data.key_hash, key_hint: event.data.key_hint, revoked: false },
        ],
      };
    case 'ApiKeyRevoked':
      return { ...state, keys: state.keys.map((k) => (k.key_id === event.data.key_id ? { ...k, revoked: true } : k)) };
    case 'OrganizationSettingsChanged':
      return {
        ...state,
        default_expiry_days: event.data.default_expiry_days ?? state.default_expiry_days,
        reminder_interval_days: event.data.reminder_interval_days !== undefined ? event.data.reminder_interval_days : state.reminder_interval_days,
      };
    case 'CreditsGranted':
      return { ...state, credit_balance: roundCredits(state.credit_balance + event.data.amount) };
    case 'SignatureUsageRecorded':
      return {
        ...state,
        credit_balance: roundCredits(state.credit_balance - event.data.credits),
        free_used:
          event.data.source === 'free'
            ? { ...state.free_used, [event.data.period]: (state.free_used[event.data.period] ?? 0) + 1 }
            : state.free_used,
        usage_documents: [...state.usage_documents, event.data.document_id],
      };
    default:
      return assertNever(event);
  }
}

/** Balances are fractional; keep them at 4 decimals so repeated sums don't drift. */
const roundCredits = (n: number) => Math.round(n * 10000) / 10000;

export function decideOrganization(command: OrganizationCommand, state: OrganizationState): OrganizationEvent[] {
  if (command.type !== 'CreateOrganization' && !state.exists) throw notFound('organization_not_found', 'No such organization.');
  switch (command.type) {
    case 'CreateOrganization':
      if (state.exists) throw conflict('organization_exists', 'The organization already exists.');
      if (!command.name.trim()) throw invalid('missing_parameter', 'name is required.', 'name');
      return [
        {
          type: 'OrganizationCreated',
          data: { organization_id: command.organization_id, name: command.name.trim(), workspace_kind: command.workspace_kind, plan: command.plan, created_at: command.now },
        },
      ];
    case 'AddMember':
      if (!command.name.trim()) throw invalid('missing_parameter', 'name is required.', 'name');
      if (!EMAIL.test(command.email)) throw invalid('invalid_parameter', 'email is not a valid address.', 'email');
      if (state.members.some((m) => m.user_id === command.user_id || m.email.toLowerCase() === command.email.toLowerCase())) {
        throw conflict('member_exists', 'A member with this e-mail already exists.');
      }
      if (command.role === 'owner' && state.members.some((m) => m.role === 'owner')) {
        throw conflict('owner_exists', 'The organization already has an owner.');
      }
      return [{ type: 'MemberAdded', data: { user_id: command.user_id, name: command.name.trim(), email: command.email, role: command.role, added_at: command.now } }];
    case 'IssueApiKey': {
      const role = command.role ?? 'full';
      if (!KEY_ROLES.includes(role)) throw invalid('invalid_parameter', `role must be one of ${KEY_ROLES.join(', ')}.`, 'role');
      return [
        { type: 'ApiKeyIssued', data: { key_id: command.key_id, mode: command.mode, key_hash: command.key_hash, key_hint: command.key_hint, role, issued_at: command.now } },
      ];
    }
    case 'RevokeApiKey': {
      const key = state.keys.find((k) => k.key_id === command.key_id);
      if (!key) throw notFound('api_key_not_found', 'No such API key.');
      if (key.revoked) return [];
      return [{ type: 'ApiKeyRevoked', data: { key_id: command.key_id, key_hash: key.key_hash, revoked_at: command.now } }];
    }
    case 'ChangeSettings':
      if (command.default_expiry_days !== undefined && !(Number.isInteger(command.default_expiry_days) && command.default_expiry_days >= 1 && command.default_expiry_days <= 365)) {
        throw invalid('invalid_parameter', 'default_expiry_days must be an integer from 1 to 365.', 'default_expiry_days');
      }
      if (command.reminder_interval_days != null && !(Number.isInteger(command.reminder_interval_days) && command.reminder_interval_days >= 1)) {
        throw invalid('invalid_parameter', 'reminder_interval_days must be a positive integer or null.', 'reminder_interval_days');
      }
      return [{ type: 'OrganizationSettingsChanged', data: { default_expiry_days: command.default_expiry_days, reminder_interval_days: command.reminder_interval_days, changed_at: command.now } }];
    case 'GrantCredits':
      if (!(Number.isFinite(command.amount) && command.amount > 0)) throw invalid('invalid_parameter', 'amount must be a positive number.', 'amount');
      return [{ type: 'CreditsGranted', data: { amount: command.amount, reason: command.reason, granted_at: command.now } }];
    case 'RecordSignatureUsage': {
      // Test mode never deducts; a document is counted once however often its completion is replayed.
      if (!command.livemode || state.usage_documents.includes(command.document_id)) return [];
      const period = command.now.slice(0, 7);
      const free = (state.free_used[period] ?? 0) < freeSignaturesPerMonth(state);
      return [
        {
          type: 'SignatureUsageRecorded',
          data: { document_id: command.document_id, source: free ? 'free' : 'credit', period, credits: free ? 0 : 1, recorded_at: command.now },
        },
      ];
    }
    default:
      return assertNever(command);
  }
}

export const organizationDecider: Decider<OrganizationState, OrganizationCommand, OrganizationEvent> = {
  initialState: initialOrganizationState,
  evolve: evolveOrganization,
  decide: decideOrganization,
};
