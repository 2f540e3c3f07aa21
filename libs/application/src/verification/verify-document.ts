import { createHash } from 'crypto';
import { ChainHeadProof, DocumentEvent, DocumentState, documentDecider, wouldComplete } from '@dojang/domain';
import { eventHash, GENESIS_HASH, StoredEvent, verifyChain } from '@dojang/event-store';
import { upcast } from '@dojang/projections';
import { verifyDeliveryChain } from '@dojang/verifier/delivery-chain';
import { CrossCheck, verifyDeliveriesAgree, verifyPlausible, verifyCertification } from '@dojang/verifier/cross-checks';
import { readPdfSignatures } from '@dojang/verifier/pdf-signatures';
import { chainHeadSignatureValid, ChainHead, completingSignatureOf } from './chain-head-proof';

/**
 * The final PDF's own signature judged as `dojang-verify` and the public verify page judge it
 * (libs/verifier: the bytes, the signature timestamp, the certificate valid then, the embedded
 * revocation data saying it was not revoked then); on success it names the signer's subject,
 * fingerprint and chain and when the signature is proven to have existed.
 */
function finalSignatureCheck(pdf: Buffer, at: EventRef, trustAnchors: Buffer[] | undefined): VerificationCheck {
  const signature = readPdfSignatures(pdf, { trustAnchors }).signatures.filter((s) => s.kind === 'signature').pop();
  if (!signature) return { check: 'final_pdf_signature', status: 'failed', detail: 'the final PDF carries no signature', event: at };
  if (!signature.valid) return { check: 'final_pdf_signature', status: 'failed', detail: signature.detail, event: at };
  const chain = signature.chain.map((c) => `${c.subject} (SHA-256 ${c.sha256})`).join(' ← ');
  const when = signature.proven_at ? `proven to exist at ${signature.proven_at} (signature timestamp)` : 'time only claimed (no signature timestamp)';
  // Trust said plainly either way: "trusted: the chain reaches the anchor …" with --trust, else "untrusted issuer: …".
  const trust = signature.trust ? `; ${signature.trust}` : '';
  return { check: 'final_pdf_signature', status: 'ok', detail: `signed by ${chain || signature.signer}; ${when}; revocation: ${signature.revocation ?? 'not judged'}${trust}` };
}

export type CheckName =
  | 'hash_chain'
  | 'completion_present'
  | 'head_signature'
  | 'head_hash'
  | 'event_count'
  | 'seal'
  | 'plausible'
  | 'original_pdf'
  | 'final_pdf'
  | 'final_pdf_signature'
  | 'witness_pdf'
  | 'delivery_chain'
  | 'deliveries_agree';

export interface EventRef {
  revision: number;
  type: string;
  id: string;
}

export interface VerificationCheck {
  check: CheckName;
  status: 'ok' | 'failed' | 'not_applicable';
  detail: string;
  /** The event where the check failed (or what it checked). */
  event?: EventRef;
}

export interface VerificationInput {
  events: StoredEvent[];
  /** The installation's document-signing certificate (DER): the only key a head proof is checked against. */
  certificate: Buffer | null;
  blob(sha256: string): Promise<Buffer | null | undefined>;
  /** The chain head a final PDF carries (read from a copy the auditor holds), if one was given. */
  witness?: { head: ChainHead | null; sha256: string } | null;
  /** Certificates (DER) the auditor trusts (`cli verify --trust FILE`): the final PDF's signer chain must reach one. */
  trustAnchors?: Buffer[];
  /** The document's `delivery-<id>` stream, checked with the offline verifier's walk when given. */
  deliveries?: { document_id: string; events: StoredEvent[] } | null;
}

export interface DocumentVerification {
  intact: boolean;
  events: number;
  head_hash: string | null;
  /** Events in the delivery stream, when it was checked. */
  deliveries?: number;
  checks: VerificationCheck[];
  /** The first failed check, for a one-line verdict. */
  failure: VerificationCheck | null;
}

