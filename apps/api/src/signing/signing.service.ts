import { Inject, Injectable } from '@nestjs/common';
import { CommandBus } from '@nestjs/cqrs';
import { randomInt } from 'crypto';
import { chainHeadOf, Clock, CLOCK, DocumentPdfService, readBody, Infrastructure, languageOf, logoPath, messageOptions, Notifier, prefixedId, sha256Hex, sealChainHead, SigningDraftStore } from '@dojang/application';
import { inspectPdfIsolated } from '@dojang/pdf';
import {
  BlobPointer,
  ChainHeadProof,
  timeZoneOf,
  brandOf,
  logoOf,
  DocumentCommand,
  DocumentState,
  ParticipantState,
  WithoutNow,
  ATTACHMENT_CONTENT_TYPES,
  AttachmentKind,
  MAX_ATTACHMENT_BYTES,
  activeParticipants,
  attachmentRules,
  decideDocument,
  groupOf,
  documentDecider,
  documentStreamId,
  downloadAvailableUntil,
  maskEmail,
  mobilePhone,
  maskPhone,
  PIN_MAX_ATTEMPTS,
  PIN_RESEND_COOLDOWN_SECONDS,
  PIN_SESSION_SECONDS,
  PIN_TTL_SECONDS,
  pinSessionActive,
  signingLinkLocked,
  MAX_PIN_LOCKOUTS,
  wouldComplete,
  absolutePage,
  DEFAULT_DATE_FORMAT,
  DomainError,
  checkDraftValues,
  SigningSealSource,
} from '@dojang/domain';
import { pinSms } from '@dojang/notifications';
import { personalSealRenderInput, PersonalSealShape, SealInputError } from '@dojang/seals';
import { ORGANIZATIONS, OrganizationRow, SIGNING_TOKENS, SigningTokenRow } from '@dojang/projections';
import { ApiError } from '../shared/api-error';
import { RequestInfo } from '../shared/auth.guard';
import { decodeImageDataUrl } from '../shared/data-url-image';
import { DecideCommand } from '../shared/decide.command';
import { INFRA, NOTIFIER } from '../shared/infrastructure.token';
import { SEALS, SealRow } from './seal-lookup';
import { presentField } from '../documents/field-settings';
import { AttachmentResponse, DelegationResponse, PinIssuedResponse, PinVerificationResponse, SealPreviewResponse, SigningBodyResponse, SigningDraftResponse, SigningSessionResponse } from '../openapi/response-schemas';
import { readFilePart } from '../files/multipart-file';
import { Request } from 'express';
import { presentParts } from '../documents/document.presenter';

/** What the bytes are, by their first bytes (never the name or the declared type); null: none we take. */
export function sniffAttachment(bytes: Buffer): AttachmentKind | null {
  if (bytes.length >= 8 && bytes.subarray(0, 8).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]))) return 'png';
  if (bytes.length >= 3 && bytes[0] === 0xff && bytes[1] === 0xd8 && bytes[2] === 0xff) return 'jpeg';
  // PDF readers accept the header anywhere in the first kilobyte.
  if (bytes.subarray(0, 1024).includes('%PDF-')) return 'pdf';
  return null;
}

/** A plain-text body as HTML paragraphs (blank lines part them; single breaks kept), escaped. */
export function textAsHtml(text: string): string {
  const escape = (t: string) => t.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
  return text
    .split(/\r?\n\s*\r?\n/)
    .filter((p) => p.trim() !== '')
    .map((p) => `<p>${escape(p.trim()).replace(/\r?\n/g, '<br>')}</p>`)
    .join('');
}

/** The PDF a signer is shown: the final one once completed, else the original fixed at send. */
export function displayedPdf(state: DocumentState): string | null {
  if (state.status === 'completed' && state.final_pdf) return state.final_pdf.sha256;
  return state.original_pdf?.sha256 ?? null;
}

export interface SigningSession {
  token: SigningTokenRow;
  state: DocumentState;
  participant: ParticipantState;
}

/** A PIN verified within the PIN session, whether or not a signature has used it since. */
function recentlyVerified(pin: ParticipantState['pin'], now: string): boolean {
  return Boolean(pin?.verified && pin.verified_at && Date.parse(now) - Date.parse(pin.verified_at) <= PIN_SESSION_SECONDS * 1000);
}

/**
 * The signer's side. A signing token is looked up by its SHA-256; everything after that is decided
 * on the authoritative document stream, with the participant as the actor.
 */
@Injectable()
export class SigningService {
  private readonly drafts: SigningDraftStore;

  constructor(
    @Inject(INFRA) private readonly infra: Infrastructure,
    @Inject(CLOCK) private readonly clock: Clock,
    @Inject(NOTIFIER) private readonly notifier: Notifier,
    @Inject(DocumentPdfService) private readonly pdf: DocumentPdfService,
    private readonly commandBus: CommandBus,
  ) {
    this.drafts = new SigningDraftStore(infra.reads);
  }

