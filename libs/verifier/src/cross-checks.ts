import { eventHash, GENESIS_HASH, HashableEvent } from '@dojang/event-store/hash-chain';
import type { BundledEvent } from './bundle-format';
import { describeDifferences, DocumentFacts, documentFacts, EventFact, factDifferences, implausibleFacts, certificationProofOf, isCertificationEvent, TERMINAL_EVENTS } from './document-facts';
import { checkTimestampToken, DocumentCertificationProof, certificationSignatureProblem } from './document-certification';

/**
 * The checks that compare one piece of evidence with another — the certification with the events, the
 * events with themselves, the deliveries with the events, the audit certificate's facts with the
 * events — shared by `dojang-verify` (a bundle) and `cli verify` (the stores). Each failure names
 * the fact that disagrees.
 */
export interface CrossCheck {
  status: 'pass' | 'fail' | 'skip';
  detail: string;
  /** The stream revision the check failed at, when one is to blame. */
  revision?: number;
}

const asEvents = (events: BundledEvent[]): HashableEvent[] => events.map((e) => ({ ...e, metadata: e.metadata ?? {} }));

function recomputed(events: BundledEvent[]): string[] {
  let prev = GENESIS_HASH;
  // An event served masked (an auditor's bundle) counts with its stored hash.
  return asEvents(events).map((e, i) => (prev = events[i].redacted ? String(events[i].metadata?.hash) : eventHash(e, prev)));
}

const SKEW_MS = 5 * 60_000;

/**
 * Every terminal event is followed by Dojang's certification (`DocumentCertified`, or
 * `DocumentSealed` as documents concluded before issue 35 stored it) whose signed head covers it:
 * the certified facts are the facts of the events up to that head, the events there hash to the
 * signed head, the signature is the certificate's key's, and a timestamp token (when there is one)
 * covers the signature.
 */
export function verifyCertification(documentId: string, events: BundledEvent[], certificate: Buffer | undefined): CrossCheck {
  const terminal = events.find((e) => TERMINAL_EVENTS[e.type]);
  const certifications = events.filter(isCertificationEvent);
  if (!terminal) {
    if (certifications.length) {
      return { status: 'fail', detail: `a ${certifications[0].type} at revision ${certifications[0].stream_revision} certifies a concluded document, but the log holds no completion, decline, cancel or expiry (removed)`, revision: certifications[0].stream_revision };
    }
    return { status: 'skip', detail: 'not concluded: nothing is certified until the document is completed, declined, canceled or expired' };
  }
  const certificationEvent = certifications.find((e) => e.stream_revision > terminal.stream_revision);
  if (!certificationEvent) {
    return {
      status: 'fail',
      detail: `the ${terminal.type} at revision ${terminal.stream_revision} is not followed by a DocumentCertified: the certification was removed (or the log cut short)`,
      revision: terminal.stream_revision,
    };
  }
  const proof = certificationProofOf<DocumentCertificationProof>(certificationEvent);
  if (!proof?.head || !proof.facts) return { status: 'fail', detail: `the ${certificationEvent.type} at revision ${certificationEvent.stream_revision} carries no certification`, revision: certificationEvent.stream_revision };
  if (!certificate) return { status: 'fail', detail: 'no document-signing certificate to check the certification with' };
  if (proof.head.revision < terminal.stream_revision || certificationEvent.stream_revision !== proof.head.revision + 1) {
    return { status: 'fail', detail: `the ${certificationEvent.type} at revision ${certificationEvent.stream_revision} certifies the head at revision ${proof.head.revision}, not the events before it`, revision: certificationEvent.stream_revision };
  }
  const derived = documentFacts(documentId, events, proof.head.revision);
  const diffs = factDifferences(proof.facts, derived);
  if (diffs.length) {
    return {
      status: 'fail',
      detail: `the events no longer say what was certified at revision ${proof.head.revision}: ${describeDifferences(diffs, 'certified', 'events')}`,
      revision: proof.head.revision,
    };
  }
  const hashes = recomputed(events);
  if (hashes[proof.head.revision] !== proof.head.hash || proof.head.event_count !== proof.head.revision + 1) {
    return {
      status: 'fail',
      detail: `the events up to revision ${proof.head.revision} hash to ${hashes[proof.head.revision] ?? 'nothing'}, not the certified head ${proof.head.hash} (an event was changed and the chain re-hashed)`,
      revision: proof.head.revision,
    };
  }
  const problem = certificationSignatureProblem(documentId, proof, certificate);
  if (problem) return { status: 'fail', detail: `the certification at revision ${certificationEvent.stream_revision} does not verify: ${problem}`, revision: certificationEvent.stream_revision };
  let time = `server clock ${proof.sealed_at} (no timestamp authority configured)`;
  if (proof.timestamp_token) {
    const ts = checkTimestampToken(proof.timestamp_token, Buffer.from(proof.signature, 'base64'));
    if (!ts.ok) return { status: 'fail', detail: `the certification's timestamp: ${ts.detail}`, revision: certificationEvent.stream_revision };
    const concludedAt = Date.parse(String(terminal.metadata?.occurred_at ?? ''));
    if (Date.parse(ts.gen_time) + SKEW_MS < concludedAt) {
      return { status: 'fail', detail: `the ${terminal.type} says it was recorded at ${String(terminal.metadata?.occurred_at)}, after the trusted time ${ts.gen_time} that certified it`, revision: terminal.stream_revision };
    }
    if (proof.timestamped_at !== ts.gen_time) {
      return { status: 'fail', detail: `the certification restates its timestamp as ${proof.timestamped_at}, the token says ${ts.gen_time}`, revision: certificationEvent.stream_revision };
    }
    time = `timestamped ${ts.gen_time} by ${ts.tsa}`;
  }
  return {
    status: 'pass',
    detail: `the ${terminal.type} at revision ${terminal.stream_revision} and every event up to revision ${proof.head.revision} are certified (${derived.status}; ${time})`,
  };
}

