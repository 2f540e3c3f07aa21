import { Body, CanActivate, Controller, ExecutionContext, HttpCode, Inject, Injectable, Post, UseGuards } from '@nestjs/common';
import { CommandBus } from '@nestjs/cqrs';
import { DocumentPdfService, TemplateSender, putBody, sha256Hex } from '@dojang/application';
import {
  DEFAULT_EXPIRY_DAYS,
  DocumentCommand,
  DocumentState,
  OrganizationState,
  dateFormatOf,
  canAffordSignature,
  documentDecider,
  documentSequence,
  documentStreamId,
} from '@dojang/domain';
import { normalizeMetadata } from '../documents/metadata';
import { checkDocumentBudget } from '@dojang/pdf';
import { Request } from 'express';
import { DocumentAccess } from '../documents/document-access.service';
import { DocumentSources } from '../documents/document-sources.service';
import { ApiError } from '../shared/api-error';
import { creationId } from '../idempotency/idempotent-creation';
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

@Controller('signature_requests')
export class SignatureRequestsHttpController {
  constructor(
    private readonly docs: DocumentAccess,
    private readonly sources: DocumentSources,
    @Inject(DocumentPdfService) private readonly pdf: DocumentPdfService,
    private readonly commandBus: CommandBus,
    private readonly templates: TemplateSender,
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
    if (dto.template_id !== undefined) return this.fromTemplate(auth, info, dto);
    for (const key of ['roles', 'variables', 'values', 'metadata', 'external_id'] as const) {
      if (dto[key] !== undefined) throw ApiError.invalid(key, `${key} applies to a template send: give template_id too, or leave ${key} out.`);
    }
    const title = (dto.title as string).trim();
    const content = dto.content as string;
    const recipient = dto.recipient as NonNullable<CreateSignatureRequestDto['recipient']>;
    if (!title) throw ApiError.missing('title');
    if (!content.trim()) throw ApiError.missing('content');
    const email = recipient.email.trim();
    if (!EMAIL.test(email)) throw ApiError.invalid('recipient.email', 'recipient.email is not a valid e-mail address.');
    const name = recipient.name?.trim() || email;
    const org = await this.sources.organization(auth);
    if (auth.livemode && !canAffordSignature(org as unknown as OrganizationState, this.docs.nowIso())) {
      throw new ApiError(402, 'invalid_request_error', 'insufficient_credits', 'A live send needs a free signature left this month or at least 1 credit.');
    }
    const format = dto.content_format ?? 'html';
    // Over a budget is refused from the text alone, before any worker lays it out.
    checkDocumentBudget(content, format);
    const block = await this.pdf.placeSignature({ title, content, format, signer_name: name }, auth.organization_id);
    const contentBlob = await putBody(this.docs.infra.blobs, block.content);
    // With an Idempotency-Key every id derives from it: a retry whose first attempt wrote names the
    // same document (and finds its participant by the same id) instead of making a second one.
    const documentId = creationId(info.idempotency, 'document');
    const participantId = creationId(info.idempotency, 'participant');
    const fieldId = creationId(info.idempotency, 'field');
    let created = true;
    const days = dto.expires_in_days ?? org.default_expiry_days ?? DEFAULT_EXPIRY_DAYS;

    const source = async (state: DocumentState): Promise<DocumentCommand[]> => {
      // Made by an earlier attempt with this key: nothing to write (createOnce checks whose it is).
      if (state.exists) {
        created = false;
        return [];
      }
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
          fields: [{ id: fieldId, participant_id: participantId, type: 'signature', ...block.field, required: true, upload_only: false }],
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
          date_format: dateFormatOf(org as unknown as OrganizationState),
          links: [{ participant_id: participantId, token_hash: sha256Hex(this.docs.infra.secrets.signingToken(documentId, participantId)) }],
        },
      ];
    };
    await this.docs.createOnce(auth, info, documentId, async () => {
      await this.commandBus.execute(new DecideCommand(documentSequence, documentStreamId(documentId), source, this.docs.context(auth, info)));
      return created;
    });
    const document = await this.docs.presentById(auth, documentId);
    const participant = document.participants.find((p) => p.id === participantId);
    if (!participant) throw new ApiError(500, 'api_error', 'internal_error', 'Something went wrong on our side. Try again later.');
    return { ...document, participant, signing_url: participant.signing_url };
  }

  /**
   * The template shape: the whole create + send is TemplateSender's (the same code a bulk send runs
   * per row); the controller only maps the request and presents the answer.
   */
  private async fromTemplate(auth: AuthContext, info: RequestInfo, dto: CreateSignatureRequestDto): Promise<SignatureRequestResponse> {
    for (const key of ['content', 'content_format', 'recipient'] as const) {
      if (dto[key] !== undefined) throw ApiError.invalid(key, `${key} comes from the template with template_id: leave ${key} out (recipients go in roles).`);
    }
    if (dto.roles === undefined) throw ApiError.missing('roles', 'roles is required with template_id: { "<role>": { "name": …, "phone": …, "email": … } } for every role of the template.');
    const metadata = normalizeMetadata(dto.metadata, false) as Record<string, string> | undefined;
    // Given an id derived from the Idempotency-Key, TemplateSender writes nothing for a document
    // that exists (created: false), and the answer is the first attempt's document, re-read.
    const documentId = info.idempotency ? creationId(info.idempotency, 'document') : undefined;
    let result!: Awaited<ReturnType<TemplateSender['send']>>;
    const send = () => this.templates.send(
      {
        organization_id: auth.organization_id,
        livemode: auth.livemode,
        template_id: dto.template_id as string,
        roles: dto.roles,
        ...(dto.variables !== undefined ? { variables: dto.variables } : {}),
        ...(dto.values !== undefined ? { values: dto.values } : {}),
        ...(metadata !== undefined ? { metadata } : {}),
        ...(dto.external_id !== undefined ? { external_id: dto.external_id } : {}),
        ...(dto.title !== undefined ? { title: dto.title } : {}),
        message: dto.message ?? null,
        ...(dto.expires_in_days !== undefined ? { expires_in_days: dto.expires_in_days } : {}),
        ...(documentId !== undefined ? { document_id: documentId } : {}),
      },
      this.docs.context(auth, info),
      { waitForProjections: true },
    );
    if (documentId === undefined) result = await send();
    else await this.docs.createOnce(auth, info, documentId, async () => (result = await send()).created);
    const document = await this.docs.presentById(auth, result.document_id);
    const participant = document.participants.find((p) => p.role === 'signer') ?? document.participants[0];
    if (!participant) throw new ApiError(500, 'api_error', 'internal_error', 'Something went wrong on our side. Try again later.');
    return { ...document, participant, signing_url: participant.signing_url, roles: result.participant_ids };
  }
}
