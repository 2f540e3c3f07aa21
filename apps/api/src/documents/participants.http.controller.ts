import { Body, Controller, Delete, HttpCode, Inject, Param, Patch, Post, Put } from '@nestjs/common';
import { DocumentPdfService, sha256Hex } from '@dojang/application';
import { DocumentState, ParticipantChanges, ParticipantSetup, RESEND_COOLDOWN_SECONDS, documentDecider, documentStreamId, layParts, mobilePhone, pageWithinPart } from '@dojang/domain';
import { Auth, AuthContext, ReqInfo, RequestInfo } from '../shared/auth.guard';
import { DocumentAccess } from './document-access.service';
import { CorrectParticipantDto, ParticipantBatchDto, ParticipantDto, ReplaceFieldsDto } from './document.dto';
import { ApiError } from '../shared/api-error';
import { creationId, projectedStream } from '../idempotency/idempotent-creation';
import { toField } from './field-settings';
import { placeFields } from './field-anchors';
import { DeletedParticipantResponse, FieldListResponse, ParticipantListResponse, ParticipantResponse } from '../openapi/response-schemas';

function toSetup(dto: ParticipantDto, id: string, index?: number): ParticipantSetup {
  const role = dto.role ?? 'signer';
  return {
    id,
    name: dto.name.trim(),
    phone: mobilePhone(dto.phone, index === undefined ? 'phone' : `participants[${index}].phone`),
    email: dto.email?.trim() || null,
    role,
    // Without an order everyone acts in parallel.
    signing_order: dto.signing_order ?? 1,
    // A cc only receives copies and never authenticates: no PIN, so no phone needed.
    auth: dto.auth ?? (role === 'cc' ? 'none' : 'sms_pin'),
    ...(dto.redirect_url !== undefined ? { redirect_url: dto.redirect_url.trim() } : {}),
    // Recorded only when given: participants of SPEC's shape stay exactly as they were.
    ...(dto.group !== undefined ? { group: dto.group.trim() } : {}),
    ...(dto.allow_delegation ? { allow_delegation: true } : {}),
    ...(dto.representative ? { representative: true } : {}),
    ...(dto.channel !== undefined && dto.channel !== 'auto' ? { channel: dto.channel } : {}),
    ...(dto.language !== undefined ? { language: dto.language } : {}),
  };
}

@Controller('documents/:id')
export class ParticipantsHttpController {
  constructor(
    private readonly docs: DocumentAccess,
    @Inject(DocumentPdfService) private readonly pdf: DocumentPdfService,
  ) {}

  @Post('participants')
  @HttpCode(201)
  async add(@Auth() auth: AuthContext, @ReqInfo() info: RequestInfo, @Param('id') id: string, @Body() dto: ParticipantDto): Promise<ParticipantResponse> {
    const setup = toSetup(dto, creationId(info.idempotency, 'participant'));
    await this.addOnce(auth, info, id, [setup], { type: 'AddParticipants', participants: [setup] });
    const doc = await this.docs.presentById(auth, id);
    const created = doc.participants.find((p) => p.id === setup.id);
    if (!created) throw new ApiError(500, 'api_error', 'internal_error', 'Something went wrong on our side. Try again later.');
    return created;
  }

  @Post('participants/batch')
  @HttpCode(201)
  async addBatch(@Auth() auth: AuthContext, @ReqInfo() info: RequestInfo, @Param('id') id: string, @Body() dto: ParticipantBatchDto): Promise<ParticipantListResponse> {
    const setups = dto.participants.map((p, i) => toSetup(p, creationId(info.idempotency, `participant-${i}`), i));
    await this.addOnce(auth, info, id, setups, { type: 'AddParticipants', participants: setups, batch: true });
    const doc = await this.docs.presentById(auth, id);
    const created = new Set(setups.map((s) => s.id));
    return { object: 'list', data: doc.participants.filter((p) => created.has(p.id)), has_more: false };
  }

  /**
   * Adds participants whose ids derive from the request's Idempotency-Key (if any). A retry whose
   * first attempt was written (its answer lost in an outage) finds them all in the document:
   * nothing is added again, the answer is a replay of what is stored. Not a new stream, so no
   * append collides: the check is made on the folded state, inside the handler's retry loop.
   */
  private async addOnce(auth: AuthContext, info: RequestInfo, id: string, setups: ParticipantSetup[], command: { type: 'AddParticipants'; participants: ParticipantSetup[]; batch?: boolean }) {
    const already = new Error('participants already added');
    try {
      await this.docs.decide(auth, info, id, (state) => {
        if (info.idempotency && setups.every((s) => state.participants.some((p) => p.id === s.id))) throw already;
        return command;
      });
    } catch (err) {
      if (err !== already) throw err;
      await projectedStream(this.docs.infra, documentDecider, documentStreamId(id.toLowerCase()));
      info.idempotency?.replayed();
    }
  }

  @Delete('participants/:participantId')
  async remove(@Auth() auth: AuthContext, @ReqInfo() info: RequestInfo, @Param('id') id: string, @Param('participantId') participantId: string): Promise<DeletedParticipantResponse> {
    await this.docs.decide(auth, info, id, { type: 'RemoveParticipant', participant_id: participantId.toLowerCase() });
    return { id: participantId.toLowerCase(), object: 'participant', deleted: true };
  }