const ref = (e: StoredEvent | undefined): EventRef | undefined => (e ? { revision: e.stream_revision, type: e.type, id: e.event_id } : undefined);
const describe = (e: EventRef) => `revision ${e.revision} (${e.type}, id ${e.id})`;
const sha256Hex = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');

/** Hashes recomputed from content alone, whatever the stored hashes say: what a re-hash would produce. */
function recomputedHashes(events: StoredEvent[]): string[] {
  const out: string[] = [];
  let prev = GENESIS_HASH;
  for (const e of events) {
    prev = eventHash(e, prev);
    out.push(prev);
  }
  return out;
}

/**
 * Everything `cli verify` proves about a document stream, store-independent (the events may come
 * from SQLite, PostgreSQL or EventStoreDB): the links, the signed head against a log re-hashed
 * with plain SHA-256, the event count against a log cut short, the completion's original and
 * final PDF. Each check names the event it failed at.
 */
export async function verifyDocumentEvidence(input: VerificationInput): Promise<DocumentVerification> {
  const { events } = input;
  const checks: VerificationCheck[] = [];
  const chain = verifyChain(events);
  if (chain.intact) {
    checks.push({ check: 'hash_chain', status: 'ok', detail: `${events.length} events, every prev_hash and hash matches` });
  } else {
    const at = events.find((e) => e.stream_revision === chain.broken_at_revision) ?? events[chain.broken_at_revision];
    checks.push({ check: 'hash_chain', status: 'failed', detail: `broken at revision ${chain.broken_at_revision}: ${chain.reason}`, event: ref(at) });
  }

  // The decider writes the completion in the same append as the signature that completes the
  // document, so a log that ends right after such a signature has lost its tail.
  let state: DocumentState = documentDecider.initialState();
  let truncatedAfter: StoredEvent | undefined;
  for (let i = 0; i < events.length; i++) {
    const e = upcast(events[i]);
    if (e.type === 'ParticipantSigned' && wouldComplete(state, String(e.data.participant_id)) && events[i + 1]?.type !== 'DocumentCompleted') {
      truncatedAfter = events[i];
    }
    state = documentDecider.evolve(state, e as unknown as DocumentEvent);
  }
  const completedAt = events.findIndex((e) => e.type === 'DocumentCompleted');
  const completed = completedAt >= 0 ? events[completedAt] : undefined;
  if (truncatedAfter) {
    const at = ref(truncatedAfter)!;
    checks.push({
      check: 'completion_present',
      status: 'failed',
      detail: `the signature at ${describe(at)} completed the document but no DocumentCompleted follows it: the log was cut short`,
      event: at,
    });
  } else {
    checks.push({ check: 'completion_present', status: 'ok', detail: completed ? `completed at revision ${completed.stream_revision}` : 'document not completed' });
  }

  const recomputed = recomputedHashes(events);
  if (!completed) {
    for (const check of ['head_signature', 'head_hash', 'event_count'] as const) {
      checks.push({ check, status: 'not_applicable', detail: 'no DocumentCompleted: nothing was sealed' });
    }
  } else {
    const at = ref(completed)!;
    const data = completed.data as { original_sha256: string | null; final_pdf: { sha256: string } | null; chain_head?: ChainHeadProof | null };
    const proof = data.chain_head ?? null;
    const signer = events[completedAt - 1];
    if (!proof) {
      checks.push({ check: 'head_signature', status: 'failed', detail: `the completion at ${describe(at)} carries no signed chain head`, event: at });
    } else {
      const head: ChainHead = { revision: proof.revision, hash: proof.hash, event_count: proof.event_count, completed_event_count: proof.completed_event_count };
      const statement = {
        document_id: state.id,
        head,
        signer: completingSignatureOf(signer?.type === 'ParticipantSigned' ? signer.data : {}),
        original_sha256: data.original_sha256,
        final_pdf_sha256: data.final_pdf?.sha256 ?? null,
      };
      if (!input.certificate) {
        checks.push({ check: 'head_signature', status: 'failed', detail: 'no document-signing certificate to check the chain head against', event: at });
      } else if (!chainHeadSignatureValid(statement, proof, input.certificate)) {
        checks.push({
          check: 'head_signature',
          status: 'failed',
          detail: `the chain head signed in the completion at ${describe(at)} does not verify with the document-signing certificate (the completion, the signature it follows, the original or the final PDF were changed)`,
          event: at,
        });
      } else {
        checks.push({ check: 'head_signature', status: 'ok', detail: `head at revision ${proof.revision} signed by certificate sha256 ${proof.certificate_sha256}` });
      }
      const headEvent = ref(events[proof.revision]);
      if (recomputed[proof.revision] !== proof.hash) {
        checks.push({
          check: 'head_hash',
          status: 'failed',
          detail: `the events up to ${headEvent ? describe(headEvent) : `revision ${proof.revision}`} hash to ${recomputed[proof.revision] ?? 'nothing'}, not the signed head ${proof.hash}: an event at or before it was changed or removed and the chain re-hashed`,
          event: headEvent ?? at,
        });
      } else {
        checks.push({ check: 'head_hash', status: 'ok', detail: `revisions 0..${proof.revision} hash to the signed head ${proof.hash}` });
      }
      if (completed.stream_revision !== proof.completed_event_count - 1 || events.length < proof.completed_event_count) {
        checks.push({
          check: 'event_count',
          status: 'failed',
          detail: `the signed head counts ${proof.completed_event_count} events up to the completion, the log has the completion at ${describe(at)} and ${events.length} events`,
          event: at,
        });
      } else {
        checks.push({ check: 'event_count', status: 'ok', detail: `${proof.completed_event_count} events up to the completion, as signed` });
      }
    }

    const sent = events.find((e) => e.type === 'DocumentSent');
    const sentOriginal = (sent?.data.original_pdf as { sha256: string } | null | undefined)?.sha256 ?? null;
    if (!sentOriginal) {
      checks.push({ check: 'original_pdf', status: 'not_applicable', detail: 'the send fixed no original PDF' });
    } else if (data.original_sha256 !== sentOriginal) {
      checks.push({
        check: 'original_pdf',
        status: 'failed',
        detail: `the completion at ${describe(at)} records original ${data.original_sha256 ?? 'null'}, the send fixed ${sentOriginal}`,
        event: at,
      });
    } else {
      checks.push({ check: 'original_pdf', status: 'ok', detail: `the completion names the original fixed at send, ${sentOriginal}` });
    }

    if (!data.final_pdf) {
      checks.push({ check: 'final_pdf', status: 'not_applicable', detail: 'no final PDF recorded' });
    } else {
      const bytes = await input.blob(data.final_pdf.sha256);
      const status = !bytes ? 'missing from the blob store' : sha256Hex(bytes) === data.final_pdf.sha256 ? null : 'altered (its SHA-256 differs)';
      checks.push(
        status
          ? { check: 'final_pdf', status: 'failed', detail: `final PDF ${data.final_pdf.sha256} ${status}`, event: at }
          : { check: 'final_pdf', status: 'ok', detail: `final PDF matches its recorded SHA-256 ${data.final_pdf.sha256}` },
      );
      // The file served now: the newest archive round's, else the completion's.
      const archives = events.filter((e) => e.type === 'DocumentArchiveTimestamped');
      const newest = (archives[archives.length - 1]?.data as { final_pdf?: { sha256: string } } | undefined)?.final_pdf?.sha256 ?? data.final_pdf.sha256;
      const served = newest === data.final_pdf.sha256 ? (status ? null : bytes) : await input.blob(newest);
      if (served && sha256Hex(served) === newest) checks.push(finalSignatureCheck(served, at, input.trustAnchors));
      else if (newest !== data.final_pdf.sha256) checks.push({ check: 'final_pdf_signature', status: 'failed', detail: `the newest final PDF ${newest} is missing from the blob store or altered`, event: at });
    }
  }

  // The conclusion's certification (check id `seal`, its name before issue 35: scripts read it)
  // and the facts' own order, by the same functions as dojang-verify.
  const documentId = String(events[0]?.data.document_id ?? state.id);
  checks.push(crossCheck('seal', verifyCertification(documentId, events, input.certificate ?? undefined), events));
  checks.push(crossCheck('plausible', verifyPlausible(documentId, events), events));

  if (input.witness) {
    const { head, sha256 } = input.witness;
    // The completion's file or one the archive job made from it (both were issued).
    const recordedFiles = [
      (completed?.data.final_pdf as { sha256: string } | null | undefined)?.sha256,
      ...events.filter((e) => e.type === 'DocumentArchiveTimestamped').map((e) => (e.data as { final_pdf: { sha256: string } }).final_pdf.sha256),
    ].filter((x): x is string => !!x);
    const recorded = recordedFiles.includes(sha256) ? sha256 : recordedFiles[recordedFiles.length - 1];
    if (!head) {
      checks.push({ check: 'witness_pdf', status: 'failed', detail: `the given PDF (sha256 ${sha256}) carries no Dojang chain head` });
    } else if (recomputed[head.revision] !== head.hash || events.length < head.completed_event_count) {
      checks.push({
        check: 'witness_pdf',
        status: 'failed',
        detail: `the given PDF was sealed over ${head.completed_event_count} events with head ${head.hash} at revision ${head.revision}; the log has ${events.length} events and hashes to ${recomputed[head.revision] ?? 'nothing'} there`,
        event: ref(events[Math.min(head.revision, events.length - 1)]),
      });
    } else if (recorded !== sha256) {
      checks.push({ check: 'witness_pdf', status: 'failed', detail: `the given PDF (sha256 ${sha256}) is not the final PDF the log records (${recorded ?? 'none'})`, event: ref(completed) });
    } else {
      checks.push({ check: 'witness_pdf', status: 'ok', detail: `the given PDF is the recorded final PDF and its chain head matches the log` });
    }
  }

  if (input.deliveries) {
    checks.push(deliveryChainCheck(input.deliveries.document_id, input.deliveries.events));
    checks.push(crossCheck('deliveries_agree', verifyDeliveriesAgree(documentId, events, input.deliveries.events), events));
  }

  const failure = checks.find((c) => c.status === 'failed') ?? null;
  return {
    intact: !failure,
    events: events.length,
    head_hash: chain.intact ? chain.head_hash : null,
    ...(input.deliveries ? { deliveries: input.deliveries.events.length } : {}),
    checks,
    failure,
  };
}

