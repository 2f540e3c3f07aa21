import { DocumentCertification, documentDecider, DocumentEvent, documentStreamId, foldOnto } from '@dojang/domain';
import { upcast } from '@dojang/projections';
import { EventStore, StoredEvent } from '@dojang/event-store';
import { ReadDoc, ReadStore } from '@dojang/read-store';
import { LtvError, requestTimestampToken, SigningCertificateInvalidError, TimestampError } from '@dojang/evidence';
import { certificationProofOf, documentFacts, isCertificationEvent, TERMINAL_EVENTS } from '@dojang/verifier/document-facts';
import { checkTimestampToken, certificationStatementBytes } from '@dojang/verifier/document-certification';
import { Clock } from '../clock';
import { EvidenceIncompleteError } from '../evidence-integrity.error';
import { CommandEntry } from '../commands/command-entry';
import { Reactor } from '../reactors/reactor-runner';
import { certificateSha256, EvidenceKey, signWithEvidenceKey } from './chain-head-proof';

/** The conclusion cannot be certified now (the timestamp authority is unreachable or refused): retry later. */
export class CertificationUnavailableError extends Error {
  readonly name = 'CertificationUnavailableError';
}

/** Asks a timestamp authority for an RFC 3161 token over `data` (SHA-256 imprint). */
export type TimestampClient = (tsaUrl: string, data: Buffer) => Promise<Buffer>;

/** Whether the stored stream has a terminal event with no certification after it. */
export function needsCertification(events: StoredEvent[]): boolean {
  const terminal = events.find((e) => TERMINAL_EVENTS[e.type]);
  return !!terminal && !certificationAfter(events, terminal);
}

/**
 * The certification after the terminal event, read from the stored (not upcast) stream: stored as
 * `DocumentCertified`, or as `DocumentSealed` by documents concluded before issue 35.
 */
const certificationAfter = (events: StoredEvent[], terminal: StoredEvent) => events.find((e) => isCertificationEvent(e) && e.stream_revision > terminal.stream_revision);

/**
 * That a document was certified, kept outside its stream: what tells a removed certification from
 * one not made yet. Its field names (`seal_revision`, `seal_event_id`, `sealed_at`) are stored, and
 * keep the name the certification had before issue 35.
 */
export interface CertificationRecord extends ReadDoc {
  /** The document id. */
  id: string;
  terminal_type: string;
  terminal_revision: number;
  seal_revision: number;
  seal_event_id: string;
  sealed_at: string;
}

/**
 * Where the certifier writes down every certification it made (or found). It lives in the read
 * store, apart from the event log, and is no projection: nothing rebuilds or empties it. Without it
 * a certification deleted from the log would be made again, over whatever the log then says, by the next
 * evidence read (issue 31 item 7).
 */
export interface CertificationLedger {
  find(documentId: string): Promise<CertificationRecord | null>;
  /** Writes the record unless one is there already (the first certification is the one that counts). */
  record(record: CertificationRecord): Promise<void>;
}

/** A stored collection name (from before issue 35, when the certification was called a seal): kept, since installations hold it. */
export const CERTIFICATION_LEDGER = 'document_seals';

export function readStoreCertificationLedger(reads: ReadStore): CertificationLedger {
  let ready: Promise<void> | null = null;
  const ensure = () => (ready ??= reads.ensureCollection({ name: CERTIFICATION_LEDGER }).catch((err) => {
    ready = null;
    throw err;
  }));
  return {
    async find(documentId) {
      await ensure();
      return reads.get<CertificationRecord>(CERTIFICATION_LEDGER, documentId);
    },
    async record(record) {
      await ensure();
      await reads.putIfVersion(CERTIFICATION_LEDGER, record, null);
    },
  };
}

/**
 * Certifies a concluded document: Dojang's own signature over the stored head right after its
 * terminal event (so the last signature, the decline, the cancel or the expiry are inside)
 * together with the facts derived from those events, dated with a trusted timestamp when TSA_URL
 * is set, appended as `DocumentCertified` (docs/EVIDENCE.md; called a seal before issue 35). The
 * stored hash of the terminal event exists only once it is appended, so the certification is the
 * next event: the reactor writes it moments after, and every evidence read (bundle, audit
 * certificate) makes sure it is there first. Idempotent: the decider adds nothing to a certified
 * document, and the append's expected revision makes the certification the event right after the
 * head it signs.
 */
export class DocumentCertifier {
  constructor(
    private readonly events: EventStore,
    private readonly commands: CommandEntry,
    private readonly ledger: CertificationLedger,
    private readonly key: () => Promise<EvidenceKey>,
    private readonly clock: Clock,
    private readonly tsaUrl: string | null,
    private readonly timestamp: TimestampClient = (url, data) => requestTimestampToken(url, data),
  ) {}