  /** A background render of a document's following pages failed: they render on their own requests. */
  warmFailed(err: unknown, documentId: string): void {
    this.infra.logger.warn({ err, document_id: documentId }, 'page images not rendered ahead; each renders when asked for');
  }

  async session(token: string): Promise<SigningSession> {
    const invalid = () => ApiError.notFound('signing_link_invalid', 'This signing link is not valid.');
    if (!/^[A-Za-z0-9_-]{32,64}$/.test(token)) throw invalid();
    const row = await this.infra.reads.get<SigningTokenRow>(SIGNING_TOKENS, sha256Hex(token));
    if (!row) throw invalid();
    const { state } = await this.infra.commands.load(documentDecider, documentStreamId(row.document_id));
    const participant = state.participants.find((p) => p.id === row.participant_id);
    if (!state.exists || !participant) throw invalid();
    // A token the service issued whose participant now holds a newer link (a correction or a
    // delegation replaced it): told apart from a mistyped link so the page can say what happened.
    if (participant.token_hash !== sha256Hex(token)) {
      throw ApiError.notFound('signing_link_replaced', 'This signing link was replaced by a newer one: the request was corrected or delegated. Use the latest link you received.');
    }
    if (state.trashed || state.status === 'canceled' || state.status === 'expired' || state.status === 'declined') {
      // The page words each case from this message's "was <why>": a trashed document may still be
      // 'sent' or 'completed', which is not why the link stopped working.
      const why = state.trashed ? 'deleted' : state.status;
      // The sender's cancel reason is for the participants: this is where a link holder sees it.
      const reason = state.status === 'canceled' && state.canceled_reason ? ` Reason: ${state.canceled_reason}` : '';
      throw new ApiError(410, 'invalid_request_error', 'signing_link_inactive', `This signing request was ${why}; the link no longer works.${reason}`);
    }
    return { token: row, state, participant };
  }

  async view(s: SigningSession, token: string): Promise<SigningSessionResponse> {
    // The sender as the page shows it: the organization's brand and the zone its times are read in.
    const org = await this.infra.reads.get<OrganizationRow>(ORGANIZATIONS, s.state.organization_id);
    const brand = brandOf(org);
    const logo = logoOf(org);
    const p = s.participant;
    const turn = activeParticipants(s.state).some((a) => a.id === p.id);
    const pinRequired = p.auth === 'sms_pin';
    const now = this.clock.now().toISOString();
    // Once completed, "verified" means what the signed PDF needs (recentlyVerified), so the page
    // asks a returning sms_pin participant for a PIN before showing it.
    const pinVerified = s.state.status === 'completed' ? recentlyVerified(p.pin, now) : pinSessionActive(p.pin, now);
    // A group member another member signed for has nothing left to do.
    const actionable = s.state.status === 'sent' && p.role !== 'cc' && p.status !== 'signed' && p.status !== 'declined' && !p.group_signed_by;
    const owners = new Set(groupOf(s.state, p).map((m) => m.id));
    // A draft only while the participant may still sign, and only under the link it was saved
    // with: what the drafts reactor will clear is never shown meanwhile.
    const draft = actionable && p.token_hash ? await this.drafts.get(s.state.id, p.id, p.token_hash) : null;
    const seals = actionable ? await this.organizationSeals(s) : [];
    return {
      object: 'signing_session' as const,
      sender: {
        display_name: brand.display_name ?? org?.name ?? 'Dojang',
        color: brand.color,
        time_zone: timeZoneOf(org),
        // A path on the page's own origin: its CSP loads images from 'self' only.
        logo_url: logo && org ? logoPath(org.id, logo) : null,
      },
      document: {
        id: s.state.id,
        title: s.state.title,
        status: s.state.status,
        author_name: s.state.author_name,
        page_count: s.state.page_count,
        expires_at: s.state.expires_at,
        completed_at: s.state.completed_at,
        pages_version: displayedPdf(s.state)?.slice(0, 16) ?? null,
        parts: presentParts(s.state, null).map(({ index, title, first_page, page_count }) => ({ index, title, first_page, page_count })),
        // How this document prints dates (recorded at send): the page shows date values as the
        // final PDF will, not its own way until signing (issue 32).
        date_format: s.state.date_format ?? DEFAULT_DATE_FORMAT,
      },
      participant: {
        id: p.id,
        name: p.name,
        role: p.role,
        status: p.status,
        auth: p.auth,
        phone_masked: maskPhone(p.phone),
        // What an `email` field will print, masked as the phone is: a forwarded link shows no address.
        email_masked: maskEmail(p.email),
        signed_at: p.signed_at,
        redirect_url: p.redirect_url ?? null,
      },
      fields: s.state.fields
        // A signing group's fields are filled by whichever member signs.
        .filter((f) => owners.has(f.participant_id))
        // `page` here is the page of the whole PDF the page images show (parts joined in order);
        // `part` still names the field's part.
        .map((f) => ({ ...presentField(f, p.values?.find((v) => v.field_id === f.id)), page: absolutePage(s.state, f) })),
      // Where the others sign, so the signer sees the whole form; placement and type only (their
      // values and identities are theirs), and which participant, for one colour each.
      other_fields: s.state.fields
        .filter((f) => !owners.has(f.participant_id))
        .map((f) => ({
          type: f.type,
          page: absolutePage(s.state, f),
          x: f.x,
          y: f.y,
          width: f.width,
          height: f.height,
          participant_index: s.state.participants.findIndex((q) => q.id === f.participant_id),
        })),
      pin_required: pinRequired,
      pin_verified: pinVerified,
      // Machine-readable PIN state, so the page needn't parse messages.
      pin: pinRequired
        ? {
            requested: Boolean(p.pin && !p.pin.used),
            expires_at: p.pin && !p.pin.used ? p.pin.expires_at : null,
            resend_available_at: p.last_pin_issued_at
              ? new Date(Date.parse(p.last_pin_issued_at) + PIN_RESEND_COOLDOWN_SECONDS * 1000).toISOString()
              : null,
            attempts_left: p.pin && !p.pin.used ? Math.max(0, PIN_MAX_ATTEMPTS - p.pin.failed_attempts) : PIN_MAX_ATTEMPTS,
            locked: Boolean(p.pin && p.pin.locked && !p.pin.used),
            link_locked: signingLinkLocked(p),
          }
        : null,
      your_turn: actionable && turn,
      can_sign: actionable && turn && (!pinRequired || pinVerified),
      waiting_for_others: actionable && !turn,
      draft: draft ? { values: draft.values, updated_at: draft.updated_at } : null,
      // Paths on the page's own origin (its CSP loads images from 'self'), behind this link.
      organization_seals: seals.map((row) => ({ id: row.id, name: row.name, image_url: `/v1/signing/${token}/seals/${row.id}/image` })),
    };
  }

