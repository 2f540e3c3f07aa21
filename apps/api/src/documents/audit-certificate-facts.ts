import { maskPhone } from '@dojang/domain';
import { StoredEvent } from '@dojang/event-store';
import { AuditConclusion, AuditTimelineEntry, formatCertificateTime } from '@dojang/pdf';
import { actorsOf, DocumentRow, maskContacts } from '@dojang/projections';
import { certificationProofOf, DocumentFacts, DocumentCertificationProof, isCertificationEvent } from '@dojang/verifier';

/**
 * What the audit certificate prints, derived from the stored events (not a read model), so the
 * certificate and the log it embeds the facts of (`DojangAuditFacts`) can never disagree unless
 * one of them was altered. Personal data is masked by the same rule as every auditor read.
 */

const str = (v: unknown): string | null => (typeof v === 'string' && v ? v : null);

function nameOf(row: DocumentRow, participantId: unknown): string {
  return row.participants.find((p) => p.id === participantId)?.name ?? String(participantId ?? '—');
}

/** A short, masked description of an event: who, from where, why. */
const SEAL_SOURCE_LABELS: Record<string, string> = {
  made: '이름으로 만든 도장/made from the name',
  drawn: '직접 그린 도장/drawn',
  uploaded: '올린 도장 이미지/uploaded',
  organization: '기관 도장/organization seal',
};

function detailOf(e: StoredEvent, row: DocumentRow, timeZone: string): string | null {
  const d = (e.data ?? {}) as Record<string, unknown>;
  const parts: string[] = [];
  if (d.participant_id !== undefined) parts.push(`참여자/Participant: ${nameOf(row, d.participant_id)}`);
  if (e.type === 'ParticipantAdded') parts.push(`참여자/Participant: ${String((d.participant as { name?: unknown })?.name ?? '—')}`);
  if (e.type === 'FieldsReplaced') parts.push(`필드/Fields: ${Array.isArray(d.fields) ? d.fields.length : 0}`);
  if (e.type === 'ParticipantSigned') {
    parts.push(`인증/Auth: ${d.auth_method === 'sms_pin' ? `SMS PIN ${str(d.auth_phone_masked) ?? ''}`.trim() : 'none'}`);
    const seal = d.seal as { seal_id?: string | null; image?: { sha256?: string }; source?: string } | null;
    if (seal?.image?.sha256) {
      // Where the seal came from (recorded since issue 30; older signatures: a seal id or an upload).
      const source = seal.source ? `${SEAL_SOURCE_LABELS[seal.source] ?? seal.source}${seal.seal_id ? ` ${seal.seal_id}` : ''}` : (seal.seal_id ?? 'uploaded');
      parts.push(`도장/Seal: ${source} sha256 ${seal.image.sha256}`);
    }
    const signature = d.signature as { sha256?: string } | null;
    if (signature?.sha256) parts.push(`서명 이미지/Signature image sha256 ${signature.sha256}`);
  }
  if (e.type === 'PinIssued') parts.push(`수신/To: ${str(d.phone_masked) ?? '—'}`);
  if (e.type === 'ParticipantDeclined' || e.type === 'DocumentCanceled') {
    if (str(d.reason)) parts.push(`사유/Reason: ${maskContacts(String(d.reason))}`);
  }
  if (e.type === 'DocumentSent' && str(d.expires_at)) parts.push(`만료/Expires: ${formatCertificateTime(String(d.expires_at), timeZone)}`);
  if (e.type === 'DocumentCompleted') {
    const final = (d.final_pdf as { sha256?: string } | null)?.sha256;
    if (final) parts.push(`final PDF sha256 ${final}`);
  }
  // Stored as DocumentCertified, or DocumentSealed by documents concluded before issue 35.
  if (isCertificationEvent(e)) {
    const proof = certificationProofOf<DocumentCertificationProof>(e);
    if (proof) parts.push(`인증 헤드/Certified head: revision ${proof.head.revision} ${proof.head.hash}${proof.timestamped_at ? ` · TSA ${proof.timestamped_at}` : ''}`);
  }
  const ip = str(d.ip) ?? str(e.metadata.ip);
  if (ip) parts.push(`IP ${ip}`);
  const ua = str(d.user_agent);
  if (ua) parts.push(`UA ${ua}`);
  return parts.length ? parts.join('\n') : null;
}

/** Every stored event, in order, with its recorded time and actor; a time in a detail is written in `timeZone` (the organization's). */
export function timelineOf(events: StoredEvent[], row: DocumentRow, timeZone = 'Asia/Seoul'): AuditTimelineEntry[] {
  // Actors named as /audit and /history name them (actorsOf).
  const actors = actorsOf(events);
  return events.map((e, i) => ({ at: String(e.metadata.occurred_at ?? ''), event: e.type, actor: actors[i], detail: detailOf(e, row, timeZone) }));
}

/** The conclusion section: status, who concluded it and when, the last signature's identity check, the certification. */
export function conclusionOf(facts: DocumentFacts, events: StoredEvent[], row: DocumentRow): AuditConclusion {
  const last = facts.signatures[facts.signatures.length - 1] ?? null;
  const certificationEvent = events.find(isCertificationEvent);
  const created = events.find((e) => e.type === 'DocumentCreated')?.data as { author_name?: string; organization_id?: string } | undefined;
  const proof = certificationEvent ? (certificationProofOf<DocumentCertificationProof>(certificationEvent) ?? null) : null;
  return {
    status: facts.status,
    event_count: facts.events.length,
    created_at: facts.created_at,
    created_by: facts.created_by,
    sender: created ? `${created.author_name ?? '—'} (${created.organization_id ?? '—'})` : null,
    sent_at: facts.sent_at,
    sent_by: facts.sent_by,
    expires_at: facts.expires_at,
    concluded_at: facts.concluded?.at ?? null,
    concluded_by: facts.concluded?.actor ?? null,
    last_signature:
      facts.status === 'completed' && last
        ? {
            name: nameOf(row, last.participant_id),
            signed_at: last.signed_at,
            auth: last.auth_method,
            phone_masked: last.auth_phone_masked ?? maskPhone(null),
            actor: last.actor,
            ip: last.ip,
          }
        : null,
    declined: facts.declined
      ? {
          name: nameOf(row, facts.declined.participant_id),
          declined_at: facts.declined.declined_at,
          reason: facts.declined.reason === null ? null : maskContacts(facts.declined.reason),
          ip: facts.declined.ip,
          user_agent: facts.declined.user_agent,
        }
      : null,
    canceled: facts.canceled ? { canceled_at: facts.canceled.canceled_at, reason: facts.canceled.reason === null ? null : maskContacts(facts.canceled.reason), actor: facts.canceled.actor } : null,
    certified: proof ? { sealed_at: proof.sealed_at, timestamped_at: proof.timestamped_at, revision: proof.head.revision, hash: proof.head.hash } : null,
  };
}
