import { Decider, assertNever } from '../shared/decider';
import { DomainError, conflict, invalid, notFound } from '../shared/domain-error';
import { hasBidiControl } from '../shared/text';
import { DATE_FORMATS, DEFAULT_DATE_FORMAT, DEFAULT_TIME_ZONE, DateFormat, isDateFormat } from '../document/field-types';
import { DEFAULT_QUIET_HOURS, QuietHours, isValidClockTime, isValidTimeZone } from '../shared/zoned-time';
import { KAKAO_MESSAGE_KINDS, KEY_ROLES, KakaoChannelConfigured, KakaoMessageKind, KeyMode, KeyRole, MemberRole, OrganizationBrand, OrganizationEvent, OrganizationLogo, OrganizationSigningCertificate, WorkspaceKind } from './organization.events';

/** Personal workspaces get this many free signatures a month; team workspaces get none. */
export const PERSONAL_FREE_SIGNATURES_PER_MONTH = 3;
/** When send gives no expires_in_days and the organization set no default. */
export const DEFAULT_EXPIRY_DAYS = 14;

export const MAX_EMBED_ORIGINS = 20;

/**
 * How old a reservation must be before the worker's sweep may release it for want of a bulk send.
 * A live bulk send reserves, then stores its rows as a blob and appends `BulkSendStarted`: seconds
 * apart normally, but a request may wait out a slow blob store or event store (its appends retry
 * with back-off) and still go on to start its job. Ten minutes is far beyond any such wait, so a
 * start is not refused for being slow (a start later still, a process frozen in between, is refused
 * by the fence the sweep puts on its id: BulkSendAbandoned); and it is short enough that credits
 * held by a crash come back before anyone has to ask support.
 */
export const ORPHANED_RESERVATION_GRACE_MS = 10 * 60_000;

/** Whether a reservation made at `reservedAt` is past the grace period at `now` (an entry without a time is: it predates keeping one). */
export function reservationPastGrace(reservedAt: string | undefined, now: string): boolean {
  return reservedAt === undefined || Date.parse(now) - Date.parse(reservedAt) >= ORPHANED_RESERVATION_GRACE_MS;
}

/**
 * An origin allowed to frame the signing page: `https://host[:port]` only (a framing page on plain
 * http could be altered in transit), except http on localhost and 127.0.0.1 for development. No
 * path, query, credentials or wildcard: CSP frame-ancestors would read more into them than meant.
 * Returns the origin as a browser serializes it (lowercase host, no default port), or null.
 */