  /**
   * Merges values into the participant's draft (null clears one), checked as signing checks them
   * (checkDraftValues: the same turn and PIN rules, each value against its field); a refused save
   * changes nothing. Kept beside the read models, never in the event log.
   */
  async saveDraft(s: SigningSession, values: Record<string, unknown>): Promise<SigningDraftResponse> {
    const now = this.clock.now().toISOString();
    const p = s.participant;
    if (!p.token_hash) throw new Error('a participant with a working link has a token hash');
    const row = await this.drafts.merge(s.state.id, p.id, p.token_hash, now, (kept) => checkDraftValues(s.state, p.id, values, now, kept));
    // A signature, decline or new link that landed while this saved (and whose clearing ran
    // before it) would leave the draft behind: read the stream again and take it back if so.
    const { state } = await this.infra.commands.load(documentDecider, documentStreamId(s.state.id));
    const after = state.participants.find((x) => x.id === p.id);
    try {
      if (!after || after.token_hash !== p.token_hash) throw ApiError.notFound('signing_link_replaced', 'This signing link was replaced by a newer one: the request was corrected or delegated. Use the latest link you received.');
      checkDraftValues(state, p.id, {}, now);
    } catch (err) {
      await this.drafts.clear(s.state.id, p.id);
      throw err;
    }
    return { object: 'signing_draft' as const, values: row.values, updated_at: row.updated_at };
  }

  /**
   * The contract's text for the page's reading view ("본문 보기"): each part's body as HTML through
   * the PDF renderer's allow-list (sanitized in the PDF pool), plain-text parts as escaped
   * paragraphs, null for an uploaded PDF. The page images remain what is signed.
   */
  async body(s: SigningSession): Promise<SigningBodyResponse> {
    const st = s.state;
    const parts = st.parts ?? [{ title: null, content_blob: st.content_blob, content_format: st.content_format, file: st.file }];
    const out: Array<{ title: string; html: string | null }> = [];
    for (const [i, part] of parts.entries()) {
      const title = part.title ?? (i === 0 ? st.title : `${i + 1}`);
      if (part.content_format === 'pdf') {
        out.push({ title, html: null });
        continue;
      }
      const text = i === 0 && !st.parts ? await readBody(this.infra.blobs, st) : await readBody(this.infra.blobs, part);
      if (text === null) {
        out.push({ title, html: null });
        continue;
      }
      const html = part.content_format === 'html' ? text : textAsHtml(text);
      out.push({ title, html: await this.pdf.sanitizeHtml(html) });
    }
    return { parts: out };
  }

