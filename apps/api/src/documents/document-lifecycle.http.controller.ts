import { Body, Controller, Get, HttpCode, Inject, Param, Post, Query, Res } from '@nestjs/common';
import { deliveryFacts, DocumentPdfService, DocumentCertifier, sha256Hex } from '@dojang/application';
import { ORGANIZATIONS, OrganizationRow } from '@dojang/projections';
import { BlobPointer, PartPages, canAffordSignature, ChainHeadProof, DEFAULT_EXPIRY_DAYS, brandOf, dateFormatOf, deliveryStreamId, documentStreamId, DocumentState, endOfDayInZone, logoOf, maskEmail, maskPhone, OrganizationState, parseCalendarDate, timeZoneOf } from '@dojang/domain';
import { auditFieldValues } from './form-data';
import { StoredEvent } from '@dojang/event-store';
import { AUDIT_ENTRIES, AuditEntryRow, DocumentRow } from '@dojang/projections';
import { contentDispositionFor } from '@dojang/pdf';
import { AUDIT_FACTS_PDF_KEY, AuditFactsEntry, DELIVERY_HEAD_PDF_KEY, DeliveryHead, documentFacts } from '@dojang/verifier';
import { conclusionOf, timelineOf } from './audit-certificate-facts';
import { Response } from 'express';
import { certifiedFirst } from '../evidence/certified-first';
import { ApiError } from '../shared/api-error';
import { Auth, AuthContext, ReqInfo, RequestInfo } from '../shared/auth.guard';
import { DocumentAccess } from './document-access.service';
import { DocumentSources } from './document-sources.service';
import { CancelDocumentDto, SendDocumentDto } from './document-lifecycle.dto';
import { AuditEntryListResponse, AuditEntryResponse, DocumentResponse, ReminderResponse } from '../openapi/response-schemas';

const DAY = 24 * 60 * 60 * 1000;
/** A manual reminder at most this often per document. */
export const REMIND_COOLDOWN_SECONDS = 60 * 60;

@Controller('documents/:id')
export class DocumentLifecycleHttpController {
  constructor(
    private readonly docs: DocumentAccess,
    private readonly sources: DocumentSources,
    @Inject(DocumentPdfService) private readonly pdf: DocumentPdfService,
    @Inject(DocumentCertifier) private readonly certifier: DocumentCertifier,
  ) {}

  @Post('send')
  @HttpCode(200)
  async send(@Auth() auth: AuthContext, @ReqInfo() info: RequestInfo, @Param('id') id: string, @Body() dto: SendDocumentDto): Promise<DocumentResponse> {
    const org = await this.sources.organization(auth);
    if (auth.livemode && !canAffordSignature(org as unknown as OrganizationState, this.docs.nowIso())) {
      throw new ApiError(402, 'invalid_request_error', 'insufficient_credits', 'A live send needs a free signature left this month or at least 1 credit.');
    }
    const expiresAt = this.expiryOf(dto, org as unknown as OrganizationState);
    await this.docs.decide(auth, info, id, async (state: DocumentState) => {
      const original: { pointer: BlobPointer | null; page_count: number; parts?: PartPages[] } =
        state.status === 'draft' ? await this.pdf.fixOriginal(state) : { pointer: null, page_count: state.page_count ?? 1 };
      return {
        type: 'SendDocument' as const,
        expires_at: expiresAt,
        message: dto.message?.trim() || null,
        page_count: original.page_count,
        original_pdf: original.pointer,
        // Documents with parts: where each part starts in the joined original.
        ...(original.parts ? { parts: original.parts } : {}),
        // Dates print as the organization writes them now, for the document's whole life.
        date_format: dateFormatOf(org as unknown as OrganizationState),
        links: state.participants.map((p) => ({
          participant_id: p.id,
          token_hash: sha256Hex(this.docs.infra.secrets.signingToken(state.id, p.id)),
        })),
      };
    });
    return this.docs.presentById(auth, id);
  }

  /**
   * A number of days from now (as before), or a calendar day that ends at midnight where the
   * organization is: "until 10 December" holds through the whole of 10 December there.
   */
  private expiryOf(dto: SendDocumentDto, org: OrganizationState): string {
    const now = this.docs.clock.now().getTime();
    if (dto.expires_on === undefined) {
      const days = dto.expires_in_days ?? org.default_expiry_days ?? DEFAULT_EXPIRY_DAYS;
      return new Date(now + days * DAY).toISOString();
    }
    if (dto.expires_in_days !== undefined) throw ApiError.invalid('expires_on', 'Give expires_on or expires_in_days, not both.');
    if (!parseCalendarDate(dto.expires_on)) throw ApiError.invalid('expires_on', 'expires_on must be a date YYYY-MM-DD, e.g. 2026-12-10.');
    const end = endOfDayInZone(dto.expires_on, timeZoneOf(org));
    if (Date.parse(end) <= now) throw ApiError.invalid('expires_on', `expires_on is over already in ${timeZoneOf(org)}: give today or a later day.`);
    if (Date.parse(end) > now + 366 * DAY) throw ApiError.invalid('expires_on', 'expires_on may be at most a year ahead.');
    return end;
  }

