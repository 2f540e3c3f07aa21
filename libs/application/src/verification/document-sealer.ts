import { DocumentSeal, documentDecider, documentStreamId } from '@dojang/domain';
import { EventStore, StoredEvent } from '@dojang/event-store';
import { ReadDoc, ReadStore } from '@dojang/read-store';
import { LtvError, requestTimestampToken, SigningCertificateInvalidError, TimestampError } from '@dojang/evidence';
import { documentFacts, SEAL_EVENT, TERMINAL_EVENTS } from '@dojang/verifier/document-facts';
import { checkTimestampToken, sealStatementBytes } from '@dojang/verifier/document-seal';
import { Clock } from '../clock';
import { EvidenceIncompleteError } from '../evidence-integrity.error';
import { CommandEntry } from '../commands/command-entry';
import { Reactor } from '../reactors/reactor-runner';
import { certificateSha256, EvidenceKey, signWithEvidenceKey } from './chain-head-proof';

/** The conclusion cannot be sealed now (the timestamp authority is unreachable or refused): retry later. */
export class SealUnavailableError extends Error {
  readonly name = 'SealUnavailableError';
}

/** Asks a timestamp authority for an RFC 3161 token over `data` (SHA-256 imprint). */
export type TimestampClient = (tsaUrl: string, data: Buffer) => Promise<Buffer>;

/** Whether the stored stream has a terminal event with no DocumentSealed after it. */
export function needsSeal(events: StoredEvent[]): boolean {
  const terminal = events.find((e) => TERMINAL_EVENTS[e.type]);
  return !!terminal && !sealAfter(events, terminal);
}

const sealAfter = (events: StoredEvent[], terminal: StoredEvent) => events.find((e) => e.type === SEAL_EVENT && e.stream_revision > terminal.stream_revision);

/** That a document was sealed, kept outside its stream: what tells a removed seal from one not made yet. */
export interface SealRecord extends ReadDoc {
  /** The document id. */
  id: string;
  terminal_type: string;
  terminal_revision: number;
  seal_revision: number;
  seal_event_id: string;
  sealed_at: string;
}

/**
 * Where the sealer writes down every seal it made (or found). It lives in the read store, apart
 * from the event log, and is no projection: nothing rebuilds or empties it. Without it a seal
 * deleted from the log would be made again, over whatever the log then says, by the next
 * evidence read (issue 31 item 7).
 */
export interface SealLedger {
  find(documentId: string): Promise<SealRecord | null>;
  /** Writes the record unless one is there already (the first seal is the one that counts). */
  record(record: SealRecord): Promise<void>;
}

export const DOCUMENT_SEALS = 'document_seals';

export function readStoreSealLedger(reads: ReadStore): SealLedger {
  let ready: Promise<void> | null = null;
  const ensure = () => (ready ??= reads.ensureCollection({ name: DOCUMENT_SEALS }).catch((err) => {
    ready = null;
    throw err;
  }));
  return {
    async find(documentId) {
      await ensure();
      return reads.get<SealRecord>(DOCUMENT_SEALS, documentId);
    },
    async record(record) {
      await ensure();
      await reads.putIfVersion(DOCUMENT_SEALS, record, null);
    },
  };
}

/**
 * Seals a concluded document: signs the stored head right after its terminal event (so the last
 * signature, the decline, the cancel or the expiry are inside) together with the facts derived
 * from those events, dates the signature with a trusted timestamp when TSA_URL is set, and
 * appends it as `DocumentSealed` (docs/EVIDENCE.md). The stored hash of the terminal event exists
 * only once it is appended, so the seal is the next event: the reactor writes it moments after,
 * and every evidence read (bundle, audit certificate) makes sure it is there first. Idempotent:
 * the decider adds nothing to a sealed document, and the append's expected revision makes the
 * seal the event right after the head it signs.
 */
export class DocumentSealer {
  constructor(
    private readonly events: EventStore,
    private readonly commands: CommandEntry,
    private readonly ledger: SealLedger,
    private readonly key: () => Promise<EvidenceKey>,
    private readonly clock: Clock,
    private readonly tsaUrl: string | null,
    private readonly timestamp: TimestampClient = (url, data) => requestTimestampToken(url, data),
  ) {}