  /**
   * The organization's seals this participant may stamp with seal_id: exactly what signing takes
   * (an unrestricted seal of the sending organization, for a representative with a seal field that
   * takes more than uploads), so the list offers nothing the signature would refuse.
   */
  async organizationSeals(s: SigningSession): Promise<SealRow[]> {
    if (!s.participant.representative) return [];
    const owners = new Set(groupOf(s.state, s.participant).map((m) => m.id));
    const sealFields = s.state.fields.filter((f) => f.type === 'seal' && owners.has(f.participant_id));
    if (sealFields.length === 0 || sealFields.some((f) => f.upload_only)) return [];
    const rows = await this.infra.reads.find<SealRow>(SEALS, {
      where: { organization_id: s.state.organization_id, livemode: s.state.livemode },
      orderBy: [{ field: 'sort_key', direction: 'asc' }],
      limit: 100,
    });
    return rows.filter((r) => !r.restricted);
  }

  /** One of organizationSeals' images, for the page; anything else is 404 seal_not_found. */
  async organizationSealImage(s: SigningSession, id: string): Promise<{ bytes: Buffer; mime: string }> {
    const row = (await this.organizationSeals(s)).find((r) => r.id === id);
    if (!row) throw ApiError.notFound('seal_not_found', 'No such seal for this signing link.');
    const bytes = await this.infra.blobs.get(row.image_sha256);
    if (!bytes) throw new ApiError(500, 'api_error', 'internal_error', 'The seal image is missing from storage.');
    return { bytes, mime: String(row.image_mime ?? 'image/png') };
  }

  /**
   * A red seal made from a name (the participant's unless `text` is given), rendered in the PDF
   * pool: refused where signing would be (the same turn and PIN rules), and for text a seal
   * cannot carry (400 seal_text_invalid).
   */
  async sealPreview(s: SigningSession, shape: PersonalSealShape, text: string | undefined): Promise<SealPreviewResponse> {
    checkDraftValues(s.state, s.participant.id, {}, this.clock.now().toISOString());
    const { png, text: used } = await this.makeSeal(shape, text ?? s.participant.name, 'text');
    return { object: 'seal_preview' as const, shape, text: used, image: `data:image/png;base64,${png.toString('base64')}`, sha256: sha256Hex(png) };
  }

  private async makeSeal(shape: PersonalSealShape, text: string, param: string): Promise<{ png: Buffer; text: string }> {
    let input: ReturnType<typeof personalSealRenderInput>;
    try {
      input = personalSealRenderInput(text, shape);
    } catch (err) {
      if (err instanceof SealInputError) throw new ApiError(400, 'invalid_request_error', err.code, err.message.replace(/^text\b/, param), param);
      throw err;
    }
    return { png: await this.pdf.renderSvg(input), text: text.normalize('NFC').replace(/\s+/g, ' ').trim() };
  }

  /**
   * The seal a signature stamps and where it came from (SignDto's seal_source): an organization
   * seal by seal_id, or an image; a seal `made` from a name must be the server's own rendering of
   * that shape and text, byte for byte (400 seal_image_mismatch otherwise).
   */
  private async sealOf(
    s: SigningSession,
    body: { seal_id?: string; seal_image?: string; seal_source?: SigningSealSource; seal_shape?: PersonalSealShape; seal_text?: string },
  ): Promise<{ seal_id: string | null; image: BlobPointer; uploaded: boolean; source: SigningSealSource } | null> {
    if (body.seal_id && body.seal_image) throw ApiError.invalid('seal_id', 'Give either seal_id or seal_image, not both.');
    const source: SigningSealSource | undefined = body.seal_source ?? (body.seal_id ? 'organization' : body.seal_image ? 'uploaded' : undefined);
    if (source !== 'made' && (body.seal_shape !== undefined || body.seal_text !== undefined)) {
      throw ApiError.invalid(body.seal_shape !== undefined ? 'seal_shape' : 'seal_text', 'seal_shape and seal_text go with seal_source made only.');
    }
    if (!source) return null;
    if (source === 'organization') {
      if (!body.seal_id) throw ApiError.missing('seal_id', 'seal_source organization needs seal_id (one of the session\'s organization_seals).');
      if (body.seal_image) throw ApiError.invalid('seal_image', 'seal_source organization stamps seal_id; leave seal_image out.');
      // Refused before the seal is looked up, so a link that may not stamp learns nothing of the
      // organization's seal ids; the decider refuses the same (seal_representative_only).
      if (!s.participant.representative) {
        throw new ApiError(400, 'invalid_request_error', 'seal_representative_only', 'Only a participant the sender marked representative may stamp one of the organization\'s seals: choose made, drawn or uploaded.', 'seal_id');
      }
      const row = await this.infra.reads.get<SealRow>(SEALS, body.seal_id);
      if (!row || row.organization_id !== s.state.organization_id || row.livemode !== s.state.livemode) {
        throw ApiError.invalid('seal_id', 'No such seal in the sending organization.');
      }
      if (row.restricted) throw ApiError.invalid('seal_id', 'This seal is restricted and cannot be used from a signing link.');
      return { seal_id: row.id, image: { sha256: row.image_sha256, byte_size: row.image_byte_size }, uploaded: false, source };
    }
    if (body.seal_id) throw ApiError.invalid('seal_id', `seal_source ${source} takes seal_image; seal_id goes with seal_source organization.`);
    if (!body.seal_image) throw ApiError.missing('seal_image', `seal_source ${source} needs seal_image (a PNG or JPEG data URL).`);
    if (source === 'made') {
      if (!body.seal_shape) throw ApiError.missing('seal_shape', 'seal_source made needs seal_shape (round or square), as given to POST …/seal_preview.');
      const { png } = await this.makeSeal(body.seal_shape, body.seal_text ?? s.participant.name, 'seal_text');
      const given = await decodeImageDataUrl(this.pdf, body.seal_image, 'seal_image');
      if (!given.equals(png)) {
        throw new ApiError(400, 'invalid_request_error', 'seal_image_mismatch', 'seal_image is not the seal the server makes from seal_shape and seal_text: send the image POST …/seal_preview answered for them.', 'seal_image');
      }
      const ref = await this.infra.blobs.put(png);
      return { seal_id: null, image: { sha256: ref.sha256, byte_size: ref.byte_size }, uploaded: true, source };
    }
    return { seal_id: null, image: await this.storeImage(body.seal_image, 'seal_image'), uploaded: true, source };
  }