export function normalizeEmbedOrigin(value: string): string | null {
  if (typeof value !== 'string' || value.includes('*')) return null;
  const m = /^(https?):\/\/([^/?#@\s]+)\/?$/i.exec(value.trim());
  if (!m) return null;
  let url: URL;
  try {
    url = new URL(`${m[1]}://${m[2]}`);
  } catch {
    return null;
  }
  const local = url.hostname === 'localhost' || url.hostname === '127.0.0.1';
  if (url.protocol !== 'https:' && !(url.protocol === 'http:' && local)) return null;
  return url.origin;
}

function normalizeEmbedOrigins(origins: string[]): string[] {
  if (!Array.isArray(origins)) throw invalid('invalid_parameter', 'embed_origins must be a list of origins.', 'embed_origins');
  if (origins.length > MAX_EMBED_ORIGINS) throw invalid('invalid_parameter', `embed_origins takes at most ${MAX_EMBED_ORIGINS} origins.`, 'embed_origins');
  const out: string[] = [];
  for (const origin of origins) {
    const normalized = normalizeEmbedOrigin(origin);
    if (!normalized) {
      throw invalid(
        'invalid_parameter',
        `"${String(origin)}" is not an allowed embed origin: use https://host[:port] (http only for localhost or 127.0.0.1), without a path or wildcard.`,
        'embed_origins',
      );
    }
    if (!out.includes(normalized)) out.push(normalized);
  }
  return out;
}

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
  /** Origins allowed to frame the signing page (embedded signing); empty: nobody may. */
  embed_origins: string[];
  credit_balance: number;
  free_used: Record<string, number>;
  usage_documents: string[];
  /** Rows projected before brands existed lack these: read them through brandOf, timeZoneOf, quietHoursOf. */
  brand?: OrganizationBrand;
  time_zone?: string;
  quiet_hours?: QuietHours | null;
  /** Absent: DEFAULT_DATE_FORMAT (read it through dateFormatOf). */
  date_format?: DateFormat;
  kakao?: KakaoChannelConfigured['data']['kakao'];
  /** Absent or null: no logo. */
  logo?: OrganizationLogo | null;
  /** Signatures held for live bulk sends' rows not yet settled (rows projected before reservations lack it: 0). */
  credits_reserved?: number;
  /**
   * Per reservation (a bulk send's id): rows it holds, rows settled so far, and when it was made
   * (entries projected before that was kept lack `reserved_at`); gone once all are settled or it is released.
   */
  reservations?: Record<string, { count: number; settled: number; reserved_at?: string }>;
  /** The organization's own signing certificate and its encrypted key's blob; absent or null: the platform's key signs. */
  signing_certificate?: (OrganizationSigningCertificate & { key_blob: string; uploaded_at: string }) | null;
}

export const EMPTY_BRAND: OrganizationBrand = { display_name: null, color: null, reply_to: null };
export const brandOf = (s: Pick<OrganizationState, 'brand'> | null | undefined): OrganizationBrand => s?.brand ?? EMPTY_BRAND;
export const timeZoneOf = (s: Pick<OrganizationState, 'time_zone'> | null | undefined): string => s?.time_zone ?? DEFAULT_TIME_ZONE;
export const dateFormatOf = (s: Pick<OrganizationState, 'date_format'> | null | undefined): DateFormat => s?.date_format ?? DEFAULT_DATE_FORMAT;
export const logoOf = (s: Pick<OrganizationState, 'logo'> | null | undefined): OrganizationLogo | null => s?.logo ?? null;
/** A logo is at most this many bytes as uploaded (it goes into every e-mail's header). */
export const MAX_LOGO_BYTES = 512 * 1024;
/** …and at most this many pixels on its longer side: a header shows it a few hundred pixels wide. */
export const MAX_LOGO_SIDE = 2048;
export const LOGO_CONTENT_TYPES: ReadonlyArray<OrganizationLogo['content_type']> = ['image/png', 'image/jpeg'];
export const quietHoursOf = (s: Pick<OrganizationState, 'quiet_hours'> | null | undefined): QuietHours | null =>
  s?.quiet_hours === undefined ? DEFAULT_QUIET_HOURS : s.quiet_hours;

const HEX_COLOR = /^#[0-9a-f]{6}$/;
/** A display name goes into an SMS prefix and an e-mail From header: one line, no brackets or quotes that would break either. */
const DISPLAY_NAME_FORBIDDEN = /[\u0000-\u001f\u007f\u2028\u2029<>"\[\]]/;
export const MAX_DISPLAY_NAME = 40;
const SHA256_HEX = /^[0-9a-f]{64}$/;

export type SigningCertificateValidity = 'valid' | 'expired' | 'not_yet_valid';

/**
 * Whether an organization's certificate may sign at `at`: it was valid at upload, but it can expire
 * afterwards, and a signature made outside its validity is one no verifier accepts. One rule for
 * the upload, every signing with the key, and what GET shows.
 */
export function signingCertificateValidityAt(c: Pick<OrganizationSigningCertificate, 'not_before' | 'not_after'>, at: string | Date): SigningCertificateValidity {
  const t = typeof at === 'string' ? Date.parse(at) : at.getTime();
  if (t < Date.parse(c.not_before)) return 'not_yet_valid';
  if (t > Date.parse(c.not_after)) return 'expired';
  return 'valid';
}
const TEMPLATE_CODE = /^[A-Za-z0-9_-]{1,64}$/;
const PF_ID = /^[A-Za-z0-9_-]{4,64}$/;

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
  embed_origins: [],
  credit_balance: 0,
  free_used: {},
  usage_documents: [],
});

