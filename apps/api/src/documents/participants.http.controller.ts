import { Body, Controller, Delete, HttpCode, Inject, Param, Post, Put } from '@nestjs/common';
import { randomUUID } from 'crypto';
import { DocumentPdfService } from '@dojang/application';
import { DocumentState, ParticipantSetup } from '@dojang/domain';
import { Auth, AuthContext, ReqInfo, RequestInfo } from '../shared/auth.guard';
import { DocumentAccess } from './document-access.service';
import { ParticipantBatchDto, ParticipantDto, ReplaceFieldsDto } from './document.dto';
import { ApiError } from '../shared/api-error';
import { toField } from './field-settings';
import { DeletedParticipantResponse, FieldListResponse, ParticipantListResponse, ParticipantResponse } from '../openapi/response-schemas';

function toSetup(dto: ParticipantDto): ParticipantSetup {
  return {
    id: randomUUID(),
    name: dto.name.trim(),
    phone: dto.phone === undefined || dto.phone === '' ? null : dto.phone.replace(/-/g, ''),
    email: dto.email?.trim() || null,
    role: dto.role ?? 'signer',
    // Without an order everyone acts in parallel.
    signing_order: dto.signing_order ?? 1,
    auth: dto.auth ?? 'sms_pin',
    ...(dto.redirect_url !== undefined ? { redirect_url: dto.redirect_url.trim() } : {}),
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
    const setup = toSetup(dto);
    await this.docs.decide(auth, info, id, { type: 'AddParticipants', participants: [setup] });
    const doc = await this.docs.presentById(auth, id);
    const created = doc.participants.find((p) => p.id === setup.id);
    if (!created) throw new ApiError(500, 'api_error', 'internal_error', 'Something went wrong on our side. Try again later.');
    return created;
  }

  @Post('participants/batch')
  @HttpCode(201)
  async addBatch(@Auth() auth: AuthContext, @ReqInfo() info: RequestInfo, @Param('id') id: string, @Body() dto: ParticipantBatchDto): Promise<ParticipantListResponse> {
    const setups = dto.participants.map(toSetup);
    await this.docs.decide(auth, info, id, { type: 'AddParticipants', participants: setups, batch: true });
    const doc = await this.docs.presentById(auth, id);
    const created = new Set(setups.map((s) => s.id));
    return { object: 'list', data: doc.participants.filter((p) => created.has(p.id)), has_more: false };
  }

  @Delete('participants/:participantId')
  async remove(@Auth() auth: AuthContext, @ReqInfo() info: RequestInfo, @Param('id') id: string, @Param('participantId') participantId: string): Promise<DeletedParticipantResponse> {
    await this.docs.decide(auth, info, id, { type: 'RemoveParticipant', participant_id: participantId.toLowerCase() });
    return { id: participantId.toLowerCase(), object: 'participant', deleted: true };
  }

  @Put('fields')
  async replaceFields(@Auth() auth: AuthContext, @ReqInfo() info: RequestInfo, @Param('id') id: string, @Body() dto: ReplaceFieldsDto): Promise<FieldListResponse> {
    const fields = dto.fields.map(toField);
    await this.docs.decide(auth, info, id, async (state: DocumentState) => ({
      type: 'ReplaceFields' as const,
      fields,
      // An HTML draft's page count is its render's (cached, and the one send fixes): fields are
      // checked against it now rather than at send. An uploaded PDF's is in the state already.
      page_count: state.status === 'draft' && !state.file && state.page_count === null ? (await this.pdf.rendered(state)).page_count : null,
    }));
    const doc = await this.docs.presentById(auth, id);
    return { object: 'list', data: doc.fields, has_more: false };
  }
}