  private decide(s: SigningSession, info: RequestInfo, build: WithoutNow<DocumentCommand> | ((state: DocumentState) => Promise<WithoutNow<DocumentCommand>>)) {
    const source = async (state: DocumentState): Promise<DocumentCommand> => {
      const body = typeof build === 'function' ? await build(state) : build;
      // A builder that dry-ran the decision (sign) passes the time it used, so the values drawn
      // into the final PDF (signing_date) are the ones recorded.
      return { now: this.clock.now().toISOString(), ...body } as DocumentCommand;
    };
    return this.commandBus.execute(
      new DecideCommand(documentDecider, documentStreamId(s.state.id), source, {
        actor: `participant:${s.participant.id}`,
        organization_id: s.state.organization_id,
        livemode: s.state.livemode,
        ip: info.ip,
        user_agent: info.user_agent,
        correlation_id: info.request_id,
      }),
    );
  }

  async open(s: SigningSession, info: RequestInfo): Promise<SigningSession> {
    if (s.participant.viewed_at || s.state.status !== 'sent') return s;
    const decision = await this.decide(s, info, { type: 'OpenSigningLink', participant_id: s.participant.id, ip: info.ip, user_agent: info.user_agent });
    const state = decision.state as DocumentState;
    return { ...s, state, participant: state.participants.find((p) => p.id === s.participant.id) as ParticipantState };
  }

  async sendPin(s: SigningSession, info: RequestInfo): Promise<PinIssuedResponse> {
    const pin = String(randomInt(0, 1_000_000)).padStart(6, '0');
    const decision = await this.decide(s, info, {
      type: 'IssuePin',
      participant_id: s.participant.id,
      pin_hash: this.infra.secrets.pinHash(s.state.id, s.participant.id, pin),
      ttl_seconds: PIN_TTL_SECONDS,
      cooldown_seconds: PIN_RESEND_COOLDOWN_SECONDS,
      // After completion the link serves the signed PDF, behind the same PIN check as signing.
      ...(s.state.status === 'completed' ? { for_download: true } : {}),
    });
    const issued = decision.events.find((e: { type: string }) => e.type === 'PinIssued');
    const p = s.participant;
    // The PIN always goes by SMS (알림톡 templates are for notices, and a code must not wait on a fallback).
    const org = await this.infra.reads.get<OrganizationRow>(ORGANIZATIONS, s.state.organization_id);
    const sms = pinSms({ ...messageOptions(org, languageOf(p)), pin });
    await this.notifier.send({
      // One message per issued PIN: the decision's position identifies it.
      key: `pin:${s.state.id}:${p.id}:${decision.position}`,
      kind: 'pin',
      organization_id: s.state.organization_id,
      livemode: s.state.livemode,
      document_id: s.state.id,
      participant_id: p.id,
      channel: 'sms',
      to: p.phone as string,
      subject: sms.subject,
      body: sms.body,
      pin,
    });
    return {
      object: 'pin' as const,
      sent_to: maskPhone(p.phone),
      expires_at: issued?.data.expires_at,
      resend_available_at: new Date(this.clock.now().getTime() + PIN_RESEND_COOLDOWN_SECONDS * 1000).toISOString(),
    };
  }

  /**
   * The signed PDF through the participant's own link (what the completion SMS of a phone-only
   * participant points to): completed, within the download window, and for sms_pin participants
   * after a PIN issued for it was verified (POST …/pin, …/verify), like signing.
   */
  async completedPdf(s: SigningSession): Promise<Buffer> {
    return this.pdf.blob(this.completedAccess(s).sha256);
  }