  /**
   * True when this call appended the seal. A TSA that cannot be reached throws SealUnavailableError
   * (the reactor retries); a seal the ledger says was made but the log no longer holds throws
   * EvidenceIncompleteError, and nothing is appended.
   */
  async ensureSealed(documentId: string): Promise<boolean> {
    try {
      return await this.seal(documentId);
    } catch (error) {
      // The TSA away, its certificate revoked or expired, or no usable revocation data for it: retry later.
      if (error instanceof TimestampError || error instanceof SigningCertificateInvalidError || error instanceof LtvError) throw new SealUnavailableError(error.message);
      throw error;
    }
  }

  private async seal(documentId: string): Promise<boolean> {
    const stream = documentStreamId(documentId);
    const stored = await this.events.readStream(stream);
    const terminal = stored.find((e) => TERMINAL_EVENTS[e.type]);
    if (!terminal) return false;
    const present = sealAfter(stored, terminal);
    if (present) {
      // Sealed before the ledger existed, or the ledger write after the append failed: written now.
      if (!(await this.ledger.find(documentId))) await this.ledger.record(recordOf(documentId, terminal, present));
      return false;
    }
    const recorded = await this.ledger.find(documentId);
    if (recorded) {
      throw new EvidenceIncompleteError(
        `the ${terminal.type} at revision ${terminal.stream_revision} of document ${documentId} is not followed by its DocumentSealed, which was appended at revision ${recorded.seal_revision} (event ${recorded.seal_event_id}, sealed at ${recorded.sealed_at}): the seal was removed from the log`,
      );
    }
    const first = stored[0].metadata as { organization_id?: string; livemode?: boolean };
    const decision = await this.commands.decide(
      documentDecider,
      stream,
      async () => ({ type: 'SealDocument' as const, now: this.clock.now().toISOString(), seal: await this.sealOf(documentId, await this.events.readStream(stream)) }),
      { actor: 'system', organization_id: first.organization_id, livemode: first.livemode },
      () => this.clock.now().toISOString(),
    );
    if (decision.events.length === 0) return false;
    const after = await this.events.readStream(stream);
    const sealEvent = sealAfter(after, terminal);
    // Written after the append: a crash in between leaves a seal the next read records.
    if (sealEvent) await this.ledger.record(recordOf(documentId, terminal, sealEvent));
    return true;
  }

  /** The seal over `history` as stored (raw, not upcast: the verifier derives the facts from the same bytes). */
  async sealOf(documentId: string, history: StoredEvent[]): Promise<DocumentSeal> {
    const last = history[history.length - 1];
    const head = { revision: last.stream_revision, hash: String(last.metadata.hash), event_count: history.length };
    const facts = documentFacts(documentId, history);
    const sealed_at = this.clock.now().toISOString();
    const key = await this.key();
    const signature = await signWithEvidenceKey(key, sealStatementBytes({ document_id: documentId, head, facts, sealed_at }));
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

function recordOf(documentId: string, terminal: StoredEvent, seal: StoredEvent): SealRecord {
  return {
    id: documentId,
    terminal_type: terminal.type,
    terminal_revision: terminal.stream_revision,
    seal_revision: seal.stream_revision,
    seal_event_id: seal.event_id,
    sealed_at: String((seal.data as { seal?: { sealed_at?: unknown } }).seal?.sealed_at ?? seal.metadata.occurred_at ?? ''),
  };
}

/** Seals every document that concludes, moments after (at-least-once; the sealer is idempotent). */
export class DocumentSealReactor implements Reactor {
  readonly name = 'document_seal';
  readonly handles = new Set(Object.keys(TERMINAL_EVENTS));

  constructor(private readonly sealer: DocumentSealer) {}

  async react(event: StoredEvent): Promise<void> {
    if (!event.stream_id.startsWith('document-')) return;
    await this.sealer.ensureSealed(event.stream_id.slice('document-'.length));
  }
}
