import { maskContacts } from '@dojang/domain/shared/personal-data';
import type { BundledEvent } from './bundle-format';

/**
 * The facts of a document that evidence has to agree on — who concluded it, when, how the last
 * signer proved who they were — derived from the stored events alone. The same function feeds
 * the certification the server signs after a terminal event (`DocumentCertified`), the summary the audit
 * certificate embeds and prints (`DojangAuditFacts`), and the verifier, which derives them again
 * from the log it is given and names every fact that differs. It reads event types and fields
 * by name (no libs/domain), so it works offline and on events of any age.
 */

/** The events that end a signature request, and the status each leaves. */
export const TERMINAL_EVENTS: Readonly<Record<string, string>> = {
  DocumentCompleted: 'completed',
  DocumentDeclined: 'declined',
  DocumentCanceled: 'canceled',
  DocumentExpired: 'expired',
};

/** The event that certifies the stream after a terminal event (libs/domain `DocumentCertified`). */
export const CERTIFICATION_EVENT = 'DocumentCertified';
/**
 * Its stored name before issue 35, when the certification was called a seal (with `{ seal }` for
 * `{ certification }`). Documents concluded before keep it: the type is inside each event's hash.
 */
export const LEGACY_CERTIFICATION_EVENT = 'DocumentSealed';

/** Whether a stored event is a document's certification, under either of its names. */
export const isCertificationEvent = (e: { type: string }): boolean => e.type === CERTIFICATION_EVENT || e.type === LEGACY_CERTIFICATION_EVENT;

/** The proof a stored certification event carries (`certification`, or `seal` under its old name). */
export function certificationProofOf<P>(e: { type: string; data: unknown }): P | undefined {
  const data = (e.data ?? {}) as { certification?: P; seal?: P };
  return e.type === LEGACY_CERTIFICATION_EVENT ? data.seal : data.certification;
}

export interface SignatureFact {
  participant_id: string;
  revision: number;
  signed_at: string | null;
  auth_method: string | null;
  auth_phone_masked: string | null;
  ip: string | null;
  user_agent: string | null;
  actor: string | null;
  occurred_at: string | null;
  signature_sha256: string | null;
  seal_sha256: string | null;
}

export interface EventFact {
  revision: number;
  type: string;
  occurred_at: string | null;
  actor: string | null;
}

export interface DocumentFacts {
  document_id: string;
  title: string | null;
  /** draft, sent, or the terminal status (completed, declined, canceled, expired). */
  status: string;
  created_at: string | null;
  created_by: string | null;
  sent_at: string | null;
  sent_by: string | null;
  expires_at: string | null;
  /** The first terminal event: what concluded the request. */
  concluded: (EventFact & { at: string | null }) | null;
  completed_at: string | null;
  declined: { participant_id: string; declined_at: string | null; reason: string | null; ip: string | null; user_agent: string | null; actor: string | null; occurred_at: string | null } | null;
  canceled: { canceled_at: string | null; reason: string | null; actor: string | null; occurred_at: string | null } | null;
  expired_at: string | null;
  /** Every signature, in order; the last one is the one that completed a completed document. */
  signatures: SignatureFact[];
  original_sha256: string | null;
  final_pdf_sha256: string | null;
  /** Every event the facts were derived from: revision, type, time and actor. */
  events: EventFact[];
}

const str = (v: unknown): string | null => (typeof v === 'string' ? v : v == null ? null : String(v));
const meta = (e: BundledEvent, key: string) => str((e.metadata ?? {})[key]);
const sha = (v: unknown): string | null => str((v as { sha256?: unknown } | null | undefined)?.sha256);
/**
 * Free text a participant or sender wrote (a decline or cancel reason), masked by the one rule
 * (issue 31 item 6): the certification, the audit certificate and every verifier state it masked, so the
 * facts carry no phone number or e-mail address, and an auditor's bundle (which serves the
 * reasons masked) derives exactly the facts that were certified.
 */
