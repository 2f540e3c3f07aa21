import { Body, CanActivate, Controller, ExecutionContext, HttpCode, Inject, Injectable, Post, UseGuards } from '@nestjs/common';
import { CommandBus } from '@nestjs/cqrs';
import { randomUUID } from 'crypto';
import { DocumentPdfService, putBody, sha256Hex } from '@dojang/application';
import {
  DEFAULT_EXPIRY_DAYS,
  Decider,
  DocumentCommand,
  DocumentEvent,
  DocumentState,
  OrganizationState,
  canAffordSignature,
  documentDecider,
  documentStreamId,
} from '@dojang/domain';
import { checkDocumentBudget } from '@dojang/pdf';
import { Request } from 'express';
import { DocumentAccess } from '../documents/document-access.service';
import { DocumentSources } from '../documents/document-sources.service';
import { ApiError } from '../shared/api-error';
import { Auth, AuthContext, ReqInfo, RequestInfo } from '../shared/auth.guard';
import { DecideCommand } from '../shared/decide.command';
import { CreateSignatureRequestDto } from './signature-request.dto';
import { SignatureRequestResponse } from '../openapi/response-schemas';

const DAY = 24 * 60 * 60 * 1000;
const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

/** POST /signature_requests must carry an Idempotency-Key: a retried one-call send must never send twice. */
@Injectable()
export class RequireIdempotencyKey implements CanActivate {
  canActivate(context: ExecutionContext): boolean {
    const req = context.switchToHttp().getRequest<Request>();
    if (!req.headers['idempotency-key']) throw ApiError.missing('Idempotency-Key', 'The Idempotency-Key header is required for POST /signature_requests.');
    return true;
  }
}

/** Several document commands decided one after another and appended together: all or nothing. */
const documentSequence: Decider<DocumentState, DocumentCommand[], DocumentEvent> = {
  initialState: documentDecider.initialState,
  evolve: documentDecider.evolve,
  decide(commands, state) {
    const out: DocumentEvent[] = [];
    let current = state;
    for (const command of commands) {
      const events = documentDecider.decide(command, current);
      out.push(...events);
      current = events.reduce(documentDecider.evolve, current);
    }
    return out;
  },
};

@Controller('signature_requests')
export class SignatureRequestsHttpController {
  constructor(
    private readonly docs: DocumentAccess,
    private readonly sources: DocumentSources,
    @Inject(DocumentPdfService) private readonly pdf: DocumentPdfService,
    private readonly commandBus: CommandBus,
  ) {}

  /**
   * One call: creates the document, appends the recipient's signature line and field at the end
   * of the body, adds the recipient, and sends (signing link; e-mail with a live key, the outbox
   * with a test key). All events land in one append, so a failure leaves no half-made document.
   */
  @Post()
  @HttpCode(201)
  @UseGuards(RequireIdempotencyKey)
  async create(@Auth() auth: AuthContext, @ReqInfo() info: RequestInfo, @Body() dto: CreateSignatureRequestDto): Promise<SignatureRequestResponse> {
    if (!dto.title.trim()) throw ApiError.missing('title');
    if (!dto.content.trim()) throw ApiError.missing('content');
    const email = dto.recipient.email.trim();
    if (!EMAIL.test(email)) throw ApiError.invalid('recipient.email', 'recipient.email is not a valid e-mail address.');
    const name = dto.recipient.name?.trim() || email;
    const org = await this.sources.organization(auth);
    if (auth.livemode && !canAffordSignature(org as unknown as OrganizationState, this.docs.nowIso())) {
      throw new ApiError(402, 'invalid_request_error', 'insufficient_credits', 'A live send needs a free signature left this month or at least 1 credit.');
    }
    const format = dto.content_format ?? 'html';
    const title = dto.title.trim();
    // Over a budget is refused from the text alone, before any worker lays it out.
    checkDocumentBudget(dto.content, format);
    const block = await this.pdf.placeSignature({ title, content: dto.content, format, signer_name: name }, auth.organization_id);
    const contentBlob = await putBody(this.docs.infra.blobs, block.content);
    const documentId = randomUUID();
    const participantId = randomUUID();
    const days = dto.expires_in_days ?? org.default_expiry_days ?? DEFAULT_EXPIRY_DAYS;

    const source = async (state: DocumentState): Promise<DocumentCommand[]> => {
      const now = this.docs.nowIso();
      const create: DocumentCommand = {
        type: 'CreateDocument',
        now,
        document_id: documentId,
        organization_id: auth.organization_id,
        livemode: auth.livemode,
        title,
        content_blob: contentBlob,
        content_format: format,
        file: null,
        author_name: org.name,
        metadata: {},
        from_template: null,
      };
      const setup: DocumentCommand[] = [
        create,
        {
          type: 'AddParticipants',
          now,
          participants: [{ id: participantId, name, phone: null, email, role: 'signer', signing_order: 1, auth: 'none' }],
        },
        {
          type: 'ReplaceFields',
          now,
          fields: [{ id: randomUUID(), participant_id: participantId, type: 'signature', ...block.field, required: true, upload_only: false }],
        },
      ];
      const draft = documentSequence.decide(setup, state).reduce(documentDecider.evolve, state);
      const original = await this.pdf.fixOriginal(draft);
      return [
        ...setup,
        {
          type: 'SendDocument',
          now,
          expires_at: new Date(this.docs.clock.now().getTime() + days * DAY).toISOString(),
          message: dto.message?.trim() || null,
          page_count: original.page_count,
          original_pdf: original.pointer,
          links: [{ participant_id: participantId, token_hash: sha256Hex(this.docs.infra.secrets.signingToken(documentId, participantId)) }],
        },
      ];
    };
    await this.commandBus.execute(new DecideCommand(documentSequence, documentStreamId(documentId), source, this.docs.context(auth, info)));
    const document = await this.docs.presentById(auth, documentId);
    const participant = document.participants.find((p) => p.id === participantId);
    if (!participant) throw new ApiError(500, 'api_error', 'internal_error', 'Something went wrong on our side. Try again later.');
    return { ...document, participant, signing_url: participant.signing_url };
  }
}