  /**
   * Whether the link may show the signed PDF now, in any form (the file or its page images): the
   * window, then the PIN check; answers the final PDF's pointer.
   */
  completedAccess(s: SigningSession): { sha256: string } {
    const now = this.clock.now().toISOString();
    const until = downloadAvailableUntil(s.state);
    if (!until || !s.state.final_pdf) throw new ApiError(409, 'invalid_request_error', 'document_not_completed', 'The document is not completed: there is no signed PDF to download yet.');
    if (Date.parse(now) > Date.parse(until)) {
      throw new ApiError(410, 'invalid_request_error', 'download_expired', `The signed PDF could be downloaded through this link until ${until}; ask the sender for a copy.`);
    }
    this.requireDownloadCheck(s, now);
    return s.state.final_pdf;
  }

  /**
   * The same proof as signing before the signed PDF leaves through a link: for an sms_pin
   * participant, a PIN verified within the PIN session — the one they just signed with (the last
   * signer sees the result at once) or a download PIN requested after completion.
   */
  requireDownloadCheck(s: SigningSession, now: string): void {
    const p = s.participant;
    if (p.auth !== 'sms_pin') return;
    if (!recentlyVerified(p.pin, now)) {
      throw new ApiError(409, 'invalid_request_error', 'pin_verification_required', 'Verify the SMS PIN (POST …/pin, then …/verify) before downloading the signed document.');
    }
  }

  async verifyPin(s: SigningSession, info: RequestInfo, pin: string): Promise<PinVerificationResponse> {
    if (!/^\d{6}$/.test(pin)) throw ApiError.invalid('pin', 'pin must be the 6 digits sent by SMS.');
    const decision = await this.decide(s, info, {
      type: 'VerifyPin',
      participant_id: s.participant.id,
      pin_hash: this.infra.secrets.pinHash(s.state.id, s.participant.id, pin),
      max_attempts: PIN_MAX_ATTEMPTS,
      ip: info.ip,
    });
    const failed = decision.events.find((e: { type: string }) => e.type === 'PinVerificationFailed');
    if (failed) {
      if (failed.data.reason === 'expired') throw new ApiError(409, 'invalid_request_error', 'pin_expired', 'The PIN has expired; request a new PIN.', 'pin');
      const after = (decision.state as DocumentState).participants.find((x) => x.id === s.participant.id);
      // The attempt that locked the last PIN the link will take says so at once.
      if (failed.data.locked && after && signingLinkLocked(after)) {
        throw new ApiError(409, 'invalid_request_error', 'signing_link_locked', `Too many wrong PINs: ${MAX_PIN_LOCKOUTS} PINs were locked, so this link takes no more. Ask the sender to send the request again.`, 'pin');
      }
      if (failed.data.locked) throw new ApiError(409, 'invalid_request_error', 'pin_locked', 'Too many wrong PINs: this PIN is locked. Request a new PIN.', 'pin');
      const left = PIN_MAX_ATTEMPTS - failed.data.failed_attempts;
      throw new ApiError(400, 'invalid_request_error', 'pin_incorrect', `The PIN is not correct. ${left} attempt${left === 1 ? '' : 's'} left.`, 'pin');
    }
    return { object: 'pin_verification' as const, verified: true as const };
  }