const freeText = (v: unknown): string | null => {
  const s = str(v);
  return s === null ? null : maskContacts(s);
};
/** Fact paths holding free text: compared masked, so certifications made before the facts were masked still agree. */
const FREE_TEXT_FACT = /(^|\.)reason$/;

/**
 * Facts of `events` (the stored document stream, oldest first), up to and including revision
 * `upTo` when given. Pure and deterministic: the same events always give the same facts.
 */
export function documentFacts(documentId: string, events: BundledEvent[], upTo?: number): DocumentFacts {
  const facts: DocumentFacts = {
    document_id: documentId,
    title: null,
    status: 'draft',
    created_at: null,
    created_by: null,
    sent_at: null,
    sent_by: null,
    expires_at: null,
    concluded: null,
    completed_at: null,
    declined: null,
    canceled: null,
    expired_at: null,
    signatures: [],
    original_sha256: null,
    final_pdf_sha256: null,
    events: [],
  };
  for (const e of events) {
    if (upTo !== undefined && e.stream_revision > upTo) break;
    const d = (e.data ?? {}) as Record<string, unknown>;
    const ev: EventFact = { revision: e.stream_revision, type: e.type, occurred_at: meta(e, 'occurred_at'), actor: meta(e, 'actor') };
    facts.events.push(ev);
    switch (e.type) {
      case 'DocumentCreated':
        facts.title = str(d.title);
        facts.created_at = str(d.created_at);
        facts.created_by = ev.actor;
        break;
      case 'DocumentUpdated':
        if (typeof d.title === 'string') facts.title = d.title;
        break;
      case 'DocumentSent':
        facts.sent_at = str(d.sent_at);
        facts.sent_by = ev.actor;
        facts.expires_at = str(d.expires_at);
        facts.original_sha256 = sha(d.original_pdf);
        if (facts.status === 'draft') facts.status = 'sent';
        break;
      case 'ParticipantSigned':
        facts.signatures.push({
          participant_id: String(d.participant_id ?? ''),
          revision: e.stream_revision,
          signed_at: str(d.signed_at),
          auth_method: str(d.auth_method),
          auth_phone_masked: str(d.auth_phone_masked),
          ip: str(d.ip),
          user_agent: str(d.user_agent),
          actor: ev.actor,
          occurred_at: ev.occurred_at,
          signature_sha256: sha(d.signature),
          seal_sha256: sha((d.seal as { image?: unknown } | null | undefined)?.image),
        });
        break;
      case 'ParticipantDeclined':
        facts.declined = {
          participant_id: String(d.participant_id ?? ''),
          declined_at: str(d.declined_at),
          reason: freeText(d.reason),
          ip: str(d.ip),
          user_agent: str(d.user_agent),
          actor: ev.actor,
          occurred_at: ev.occurred_at,
        };
        break;
      case 'DocumentCompleted':
        facts.completed_at = str(d.completed_at);
        facts.final_pdf_sha256 = sha(d.final_pdf);
        if (d.original_sha256 != null) facts.original_sha256 = str(d.original_sha256);
        break;
      case 'DocumentCanceled':
        facts.canceled = { canceled_at: str(d.canceled_at), reason: freeText(d.reason), actor: ev.actor, occurred_at: ev.occurred_at };
        break;
      case 'DocumentExpired':
        facts.expired_at = str(d.expired_at);
        break;
      default:
        break;
    }
    if (TERMINAL_EVENTS[e.type] && !facts.concluded) {
      facts.status = TERMINAL_EVENTS[e.type];
      const at = str(d.completed_at ?? d.declined_at ?? d.canceled_at ?? d.expired_at);
      facts.concluded = { ...ev, at };
    }
  }
  return facts;
}

export interface FactDifference {
  /** Dotted path of the fact, e.g. `signatures[1].auth_method` or `completed_at`. */
  path: string;
  expected: unknown;
  actual: unknown;
}