export type OrganizationCommand =
  | { type: 'CreateOrganization'; organization_id: string; name: string; workspace_kind: WorkspaceKind; plan: string; now: string }
  | { type: 'AddMember'; user_id: string; name: string; email: string; role: MemberRole; now: string }
  | { type: 'IssueApiKey'; key_id: string; mode: KeyMode; role?: KeyRole; key_hash: string; key_hint: string; now: string }
  | { type: 'RevokeApiKey'; key_id: string; now: string }
  | { type: 'ChangeSettings'; default_expiry_days?: number; reminder_interval_days?: number | null; embed_origins?: string[]; now: string }
  | { type: 'ChangeBrand'; display_name?: string | null; color?: string | null; reply_to?: string | null; now: string }
  | { type: 'ChangeTimeZone'; time_zone?: string; quiet_hours?: QuietHours | null; now: string }
  | { type: 'ChangeDateFormat'; date_format: string; now: string }
  | { type: 'ChangeLogo'; logo: OrganizationLogo | null; now: string }
  | { type: 'ConfigureKakao'; kakao: { pf_id: string; templates: Record<string, string> } | null; now: string }
  | { type: 'GrantCredits'; amount: number; reason: string; now: string }
  | { type: 'RecordSignatureUsage'; document_id: string; livemode: boolean; now: string }
  /** Holds `count` signatures for a live bulk send's rows; refused (402 insufficient_credits) when fewer are available. */
  | { type: 'ReserveCredits'; reservation_id: string; count: number; now: string }
  /** `done`: the job's rows settled in all (sent, failed, canceled), of `row_count`; rows refused at validation were never reserved. */
  | { type: 'SettleReservation'; reservation_id: string; done: number; row_count: number; now: string }
  /**
   * Gives back a reservation under which no bulk send was started (the caller, the worker's sweep,
   * abandoned its id: BulkSendAbandoned). Only past ORPHANED_RESERVATION_GRACE_MS after
   * `reserved_at` (a younger one is kept); a reservation already gone (released by another sweep,
   * or settled) is a no-op.
   */
  | { type: 'ReleaseOrphanedReservation'; reservation_id: string; now: string }
  | { type: 'UploadSigningCertificate'; certificate: OrganizationSigningCertificate; key_blob: string; now: string }
  | { type: 'RemoveSigningCertificate'; now: string };

const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

export function freeSignaturesPerMonth(state: OrganizationState): number {
  return state.workspace_kind === 'personal' ? PERSONAL_FREE_SIGNATURES_PER_MONTH : 0;
}

/** What a live send may draw on: a free signature left this month, or at least one whole credit, beyond what bulk sends hold. */
export function canAffordSignature(state: OrganizationState, now: string): boolean {
  const period = now.slice(0, 7);
  const freeLeft = Math.max(0, freeSignaturesPerMonth(state) - (state.free_used[period] ?? 0));
  return freeLeft + Math.floor(Math.max(0, state.credit_balance)) - (state.credits_reserved ?? 0) >= 1;
}