  @Post('cancel')
  @HttpCode(200)
  async cancel(@Auth() auth: AuthContext, @ReqInfo() info: RequestInfo, @Param('id') id: string, @Body() dto: CancelDocumentDto): Promise<DocumentResponse> {
    await this.docs.decide(auth, info, id, { type: 'CancelDocument', reason: dto?.reason ?? null });
    return this.docs.presentById(auth, id);
  }

  @Post('remind')
  @HttpCode(200)
  async remind(@Auth() auth: AuthContext, @ReqInfo() info: RequestInfo, @Param('id') id: string): Promise<ReminderResponse> {
    const decision = await this.docs.decide(auth, info, id, { type: 'RemindParticipants', automatic: false, cooldown_seconds: REMIND_COOLDOWN_SECONDS });
    const reminded = decision.events.flatMap((e) => (e.type === 'ReminderSent' ? e.data.participant_ids : []));
    return { object: 'reminder', document_id: id.toLowerCase(), participant_ids: reminded, reminded_at: this.docs.nowIso() };
  }

  @Get('audit')
  async audit(@Auth() auth: AuthContext, @Param('id') id: string): Promise<AuditEntryListResponse> {
    const row = await this.docs.row(auth, id);
    return { object: 'list', data: await this.auditEntries(row), has_more: false };
  }

  private async auditEntries(row: DocumentRow): Promise<AuditEntryResponse[]> {
    const entries = await this.docs.infra.reads.find<AuditEntryRow>(AUDIT_ENTRIES, {
      where: { document_id: row.id },
      orderBy: [{ field: 'seq', direction: 'asc' }],
    });
    return entries.map((e) => ({
      object: 'audit_entry' as const,
      event: e.event,
      actor: e.actor,
      at: e.at,
      ...(e.participant_id !== undefined ? { participant_id: e.participant_id } : {}),
      ...(e.ip !== undefined ? { ip: e.ip } : {}),
      ...(e.user_agent !== undefined ? { user_agent: e.user_agent } : {}),
      ...(e.auth_phone !== undefined ? { auth_phone: e.auth_phone } : {}),
      ...(e.detail !== undefined ? { detail: e.detail } : {}),
    }));
  }

  /** The log's head now and the head the completion sealed: printed so an auditor can compare. */
  private chainSummary(events: StoredEvent[]) {
    const last = events[events.length - 1];
    if (!last) return null;
    const sealed = (events.find((e) => e.type === 'DocumentCompleted')?.data.chain_head ?? null) as ChainHeadProof | null;
    return {
      head_hash: String(last.metadata.hash),
      event_count: events.length,
      sealed: sealed && { revision: sealed.revision, hash: sealed.hash, completed_event_count: sealed.completed_event_count },
    };
  }

  @Get('file')
  async file(@Auth() auth: AuthContext, @Param('id') id: string, @Query('audit') audit: string | undefined, @Res() res: Response) {
    if (audit !== undefined && audit !== 'true' && audit !== 'false') throw ApiError.invalid('audit', 'audit must be true or false.');
    const row = await this.docs.row(auth, id);
    const bytes = audit === 'true' ? await this.auditVersion(row) : await this.currentPdf(row);
    res.setHeader('Content-Type', 'application/pdf');
    res.setHeader('Content-Disposition', contentDispositionFor(audit === 'true' ? `${row.title} (audit)` : row.title));
    res.setHeader('Content-Length', String(bytes.length));
    res.end(bytes);
  }

  /** The signed final PDF once completed, otherwise the original. */
  private async currentPdf(row: DocumentRow): Promise<Buffer> {
    return row.status === 'completed' && row.final_pdf ? this.pdf.blob(row.final_pdf.sha256) : this.pdf.original(row);
  }