  /**
   * Corrects a participant who has not signed. After send the participant's link is replaced (the
   * next version of its derivation, so the old token can never be valid again) and the notifier
   * sends the new one when it is their turn.
   */
  @Patch('participants/:participantId')
  async correct(
    @Auth() auth: AuthContext,
    @ReqInfo() info: RequestInfo,
    @Param('id') id: string,
    @Param('participantId') participantId: string,
    @Body() dto: CorrectParticipantDto,
  ): Promise<ParticipantResponse> {
    const pid = participantId.toLowerCase();
    const changes: ParticipantChanges = {};
    if (dto.name !== undefined) changes.name = dto.name.trim();
    if (dto.phone !== undefined) changes.phone = mobilePhone(dto.phone, 'phone');
    if (dto.email !== undefined) changes.email = dto.email.trim() || null;
    if (dto.auth !== undefined) changes.auth = dto.auth;
    await this.docs.decide(auth, info, id, (state: DocumentState) => {
      const current = state.participants.find((p) => p.id === pid);
      const version = (current?.link_version ?? 0) + 1;
      const link = state.status === 'sent' && current ? { version, token_hash: sha256Hex(this.docs.infra.secrets.signingToken(state.id, pid, version)) } : null;
      return { type: 'CorrectParticipant' as const, participant_id: pid, changes, link };
    });
    return this.presentParticipant(auth, id, pid);
  }

  /** The participant's signing request again, on the link they have (cooldown per participant). */
  @Post('participants/:participantId/resend')
  @HttpCode(200)
  async resend(@Auth() auth: AuthContext, @ReqInfo() info: RequestInfo, @Param('id') id: string, @Param('participantId') participantId: string): Promise<ParticipantResponse> {
    const pid = participantId.toLowerCase();
    await this.docs.decide(auth, info, id, { type: 'ResendSigningRequest', participant_id: pid, cooldown_seconds: RESEND_COOLDOWN_SECONDS });
    return this.presentParticipant(auth, id, pid);
  }

  private async presentParticipant(auth: AuthContext, id: string, pid: string): Promise<ParticipantResponse> {
    const doc = await this.docs.presentById(auth, id);
    const found = doc.participants.find((p) => p.id === pid);
    if (!found) throw new ApiError(500, 'api_error', 'internal_error', 'Something went wrong on our side. Try again later.');
    return found;
  }

  private async placed(state: DocumentState, dto: ReplaceFieldsDto) {
    const editable = state.exists && !state.trashed && state.status === 'draft';
    const fields = editable && state.parts ? await this.withinParts(state, dto.fields) : dto.fields;
    const anchored = fields.some((f) => f.anchor !== undefined);
    // A sent or trashed document answers as before (409/404) rather than being searched.
    const boxes = anchored && editable ? await placeFields(this.pdf, state, fields) : null;
    return fields.map((f, i) => toField(f, boxes ? boxes[i] : { box: { page: f.page ?? 1, x: f.x ?? 0, y: f.y ?? 0, width: f.width ?? 0, height: f.height ?? 0 }, anchor: null }));
  }

  /**
   * A document of parts numbers its pages across the whole document (as its footers, the signing
   * session and the page images do); a field records its part and the page within it. Each field
   * placed by coordinates is mapped so, by the draft's parts as rendered now (the renders send
   * joins). A page that is not a whole number ≥ 1 is left for the decider to refuse as before.
   */
  private async withinParts(state: DocumentState, dtos: ReplaceFieldsDto['fields']): Promise<ReplaceFieldsDto['fields']> {
    if (!dtos.some((f) => f.anchor === undefined && f.page !== undefined)) return dtos;
    const layout = layParts((await this.pdf.partPdfs(state)).map((p) => p.page_count));
    return dtos.map((f, i) => {
      if (f.anchor !== undefined || f.page === undefined || !Number.isInteger(f.page) || f.page < 1) return f;
      const known = f.part !== undefined && Number.isInteger(f.part) && f.part >= 0 && f.part < layout.length ? f.part : undefined;
      // A part the document does not have is the decider's to refuse (`fields[i].part`).
      if (f.part !== undefined && known === undefined) return f;
      return { ...f, ...pageWithinPart(layout, f.page, known, `fields[${i}].page`) };
    });
  }

  @Put('fields')
  async replaceFields(@Auth() auth: AuthContext, @ReqInfo() info: RequestInfo, @Param('id') id: string, @Body() dto: ReplaceFieldsDto): Promise<FieldListResponse> {
    await this.docs.decide(auth, info, id, async (state: DocumentState) => ({
      type: 'ReplaceFields' as const,
      // Anchored fields are found in the draft's PDF first (field-anchors.ts); only drafts get here
      // with anchors resolved, the decider refuses the rest as it always did.
      fields: await this.placed(state, dto),
      // An HTML draft's page count is its render's (cached, and the one send fixes): fields are
      // checked against it now rather than at send. An uploaded PDF's is in the state already.
      page_count: state.status === 'draft' && !state.parts && !state.file && state.page_count === null ? (await this.pdf.rendered(state)).page_count : null,
      // With parts, each part's (its render's, cached) so a page past its part is refused now.
      part_page_counts: state.status === 'draft' && state.parts ? (await this.pdf.partPdfs(state)).map((p) => p.page_count) : null,
    }));
    const doc = await this.docs.presentById(auth, id);
    return { object: 'list', data: doc.fields, has_more: false };
  }
}