/** Facts that contradict each other whatever was signed (a conclusion before the creation…). */
export function verifyPlausible(documentId: string, events: BundledEvent[]): CrossCheck {
  const problems = implausibleFacts(documentFacts(documentId, events));
  return problems.length ? { status: 'fail', detail: problems.join('; ') } : { status: 'pass', detail: 'times and conclusions are in order' };
}

/** The deliveries that only follow a conclusion: a notice of it proves the conclusion happened. */
const NOTICE_OF: Record<string, string> = { completed: 'DocumentCompleted', declined: 'DocumentDeclined', canceled: 'DocumentCanceled', expired: 'DocumentExpired' };

/**
 * The delivery stream and the document stream tell the same story: a completion, decline, cancel
 * or expiry notice was only ever sent after the event it announces, so a notice with no such
 * event in the log means the log lost its end (or the event was removed).
 */
export function verifyDeliveriesAgree(documentId: string, events: BundledEvent[], deliveries: BundledEvent[]): CrossCheck {
  const facts = documentFacts(documentId, events);
  for (const d of deliveries) {
    const kind = String((d.data as { kind?: unknown }).kind ?? '');
    const announced = NOTICE_OF[kind];
    if (announced && !events.some((e) => e.type === announced)) {
      return {
        status: 'fail',
        detail: `delivery revision ${d.stream_revision} is a ${kind} notice sent at ${String((d.data as { delivered_at?: unknown }).delivered_at)}, but the events hold no ${announced} (status ${facts.status}): the log was cut short or the ${announced} removed`,
      };
    }
  }
  return { status: 'pass', detail: deliveries.length ? `${deliveries.length} deliveries agree with the events (${facts.status})` : 'no deliveries to compare' };
}

/** What the audit certificate embeds (`DojangAuditFacts`) and prints: the facts of the events it was made from. */
export interface AuditFactsEntry {
  document_id: string;
  event_count: number;
  head_hash: string | null;
  facts: DocumentFacts;
}

export const AUDIT_FACTS_PDF_KEY = 'DojangAuditFacts';

/**
 * The certified events the log no longer holds, each named as itself: matched in order by type,
 * recorded time and actor, not by position, so a decline deleted from the middle (and the rest
 * re-numbered and re-hashed) is named as the decline, not as whatever now sits at the end.
 */
export function missingEvents(certified: EventFact[], log: EventFact[]): EventFact[] {
  const missing: EventFact[] = [];
  let next = 0;
  for (const fact of certified) {
    let at = next;
    while (at < log.length && !sameEvent(fact, log[at])) at++;
    if (at < log.length) next = at + 1;
    else missing.push(fact);
  }
  return missing;
}

function sameEvent(a: EventFact, b: EventFact): boolean {
  return a.type === b.type && a.occurred_at === b.occurred_at && a.actor === b.actor;
}

/**
 * The audit certificate was generated from the log: its embedded facts (the ones it prints) are
 * the facts of the first `event_count` events, which must hash to its head. A log edited after
 * the certificate was made, or a certificate edited, disagrees and the fact is named.
 */
export function verifyCertificateFacts(documentId: string, events: BundledEvent[], entry: AuditFactsEntry | null, certificateSigned: boolean): CrossCheck {
  if (!entry) return { status: 'fail', detail: 'the audit certificate embeds no facts to compare with the events' };
  if (!certificateSigned) return { status: 'fail', detail: "the audit certificate's signature does not verify, so the facts it states cannot be trusted" };
  if (entry.document_id !== documentId) return { status: 'fail', detail: `the audit certificate is about document ${entry.document_id}` };
  if (events.length < entry.event_count) {
    const lost = missingEvents(entry.facts.events, documentFacts(documentId, events).events).map((e) => `${e.type} at revision ${e.revision}`);
    return { status: 'fail', detail: `the audit certificate lists ${entry.event_count} events (status ${entry.facts.status}), the log has ${events.length}: missing ${lost.join(', ')}` };
  }
  const derived = documentFacts(documentId, events, entry.event_count - 1);
  const diffs = factDifferences(entry.facts, derived);
  if (diffs.length) return { status: 'fail', detail: `the audit certificate states what the events do not: ${describeDifferences(diffs, 'certificate', 'events')}` };
  const hashes = recomputed(events);
  if ((entry.event_count ? hashes[entry.event_count - 1] : null) !== entry.head_hash) {
    return { status: 'fail', detail: `the audit certificate was made from ${entry.event_count} events with head ${entry.head_hash}; the events here hash to ${hashes[entry.event_count - 1]}` };
  }
  return { status: 'pass', detail: `the audit certificate states the facts of the first ${entry.event_count} events (${entry.facts.status})` };
}