function crossCheck(check: CheckName, c: CrossCheck, events: StoredEvent[]): VerificationCheck {
  const at = c.revision === undefined ? undefined : ref(events.find((e) => e.stream_revision === c.revision));
  return { check, status: c.status === 'pass' ? 'ok' : c.status === 'skip' ? 'not_applicable' : 'failed', detail: c.detail, ...(at ? { event: at } : {}) };
}

/**
 * The delivery stream by the same walk as `dojang-verify` (libs/verifier/delivery-chain.ts):
 * its events belong to `delivery-<id>` and are about this document, and the chain links. No head
 * seals it on the server; the audit certificate's countersignature seals what it listed.
 */
function deliveryChainCheck(documentId: string, deliveries: StoredEvent[]): VerificationCheck {
  const stream = `delivery-${documentId}`;
  const verdict = verifyDeliveryChain(documentId, deliveries);
  if (!verdict.intact) {
    const at = deliveries.find((e) => e.stream_revision === verdict.broken_at) ?? deliveries[verdict.broken_at];
    return { check: 'delivery_chain', status: 'failed', detail: `${stream} broken at revision ${verdict.broken_at}: ${verdict.reason}`, event: ref(at) };
  }
  return {
    check: 'delivery_chain',
    status: 'ok',
    detail: deliveries.length ? `${deliveries.length} deliveries in ${stream}, every prev_hash and hash matches (head ${verdict.head_hash})` : `no deliveries recorded in ${stream}`,
  };
}