/** Free signatures left this month plus credits, less what bulk sends hold: how many live documents can still be sent. */
export function signaturesAvailable(state: Pick<OrganizationState, 'workspace_kind' | 'free_used' | 'credit_balance' | 'credits_reserved'>, now: string): number {
  const period = now.slice(0, 7);
  const free = Math.max(0, freeSignaturesPerMonth(state as OrganizationState) - (state.free_used[period] ?? 0));
  return free + Math.max(0, state.credit_balance) - (state.credits_reserved ?? 0);
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
        embed_origins: event.data.embed_origins ?? state.embed_origins ?? [],
      };
    case 'OrganizationBrandChanged': {
      const { changed_at: _c, ...brand } = event.data;
      return { ...state, brand };
    }
    case 'OrganizationTimeZoneChanged':
      return { ...state, time_zone: event.data.time_zone, quiet_hours: event.data.quiet_hours };
    case 'OrganizationDateFormatChanged':
      return { ...state, date_format: event.data.date_format };
    case 'OrganizationLogoChanged':
      return { ...state, logo: event.data.logo };
    case 'KakaoChannelConfigured':
      return { ...state, kakao: event.data.kakao };
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
    case 'CreditsReserved':
      return {
        ...state,
        credits_reserved: (state.credits_reserved ?? 0) + event.data.count,
        reservations: { ...(state.reservations ?? {}), [event.data.reservation_id]: { count: event.data.count, settled: 0, reserved_at: event.data.reserved_at } },
      };
    case 'CreditReservationSettled': {
      const reservations = { ...(state.reservations ?? {}) };
      const held = reservations[event.data.reservation_id];
      if (held && event.data.settled < held.count) reservations[event.data.reservation_id] = { ...held, settled: event.data.settled };
      else delete reservations[event.data.reservation_id];
      return { ...state, credits_reserved: Math.max(0, (state.credits_reserved ?? 0) - event.data.released), reservations };
    }
    case 'CreditReservationReleased': {
      const { [event.data.reservation_id]: _released, ...reservations } = state.reservations ?? {};
      return { ...state, credits_reserved: Math.max(0, (state.credits_reserved ?? 0) - event.data.released), reservations };
    }
    case 'SigningCertificateUploaded':
      return { ...state, signing_certificate: { ...event.data.certificate, key_blob: event.data.key_blob, uploaded_at: event.data.uploaded_at } };
    case 'SigningCertificateRemoved':
      return { ...state, signing_certificate: null };
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
      return [
        {
          type: 'OrganizationSettingsChanged',
          data: {
            default_expiry_days: command.default_expiry_days,
            reminder_interval_days: command.reminder_interval_days,
            ...(command.embed_origins !== undefined ? { embed_origins: normalizeEmbedOrigins(command.embed_origins) } : {}),
            changed_at: command.now,
          },
        },
      ];
    case 'ChangeBrand':
      return decideBrand(command, state);
    case 'ChangeTimeZone': {
      const time_zone = command.time_zone ?? timeZoneOf(state);
      if (!isValidTimeZone(time_zone)) throw invalid('invalid_parameter', 'time_zone must be an IANA time zone such as Asia/Seoul or America/New_York.', 'time_zone');
      const quiet_hours = command.quiet_hours === undefined ? quietHoursOf(state) : command.quiet_hours;
      if (quiet_hours !== null) {
        for (const edge of ['start', 'end'] as const) {
          if (!isValidClockTime(quiet_hours?.[edge])) throw invalid('invalid_parameter', `quiet_hours.${edge} must be a local time HH:MM (00:00 to 23:59).`, `quiet_hours.${edge}`);
        }
      }
      const next = quiet_hours === null ? null : { start: quiet_hours.start, end: quiet_hours.end };
      if (time_zone === timeZoneOf(state) && JSON.stringify(next) === JSON.stringify(quietHoursOf(state)) && state.time_zone !== undefined) return [];
      return [{ type: 'OrganizationTimeZoneChanged', data: { time_zone, quiet_hours: next, changed_at: command.now } }];
    }
    case 'ChangeDateFormat': {
      if (!isDateFormat(command.date_format)) {
        throw invalid('invalid_parameter', `date_format must be one of ${DATE_FORMATS.map((f) => `"${f}"`).join(', ')}; got ${JSON.stringify(command.date_format)}.`, 'date_format');
      }
      if (command.date_format === state.date_format) return [];
      return [{ type: 'OrganizationDateFormatChanged', data: { date_format: command.date_format, changed_at: command.now } }];
    }
    case 'ChangeLogo':
      return decideLogo(command, state);
    case 'ConfigureKakao':
      return [{ type: 'KakaoChannelConfigured', data: { kakao: validKakao(command.kakao), configured_at: command.now } }];
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
    case 'ReserveCredits': {
      // A retried reservation is not a second one.
      if (state.reservations?.[command.reservation_id]) return [];
      if (!Number.isInteger(command.count) || command.count < 1) throw invalid('invalid_parameter', 'A reservation holds at least one signature.', 'count');
      const available = signaturesAvailable(state, command.now);
      if (available < command.count) {
        throw new DomainError(
          'payment_required',
          'insufficient_credits',
          `A live bulk send of ${command.count} documents needs ${command.count} free signatures or credits; ${Math.max(0, Math.floor(available))} are available${state.credits_reserved ? ` (${state.credits_reserved} held by bulk sends still running)` : ''}.`,
        );
      }
      return [{ type: 'CreditsReserved', data: { reservation_id: command.reservation_id, count: command.count, reserved_at: command.now } }];
    }
    case 'SettleReservation': {
      const held = state.reservations?.[command.reservation_id];
      if (!held) return [];
      // Rows refused at validation were failed at the start and never held.
      const settled = Math.min(held.count, Math.max(0, command.done - (command.row_count - held.count)));
      if (settled <= held.settled) return [];
      return [{ type: 'CreditReservationSettled', data: { reservation_id: command.reservation_id, settled, released: settled - held.settled, settled_at: command.now } }];
    }
    case 'ReleaseOrphanedReservation': {
      const held = state.reservations?.[command.reservation_id];
      // Gone already (another sweep released it, or its job settled it): a repeat releases nothing.
      if (!held) return [];
      // Too young to tell a job that is still being started from one that never will be: kept
      // (the sweep looks at it again later; it checks the same time before it asks).
      if (!reservationPastGrace(held.reserved_at, command.now)) return [];
      return [
        {
          type: 'CreditReservationReleased',
          data: { reservation_id: command.reservation_id, released: held.count - held.settled, reason: 'bulk_send_not_started', released_at: command.now },
        },
      ];
    }
    case 'UploadSigningCertificate': {
      // The API checked the file in the PDF pool; the decider keeps the log to facts it can stand on.
      const c = command.certificate;
      if (!SHA256_HEX.test(c?.sha256_fingerprint ?? '')) throw invalid('invalid_parameter', 'The certificate fingerprint must be a SHA-256 in hex.', 'p12');
      if (!SHA256_HEX.test(command.key_blob)) throw invalid('invalid_parameter', 'key_blob must be a blob SHA-256.', 'p12');
      if (signingCertificateValidityAt(c, command.now) !== 'valid') {
        throw invalid('invalid_parameter', 'The certificate is not valid now.', 'p12');
      }
      return [{ type: 'SigningCertificateUploaded', data: { certificate: { ...c, chain_pem: [...c.chain_pem] }, key_blob: command.key_blob, uploaded_at: command.now } }];
    }
    case 'RemoveSigningCertificate':
      // Removing none leaves nothing to record: DELETE is idempotent.
      if (!state.signing_certificate) return [];
      return [{ type: 'SigningCertificateRemoved', data: { sha256_fingerprint: state.signing_certificate.sha256_fingerprint, removed_at: command.now } }];
    default:
      return assertNever(command);
  }
}