  /** Signs; answers the session as it stands after the signature (read from the decision, not the store again). */
  async sign(
    s: SigningSession,
    info: RequestInfo,
    body: { consent: boolean; signature?: string; seal_id?: string; seal_image?: string; seal_source?: SigningSealSource; seal_shape?: PersonalSealShape; seal_text?: string; values?: Record<string, unknown> },
  ): Promise<SigningSession> {
    if (body.seal_id && body.seal_image) throw ApiError.invalid('seal_id', 'Give either seal_id or seal_image, not both.');
    const signature = body.signature ? await this.storeImage(body.signature, 'signature') : null;
    const seal = await this.sealOf(s, body);
    const participantId = s.participant.id;
    // A repeat of the signature that landed (its answer lost with a connection, a read after it
    // that failed): answered with the signed state, nothing written, instead of 409.
    if (repeatsLandedSignature(s.participant, signature, seal)) return s;
    // signing_date fields read the day where the organization is (its time_zone setting).
    const timeZone = timeZoneOf(await this.infra.reads.get<OrganizationRow>(ORGANIZATIONS, s.state.organization_id));
    const decided = this.decide(s, info, async (state) => {
      const command = {
        now: this.clock.now().toISOString(),
        type: 'SignDocument' as const,
        participant_id: participantId,
        consent: body.consent,
        signature,
        seal,
        ip: info.ip,
        user_agent: info.user_agent,
        final_pdf: null as BlobPointer | null,
        chain_head: null as ChainHeadProof | null,
        ...(body.values ? { values: body.values } : {}),
        time_zone: timeZone,
      };
      // Dry run first: the final PDF is built only for a signature that will be accepted and completes the document.
      const dryRun = decideDocument(command, state);
      const appending = dryRun.length;
      if (wouldComplete(state, participantId)) {
        const recorded = dryRun.find((e) => e.type === 'ParticipantSigned');
        const values = recorded?.type === 'ParticipantSigned' ? (recorded.data.values ?? []) : [];
        // The head this decision extends; had another write landed since, the append's expected
        // revision fails and this runs again on the newer stream.
        const head = chainHeadOf(await this.infra.events.readStream(documentStreamId(state.id)), appending);
        command.final_pdf = await this.pdf.buildFinal(state, { participant_id: participantId, signature, seal: seal?.image ?? null, values }, new Date(command.now), head);
        command.chain_head = await sealChainHead(
          {
            document_id: state.id,
            head,
            signer: { participant_id: participantId, signature_sha256: signature?.sha256 ?? null, seal_sha256: seal?.image.sha256 ?? null, ip: info.ip, user_agent: info.user_agent },
            original_sha256: state.original_pdf?.sha256 ?? null,
            final_pdf_sha256: command.final_pdf.sha256,
          },
          await this.pdf.evidenceKey(),
        );
      }
      return command;
    });
    let state: DocumentState;
    try {
      state = (await decided).state as DocumentState;
    } catch (err) {
      // Refused because this participant's signature is in by now: the same request landed
      // meanwhile (a double submit, a retry racing its first attempt). Answered as landed.
      if (!(err instanceof DomainError) || (err.code !== 'participant_already_signed' && err.code !== 'document_not_signable')) throw err;
      state = (await this.infra.commands.load(documentDecider, documentStreamId(s.state.id))).state;
      const now = state.participants.find((p) => p.id === participantId);
      if (!now || !repeatsLandedSignature(now, signature, seal)) throw err;
    }
    // Signed: the draft is spent. The drafts reactor clears it too (and every draft of a document
    // that concluded); this makes it immediate for the signer's own link. The signature stands
    // whatever happens here, so a failed clear is left to the reactor, not answered as an error.
    await this.drafts.clear(s.state.id, participantId).catch((err: unknown) => this.infra.logger.warn({ err, document_id: s.state.id }, 'signing draft not cleared at signing; the drafts reactor will'));
    return { ...s, state, participant: state.participants.find((p) => p.id === participantId) as ParticipantState };
  }

  /**
   * A file for one of the participant's attachment fields: read (at most the largest max_bytes of
   * their fields), recognised by its bytes, then inspected in the PDF pool like any upload (a PDF
   * read and cleaned in an isolated worker, an image decoded), stored content-addressed and
   * recorded as AttachmentUploaded. The signature names it by attachment_id.
   */
  async uploadAttachment(s: SigningSession, info: RequestInfo, req: Request): Promise<AttachmentResponse> {
    const owners = new Set(groupOf(s.state, s.participant).map((m) => m.id));
    const theirs = s.state.fields.filter((f) => f.type === 'attachment' && owners.has(f.participant_id));
    // The field_id named is checked before any size: a participant without attachment fields (or
    // naming another participant's) was answered 413 "larger than 1 bytes" (issue 33 §14).
    const fieldProblem = (raw: string | undefined): ApiError | null => {
      const id = (raw ?? '').trim().toLowerCase();
      if (!id) return ApiError.missing('field_id', 'field_id (a form field) must name the attachment field the file is for.');
      const named = s.state.fields.find((f) => f.id === id && owners.has(f.participant_id));
      if (!named) return ApiError.invalid('field_id', 'field_id names no field of this participant.');
      if (named.type !== 'attachment') return ApiError.invalid('field_id', `field_id names a ${named.type} field; files go to attachment fields only.`);
      return null;
    };
    if (theirs.length === 0) throw ApiError.invalid('field_id', 'This participant has no attachment field: field_id names no field of this participant that takes a file.');
    const limit = Math.min(MAX_ATTACHMENT_BYTES, Math.max(...theirs.map((f) => attachmentRules(f).max_bytes)));
    const part = await readFilePart(req, {
      field: 'file',
      maxBytes: limit,
      maxLabel: `${limit.toLocaleString('en-US')} bytes`,
      what: 'a PDF, JPEG or PNG file',
      // Sent before the file (as clients write it), field_id is judged before the file's size.
      checkFields: (fields) => (fields.field_id !== undefined ? fieldProblem(fields.field_id) : null),
    });
    const problem = fieldProblem(part.fields.field_id);
    if (problem) throw problem;
    const fieldId = (part.fields.field_id ?? '').trim().toLowerCase();
    const field = s.state.fields.find((f) => f.id === fieldId && owners.has(f.participant_id))!;
    const rules = attachmentRules(field);
    if (part.bytes.length > rules.max_bytes) {
      throw new ApiError(413, 'invalid_request_error', 'file_too_large', `The file has ${part.bytes.length.toLocaleString('en-US')} bytes; this field takes at most ${rules.max_bytes.toLocaleString('en-US')}.`, 'file');
    }
    const kind = part.bytes.length ? sniffAttachment(part.bytes) : null;
    const unsupported = (why: string) => new ApiError(415, 'invalid_request_error', 'unsupported_file_type', why, 'file');
    const allowed = rules.accept.map((k) => k.toUpperCase()).join(', ');
    if (!kind || !rules.accept.includes(kind)) {
      throw unsupported(`This field takes ${allowed} files, judged by the file's bytes (not its name or Content-Type)${kind ? `; this one is ${kind.toUpperCase()}` : ''}.`);
    }
    let stored = part.bytes;
    if (kind === 'pdf') {
      const inspection = await inspectPdfIsolated(part.bytes, { timeoutMs: this.infra.config.pdfReadTimeoutMs });
      if (!inspection.ok && inspection.reason === 'too_complex') throw new ApiError(413, 'invalid_request_error', 'file_too_complex', inspection.message, 'file');
      if (!inspection.ok) throw unsupported(inspection.reason === 'encrypted' ? inspection.message : `The file is not a PDF we can read: ${inspection.message}`);
      // Scripts, actions and embedded files are removed before anything is stored, as for document uploads.
      if (inspection.sanitized) stored = Buffer.from(inspection.sanitized);
    } else {
      const check = await this.pdf.checkStampImage(part.bytes);
      if (!check.ok) throw unsupported(`The image cannot be read: ${check.message}.`);
    }
    const ref = await this.infra.blobs.put(stored);
    const attachmentId = prefixedId('att');
    const filename = part.filename ?? `attachment.${kind === 'jpeg' ? 'jpg' : kind}`;
    const decision = await this.decide(s, info, {
      type: 'UploadAttachment',
      participant_id: s.participant.id,
      field_id: field.id,
      attachment_id: attachmentId,
      filename,
      kind,
      blob: { sha256: ref.sha256, byte_size: ref.byte_size },
      ip: info.ip,
    });
    const uploaded = decision.events.find((e: { type: string }) => e.type === 'AttachmentUploaded');
    return {
      attachment_id: attachmentId,
      field_id: field.id,
      filename: uploaded?.data.filename ?? filename,
      content_type: ATTACHMENT_CONTENT_TYPES[kind],
      size: ref.byte_size,
      sha256: ref.sha256,
    };
  }