  /**
   * True when this call appended the certification. A TSA that cannot be reached throws
   * CertificationUnavailableError (the reactor retries); a certification the ledger says was made but the log no longer holds throws
   * EvidenceIncompleteError, and nothing is appended.
   */
  async ensureCertified(documentId: string): Promise<boolean> {
    try {
      return await this.certify(documentId);
    } catch (error) {
      // The TSA away, its certificate revoked or expired, or no usable revocation data for it: retry later.
      if (error instanceof TimestampError || error instanceof SigningCertificateInvalidError || error instanceof LtvError) throw new CertificationUnavailableError(error.message);
      throw error;
    }
  }

  private async certify(documentId: string): Promise<boolean> {
    const stream = documentStreamId(documentId);
    const stored = await this.events.readStream(stream);
    const terminal = stored.find((e) => TERMINAL_EVENTS[e.type]);
    if (!terminal) return false;
    const present = certificationAfter(stored, terminal);
    if (present) {
      // Certified before the ledger existed, or the ledger write after the append failed: written now.
      if (!(await this.ledger.find(documentId))) await this.ledger.record(recordOf(documentId, terminal, present));
      return false;
    }
    const recorded = await this.ledger.find(documentId);
    if (recorded) {
      throw new EvidenceIncompleteError(
        `the ${terminal.type} at revision ${terminal.stream_revision} of document ${documentId} is not followed by its certification, which was appended at revision ${recorded.seal_revision} (event ${recorded.seal_event_id}, certified at ${recorded.sealed_at}): the certification was removed from the log`,
      );
    }
    const first = stored[0].metadata as { organization_id?: string; livemode?: boolean };
    // The stream as just read, folded: the decision reads only what was appended after it (usually
    // nothing), instead of the whole stream again. The certification signs the stream as the
    // decision saw it: `stored` when nothing came after (the fold of no events is `known.state`
    // itself, and every document event makes a new state), else the stream read again. Before
    // this, each certification read the whole stream four times (issue 35 item 5).
    const known = { state: foldOnto(documentDecider, documentDecider.initialState(), stored.map(upcast) as unknown as DocumentEvent[]), revision: stored[stored.length - 1].stream_revision };
    const decision = await this.commands.decide(
      documentDecider,
      stream,
      async (before) => ({
        type: 'CertifyDocument' as const,
        now: this.clock.now().toISOString(),
        certification: await this.certificationOf(documentId, before === known.state ? stored : await this.events.readStream(stream)),
      }),
      { actor: 'system', organization_id: first.organization_id, livemode: first.livemode },
      () => this.clock.now().toISOString(),
      { known },
    );
    if (decision.events.length === 0) return false;
    // The certification is the stream's last event now: read alone.
    const certification = (await this.events.readStream(stream, { fromRevision: decision.revision })).find((e) => isCertificationEvent(e));
    // Written after the append: a crash in between leaves a certification the next read records.
    if (certification) await this.ledger.record(recordOf(documentId, terminal, certification));
    return true;
  }

  /** The certification over `history` as stored (raw, not upcast: the verifier derives the facts from the same bytes). */
  async certificationOf(documentId: string, history: StoredEvent[]): Promise<DocumentCertification> {
    const last = history[history.length - 1];
    const head = { revision: last.stream_revision, hash: String(last.metadata.hash), event_count: history.length };
    const facts = documentFacts(documentId, history);
    const sealed_at = this.clock.now().toISOString();
    const key = await this.key();
    const signature = await signWithEvidenceKey(key, certificationStatementBytes({ document_id: documentId, head, facts, sealed_at }));
    let timestamp_token: string | null = null;
    let timestamped_at: string | null = null;
    if (this.tsaUrl) {
      const token = (await this.timestamp(this.tsaUrl, signature)).toString('base64');
      const checked = checkTimestampToken(token, signature);
      if (!checked.ok) throw new TimestampError(`timestamp authority ${this.tsaUrl}: ${checked.detail}`);
      timestamp_token = token;
      timestamped_at = checked.gen_time;
    }
    return {
      head,
      facts: facts as unknown as Record<string, unknown>,
      sealed_at,
      algorithm: 'RSA-SHA256',
      certificate_sha256: certificateSha256(key.certificate),
      signature: signature.toString('base64'),
      timestamp_token,
      timestamped_at,
    };
  }
}

function recordOf(documentId: string, terminal: StoredEvent, certification: StoredEvent): CertificationRecord {
  return {
    id: documentId,
    terminal_type: terminal.type,
    terminal_revision: terminal.stream_revision,
    seal_revision: certification.stream_revision,
    seal_event_id: certification.event_id,
    sealed_at: String(certificationProofOf<{ sealed_at?: unknown }>(certification)?.sealed_at ?? certification.metadata.occurred_at ?? ''),
  };
}

/** Certifies every document that concludes, moments after (at-least-once; the certifier is idempotent). */
export class DocumentCertificationReactor implements Reactor {
  // The reactor's stored name (its checkpoint), from before issue 35: kept, so it does not start over.
  readonly name = 'document_seal';
  readonly handles = new Set(Object.keys(TERMINAL_EVENTS));

  constructor(private readonly certifier: DocumentCertifier) {}

  async react(event: StoredEvent): Promise<void> {
    if (!event.stream_id.startsWith('document-')) return;
    await this.certifier.ensureCertified(event.stream_id.slice('document-'.length));
  }
}