function decideBrand(command: Extract<OrganizationCommand, { type: 'ChangeBrand' }>, state: OrganizationState): OrganizationEvent[] {
  const current = brandOf(state);
  const pick = <K extends keyof OrganizationBrand>(k: K) => (command[k] === undefined ? current[k] : command[k] === null || String(command[k]).trim() === '' ? null : String(command[k]).trim());
  const brand: OrganizationBrand = { display_name: pick('display_name'), color: pick('color'), reply_to: pick('reply_to') };
  if (brand.display_name !== null && (Array.from(brand.display_name).length > MAX_DISPLAY_NAME || DISPLAY_NAME_FORBIDDEN.test(brand.display_name) || hasBidiControl(brand.display_name))) {
    throw invalid('invalid_parameter', `display_name must be one line of at most ${MAX_DISPLAY_NAME} characters, without < > " [ or ] or bidirectional text controls (U+202A–202E, U+2066–2069, U+200E, U+200F).`, 'display_name');
  }
  if (brand.color !== null) {
    brand.color = brand.color.toLowerCase();
    if (!HEX_COLOR.test(brand.color)) throw invalid('invalid_parameter', 'color must be a hex colour such as #1a56db.', 'color');
  }
  if (brand.reply_to !== null && (!EMAIL.test(brand.reply_to) || brand.reply_to.length > 320)) {
    throw invalid('invalid_parameter', 'reply_to must be an e-mail address, e.g. hr@example.com.', 'reply_to');
  }
  if (JSON.stringify(brand) === JSON.stringify(current) && state.brand !== undefined) return [];
  return [{ type: 'OrganizationBrandChanged', data: { ...brand, changed_at: command.now } }];
}