  /**
   * Hands the participant's signing to another person (when the sender allowed it): the next link
   * version's token is derived as a correction's is, so the old link answers signing_link_replaced
   * from the moment ParticipantDelegated is appended, and the notifier sends the new link to the
   * delegate when it is their turn.
   */
  async delegate(s: SigningSession, info: RequestInfo, body: { name: string; phone?: string; email?: string }): Promise<DelegationResponse> {
    const delegate = {
      name: body.name.trim(),
      phone: mobilePhone(body.phone, 'phone'),
      email: body.email?.trim() || null,
    };
    const pid = s.participant.id;
    const decision = await this.decide(s, info, (state: DocumentState) => {
      const current = state.participants.find((p) => p.id === pid);
      const version = (current?.link_version ?? 0) + 1;
      return Promise.resolve({
        type: 'DelegateSigning' as const,
        participant_id: pid,
        delegate,
        link: { version, token_hash: sha256Hex(this.infra.secrets.signingToken(state.id, pid, version)) },
        ip: info.ip,
        user_agent: info.user_agent,
      });
    });
    const event = decision.events.find((e: { type: string }) => e.type === 'ParticipantDelegated');
    return {
      object: 'delegation' as const,
      document_id: s.state.id,
      participant_id: pid,
      delegate: { name: delegate.name, phone_masked: maskPhone(delegate.phone), email_masked: maskEmail(delegate.email) },
      delegated_at: event?.data.delegated_at,
    };
  }

  async decline(s: SigningSession, info: RequestInfo, reason: string): Promise<void> {
    await this.decide(s, info, { type: 'DeclineDocument', participant_id: s.participant.id, reason: reason.trim(), ip: info.ip, user_agent: info.user_agent });
    // A decline ends the document: every draft of it goes (the drafts reactor does the same).
    await this.drafts.clear(s.state.id).catch((err: unknown) => this.infra.logger.warn({ err, document_id: s.state.id }, 'signing drafts not cleared at decline; the drafts reactor will'));
  }

  private async storeImage(dataUrl: string, param: string): Promise<BlobPointer> {
    const bytes = await decodeImageDataUrl(this.pdf, dataUrl, param);
    const ref = await this.infra.blobs.put(bytes);
    return { sha256: ref.sha256, byte_size: ref.byte_size };
  }
}

/**
 * Whether a signature request repeats the one this participant's signature recorded: signed, with
 * the same signature image and the same seal (both content-addressed, so the same bytes give the
 * same pointer). Anything else after the signature stays refused (409 participant_already_signed).
 */
function repeatsLandedSignature(p: ParticipantState, signature: BlobPointer | null, seal: { image: BlobPointer } | null): boolean {
  return p.status === 'signed' && (p.signature?.sha256 ?? null) === (signature?.sha256 ?? null) && (p.seal?.image.sha256 ?? null) === (seal?.image.sha256 ?? null);
}
