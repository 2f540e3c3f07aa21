import { documentDecider, documentStreamId } from '@dojang/domain';
import { StoredEvent } from '@dojang/event-store';
import { Clock } from '../clock';
import { DocumentPdfService } from '../document-pdf.service';
import { Infrastructure } from '../runtime/infrastructure';
import { Reactor } from '../reactors/reactor-runner';
import { SigningCertificateInvalidError, SigningUnavailableError } from '../signing-unavailable.error';
import { DAY_MS, newTimer } from '../timers/document-timers.reactor';
import { archiveTimerId, TIMERS, TimerRow } from '../timers/timers';

/** A TSA or OCSP responder away: the archive timer looks again this much later. */
export const ARCHIVE_RETRY_MS = 60 * 60 * 1000;
/** The TSA answered with a certificate that expires no later than the last one: looking again this much later. */
export const ARCHIVE_NOT_RENEWED_RETRY_MS = 7 * DAY_MS;

export interface ArchiveSettings {
  tsaUrl: string | null;
  /** ARCHIVE_TIMESTAMP_MARGIN_DAYS: re-timestamp this long before the newest timestamp's certificate expires. */
  marginDays: number;
}

/**
 * The archive job (PAdES B-LTA over time, docs/EVIDENCE.md): a completed document's final PDF gets
 * a new DSS round and document timestamp before its newest timestamp's certificate expires, stored
 * as a new blob and recorded as `DocumentArchiveTimestamped`, after which the document's final PDF
 * is the new file. Driven by durable timers (one per final PDF, see ArchiveTimersReactor):
 * idempotent because the command names the file it extended, and the decider adds nothing once the
 * final PDF moved on (a second worker, a replay).
 */
export class ArchiveTimestamper {
  constructor(
    private readonly infra: Infrastructure,
    private readonly pdf: DocumentPdfService,
    private readonly clock: Clock,
    private readonly settings: ArchiveSettings,
  ) {}

  private get marginMs(): number {
    return this.settings.marginDays * DAY_MS;
  }

  /** When the archive is due for a timestamp whose certificate expires at `expiresAt`. */
  dueAt(expiresAt: string): string {
    return new Date(Date.parse(expiresAt) - this.marginMs).toISOString();
  }

  async fire(timer: TimerRow): Promise<{ outcome: string; retry_at?: string }> {
    const tsaUrl = this.settings.tsaUrl;
    if (!tsaUrl) return { outcome: 'archive_disabled' };
    const stream = documentStreamId(timer.document_id);
    const { state } = await this.infra.commands.load(documentDecider, stream);
    if (state.status !== 'completed' || !state.final_pdf) return { outcome: 'document_not_completed' };
    // The timer belongs to one file: once the final PDF moved on, the newer file's timer does the work.
    if (archiveTimerId(timer.document_id, state.final_pdf.sha256) !== timer.id) return { outcome: 'superseded' };
    const now = this.clock.now();
    const previous = state.final_pdf.sha256;
    let result: Awaited<ReturnType<DocumentPdfService['archiveTimestamp']>>;
    try {
      result = await this.pdf.archiveTimestamp(previous, new Date(now.getTime() + this.marginMs), tsaUrl, timer.organization_id || undefined);
    } catch (error) {
      if (error instanceof SigningUnavailableError || error instanceof SigningCertificateInvalidError) return { outcome: 'signing_unavailable', retry_at: new Date(now.getTime() + ARCHIVE_RETRY_MS).toISOString() };
      throw error;
    }
    if (!result.extended) return result.expires_at ? { outcome: 'not_due', retry_at: this.dueAt(result.expires_at) } : { outcome: 'no_timestamp' };
    // A TSA still on the same (or an older) certificate gives the file no longer life: nothing recorded.
    if (Date.parse(result.expires_at) <= Date.parse(result.previous_expires_at)) {
      return { outcome: 'tsa_certificate_not_renewed', retry_at: new Date(now.getTime() + ARCHIVE_NOT_RENEWED_RETRY_MS).toISOString() };
    }
    const decision = await this.infra.commands.decide(
      documentDecider,
      stream,
      {
        type: 'ArchiveTimestampDocument',
        now: now.toISOString(),
        previous_final_sha256: previous,
        final_pdf: result.final_pdf,
        timestamped_at: result.timestamped_at,
        tsa_certificate_expires_at: result.expires_at,
      },
      { actor: 'system', organization_id: timer.organization_id, livemode: timer.livemode, causation_id: timer.id, correlation_id: timer.id },
      () => this.clock.now().toISOString(),
    );
    return { outcome: decision.events.map((e) => e.type).join(',') || 'nothing_to_do' };
  }
}

/**
 * Writes the archive timers: when a completed document is certified (its final PDF is final), a timer
 * due now that looks at the file and waits until its newest timestamp nears expiry; after each
 * archive timestamp, one for the new file due `margin` before its TSA certificate expires. Timers
 * are insert-if-absent under an id made of the document and the file, so a replay adds nothing.
 */
export class ArchiveTimersReactor implements Reactor {
  readonly name = 'archive_timers';
  // Events reach reactors upcast: a DocumentSealed stored before issue 35 arrives as DocumentCertified.
  readonly handles = new Set(['DocumentCertified', 'DocumentArchiveTimestamped']);

  constructor(
    private readonly infra: Infrastructure,
    private readonly clock: Clock,
    private readonly archiver: ArchiveTimestamper,
    private readonly enabled: boolean,
  ) {}

  async react(event: StoredEvent): Promise<void> {
    if (!this.enabled || !event.stream_id.startsWith('document-')) return;
    const documentId = event.stream_id.slice('document-'.length);
    const now = this.clock.now().toISOString();
    let final: string;
    let due: string;
    if (event.type === 'DocumentArchiveTimestamped') {
      const data = event.data as { final_pdf: { sha256: string }; tsa_certificate_expires_at: string };
      final = data.final_pdf.sha256;
      due = this.archiver.dueAt(data.tsa_certificate_expires_at);
    } else {
      const { state } = await this.infra.commands.load(documentDecider, event.stream_id);
      if (state.status !== 'completed' || !state.final_pdf) return;
      final = state.final_pdf.sha256;
      due = now;
    }
    const fields = {
      id: archiveTimerId(documentId, final),
      kind: 'archive_timestamp' as const,
      document_id: documentId,
      organization_id: String(event.metadata.organization_id ?? ''),
      livemode: Boolean(event.metadata.livemode),
      due_at: due,
      sequence: 0,
    };
    await this.infra.reads.putIfVersion(TIMERS, newTimer(fields, now), null);
  }
}