/** Every leaf where `actual` differs from `expected`, by path (arrays by index). */
export function factDifferences(expected: unknown, actual: unknown, path = ''): FactDifference[] {
  const isObj = (v: unknown) => v !== null && typeof v === 'object';
  if (Array.isArray(expected) && Array.isArray(actual)) {
    const out: FactDifference[] = [];
    for (let i = 0; i < Math.max(expected.length, actual.length); i++) out.push(...factDifferences(expected[i], actual[i], `${path}[${i}]`));
    return out;
  }
  if (isObj(expected) && isObj(actual) && !Array.isArray(expected) && !Array.isArray(actual)) {
    const keys = new Set([...Object.keys(expected as object), ...Object.keys(actual as object)]);
    const out: FactDifference[] = [];
    for (const k of [...keys].sort()) out.push(...factDifferences((expected as Record<string, unknown>)[k], (actual as Record<string, unknown>)[k], path ? `${path}.${k}` : k));
    return out;
  }
  if (typeof expected === 'string' && typeof actual === 'string' && FREE_TEXT_FACT.test(path) && maskContacts(expected) === maskContacts(actual)) return [];
  const same = JSON.stringify(expected ?? null) === JSON.stringify(actual ?? null);
  return same ? [] : [{ path: path || '(facts)', expected: expected ?? null, actual: actual ?? null }];
}

/** "signatures[1].signed_at: certified "…", events "…"" for the first few differences. */
export function describeDifferences(diffs: FactDifference[], expectedLabel: string, actualLabel: string, max = 4): string {
  const shown = diffs.slice(0, max).map((d) => `${d.path}: ${expectedLabel} ${JSON.stringify(d.expected)}, ${actualLabel} ${JSON.stringify(d.actual)}`);
  return `${shown.join('; ')}${diffs.length > max ? `; and ${diffs.length - max} more` : ''}`;
}

/**
 * What cannot be true of any document whatever was signed: a conclusion before the creation, a
 * signature before the send or after the completion. Each names the facts that disagree.
 */
export function implausibleFacts(f: DocumentFacts): string[] {
  const problems: string[] = [];
  const t = (s: string | null) => (s ? Date.parse(s) : NaN);
  const before = (a: string | null, b: string | null) => !Number.isNaN(t(a)) && !Number.isNaN(t(b)) && t(a) < t(b);
  if (f.concluded && before(f.concluded.at, f.created_at)) problems.push(`${f.concluded.type} at ${f.concluded.at} precedes the document's creation (created_at ${f.created_at})`);
  if (before(f.sent_at, f.created_at)) problems.push(`sent_at ${f.sent_at} precedes created_at ${f.created_at}`);
  for (const s of f.signatures) {
    if (before(s.signed_at, f.sent_at)) problems.push(`signatures[participant ${s.participant_id}].signed_at ${s.signed_at} precedes sent_at ${f.sent_at}`);
    if (f.completed_at && before(f.completed_at, s.signed_at)) problems.push(`completed_at ${f.completed_at} precedes the signature of ${s.participant_id} (signed_at ${s.signed_at})`);
  }
  if (f.declined && before(f.declined.declined_at, f.sent_at)) problems.push(`declined_at ${f.declined.declined_at} precedes sent_at ${f.sent_at}`);
  // The time a fact claims and the time the store recorded it cannot be far apart.
  const SKEW_MS = 5 * 60_000;
  for (const s of f.signatures) {
    if (s.signed_at && s.occurred_at && Math.abs(t(s.signed_at) - t(s.occurred_at)) > SKEW_MS) problems.push(`signatures[participant ${s.participant_id}].signed_at ${s.signed_at} is not when the event was recorded (occurred_at ${s.occurred_at})`);
  }
  if (f.concluded?.at && f.concluded.occurred_at && Math.abs(t(f.concluded.at) - t(f.concluded.occurred_at)) > SKEW_MS) {
    problems.push(`${f.concluded.type} says ${f.concluded.at} but was recorded at ${f.concluded.occurred_at}`);
  }
  return problems;
}