const SHA256 = /^[0-9a-f]{64}$/;

/** The image checks (type, size, pixels) happened in the pool; the facts recorded are checked here. */
function decideLogo(command: Extract<OrganizationCommand, { type: 'ChangeLogo' }>, state: OrganizationState): OrganizationEvent[] {
  const current = logoOf(state);
  const logo = command.logo;
  if (logo === null) return current === null ? [] : [{ type: 'OrganizationLogoChanged', data: { logo: null, changed_at: command.now } }];
  const side = (n: number) => Number.isInteger(n) && n > 0 && n <= MAX_LOGO_SIDE;
  if (!SHA256.test(logo.sha256)) throw invalid('invalid_parameter', 'The logo\'s sha256 must be 64 lowercase hex digits.', 'file');
  if (!LOGO_CONTENT_TYPES.includes(logo.content_type)) throw invalid('invalid_parameter', 'A logo is a PNG or a JPEG.', 'file');
  if (!(Number.isInteger(logo.byte_size) && logo.byte_size > 0)) throw invalid('invalid_parameter', 'The logo is empty.', 'file');
  if (!side(logo.width) || !side(logo.height)) throw invalid('invalid_parameter', `A logo is at most ${MAX_LOGO_SIDE}×${MAX_LOGO_SIDE} pixels.`, 'file');
  const next: OrganizationLogo = { sha256: logo.sha256, content_type: logo.content_type, byte_size: logo.byte_size, width: logo.width, height: logo.height };
  if (current && JSON.stringify(current) === JSON.stringify(next)) return [];
  return [{ type: 'OrganizationLogoChanged', data: { logo: next, changed_at: command.now } }];
}

function validKakao(kakao: { pf_id: string; templates: Record<string, string> } | null): KakaoChannelConfigured['data']['kakao'] {
  if (kakao === null) return null;
  if (typeof kakao?.pf_id !== 'string' || !PF_ID.test(kakao.pf_id)) throw invalid('invalid_parameter', 'kakao.pf_id must be the sender profile key (pfId) of the KakaoTalk channel.', 'kakao.pf_id');
  const templates: Partial<Record<KakaoMessageKind, string>> = {};
  if (!kakao.templates || typeof kakao.templates !== 'object' || Array.isArray(kakao.templates)) throw invalid('invalid_parameter', 'kakao.templates must map message kinds to template codes.', 'kakao.templates');
  for (const [kind, code] of Object.entries(kakao.templates)) {
    if (!(KAKAO_MESSAGE_KINDS as readonly string[]).includes(kind)) {
      throw invalid('invalid_parameter', `kakao.templates takes the kinds ${KAKAO_MESSAGE_KINDS.join(', ')}.`, `kakao.templates.${kind}`);
    }
    if (typeof code !== 'string' || !TEMPLATE_CODE.test(code)) throw invalid('invalid_parameter', 'A template code is 1 to 64 letters, digits, _ or -.', `kakao.templates.${kind}`);
    templates[kind as KakaoMessageKind] = code;
  }
  return { pf_id: kakao.pf_id, templates };
}

export const organizationDecider: Decider<OrganizationState, OrganizationCommand, OrganizationEvent> = {
  initialState: initialOrganizationState,
  evolve: evolveOrganization,
  decide: decideOrganization,
};