  /**
   * The document's PDF with the audit certificate appended and the whole countersigned: what
   * `?audit=true` serves and the evidence bundle holds. The certificate lists every delivery
   * recorded when it is made: `deliveries` is the `delivery-<id>` stream as the caller read it
   * (the bundle ships the same events), read now otherwise. The head of exactly those goes into
   * the countersignature as `DojangDeliveryHead`, so the list cannot be re-hashed or cut short
   * afterwards without the certificate's signature disagreeing.
   */
  async auditVersion(row: DocumentRow, deliveries?: StoredEvent[], events?: StoredEvent[]): Promise<Buffer> {
    // A concluded document is sealed before any certificate states its conclusion.
    if (!events) await certifiedFirst(this.certifier, row.id);
    const log = events ?? (await this.docs.infra.events.readStream(documentStreamId(row.id)));
    const delivered = deliveries ?? (await this.docs.infra.events.readStream(deliveryStreamId(row.id)));
    // What the certificate states comes from the log it embeds the facts of (DojangAuditFacts):
    // a verifier derives them again from the events and names any that differ.
    const facts = documentFacts(row.id, log);
    const auditFacts: AuditFactsEntry = {
      document_id: row.id,
      event_count: log.length,
      head_hash: log.length ? String(log[log.length - 1].metadata.hash) : null,
      facts,
    };
    const deliveryHead: DeliveryHead = {
      document_id: row.id,
      stream_id: deliveryStreamId(row.id),
      event_count: delivered.length,
      head_hash: delivered.length ? String(delivered[delivered.length - 1].metadata.hash) : null,
    };
    const original = await this.pdf.original(row);
    const entries = await this.auditEntries(row);
    // Times in the organization's zone, and its brand (name, logo) in the header.
    const org = await this.docs.infra.reads.get<OrganizationRow>(ORGANIZATIONS, row.organization_id);
    const timeZone = timeZoneOf(org);
    const logo = logoOf(org);
    const logoBytes = logo ? await this.docs.infra.blobs.get(logo.sha256) : null;
    const sender = org
      ? {
          name: brandOf(org).display_name ?? org.name,
          logo: logo && logoBytes ? { type: logo.content_type === 'image/jpeg' ? ('jpeg' as const) : ('png' as const), bytes: logoBytes, width: logo.width, height: logo.height } : null,
        }
      : null;
    const base = await this.currentPdf(row);
    // The certificate that signed the final PDF, read from its signature: the organization may have
    // uploaded, replaced or removed its own since, and the certificate states what signed this file.
    // Not concluded yet: the one that would sign it now.
    const signedWith = row.status === 'completed' && row.final_pdf ? await this.pdf.signingCertificateOf(base, row.organization_id) : null;
    const bytes = await this.pdf.withAuditCertificate(base, {
      title: row.title,
      document_id: row.id,
      original_sha256: row.original_pdf?.sha256 ?? sha256Hex(original),
      final_sha256: row.final_pdf?.sha256 ?? null,
      page_count: row.page_count,
      signing_certificate_sha256: signedWith?.sha256 ?? (await this.pdf.signingCertificateSha256(row.organization_id)),
      signing_certificate_not_after: signedWith?.not_after ?? (await this.pdf.signingCertificateNotAfter(row.organization_id)),
      signing_certificate_subject: signedWith?.subject ?? (await this.pdf.signingCertificateSubject(row.organization_id)),
      participants: row.participants.map((p) => {
        const signed = entries.find((e) => e.event === 'signed' && e.participant_id === p.id);
        const viewed = entries.find((e) => e.event === 'viewed' && e.participant_id === p.id);
        return {
          name: p.name,
          role: p.role,
          auth: p.auth,
          phone_masked: maskPhone(p.phone),
          email_masked: maskEmail(p.email),
          ip: signed?.ip ?? viewed?.ip ?? null,
          user_agent: signed?.user_agent ?? viewed?.user_agent ?? null,
          viewed_at: p.viewed_at,
          signed_at: p.signed_at,
        };
      }),
      // Every stored event with its recorded time and actor, as the history shows them.
      timeline: timelineOf(log, row, timeZone),
      time_zone: timeZone,
      sender,
      generated_at: this.docs.nowIso(),
      field_values: auditFieldValues(row),
      chain: this.chainSummary(log),
      conclusion: conclusionOf(facts, log, row),
      deliveries: {
        // Stored masked (DeliveryEvidence): the certificate never sees a full address or number.
        entries: deliveryFacts(delivered).map((d) => ({
          at: d.delivered_at,
          kind: d.kind,
          channel: d.channel,
          recipient_masked: d.recipient_masked,
          provider_message_id: d.provider_message_id,
          result: d.result,
          provider_status: d.provider_status ?? null,
          fallback_of: d.fallback_of ?? null,
        })),
        head_hash: deliveryHead.head_hash,
        event_count: deliveryHead.event_count,
      },
    }, row.organization_id);
    // Signed again after the certificate is appended, so a reader sees the whole file covered.
    return this.pdf.countersign(bytes, `Audit trail certificate: ${row.title}`, {
      [DELIVERY_HEAD_PDF_KEY]: JSON.stringify(deliveryHead),
      [AUDIT_FACTS_PDF_KEY]: JSON.stringify(auditFacts),
    });
  }
}
