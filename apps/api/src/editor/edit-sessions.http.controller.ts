import { Body, Controller, HttpCode, Param, Post, Req } from '@nestjs/common';
import { EditGrant, SESSION_SECONDS, sha256Hex } from '@dojang/application';
import { isHttpsUrl } from '@dojang/domain';
import { Request } from 'express';
import { DocumentAccess } from '../documents/document-access.service';
import { ApiError } from '../shared/api-error';
import { Auth, AuthContext } from '../shared/auth.guard';
import { EditSessionResponse } from '../openapi/response-schemas';
import { CreateEditSessionDto } from './edit-session.dto';
import { EditorService } from './editor.service';

/**
 * Opens the field-placement editor for one document or template (issue 34): a one-time URL for
 * the integrator's iframe. A POST, so an auditor key is refused by the guard (403) like every
 * write; another organization's id is answered as one that does not exist (404).
 */
@Controller()
export class EditSessionsHttpController {
  constructor(
    private readonly docs: DocumentAccess,
    private readonly editor: EditorService,
  ) {}

  private grant(auth: AuthContext, req: Request, kind: EditGrant['kind'], targetId: string, dto: CreateEditSessionDto): EditGrant {
    const actions = dto.actions ?? ['save'];
    if (actions.length === 0) throw ApiError.invalid('actions', 'actions needs at least one of save, send, preview.');
    // A template has no recipients to send to: documents are made from it by POST /signature_requests.
    if (kind === 'template' && actions.includes('send')) throw ApiError.invalid('actions', 'A template is not sent: send it with POST /signature_requests. Its editor takes save and preview.');
    if (dto.redirect_url !== undefined && !isHttpsUrl(dto.redirect_url)) throw ApiError.invalid('redirect_url', 'redirect_url must be an absolute https URL (at most 2048 characters).');
    // The key's own hash (API_KEYS' id): the session checks on every call that it was not revoked.
    const key = /^Bearer\s+(\S+)\s*$/i.exec(String(req.headers.authorization ?? ''))?.[1] ?? '';
    return {
      kind,
      target_id: targetId,
      organization_id: auth.organization_id,
      livemode: auth.livemode,
      key_id: auth.key_id,
      key_hash: sha256Hex(key),
      actions,
      redirect_url: dto.redirect_url ?? null,
      locale: dto.locale ?? 'ko',
    };
  }

  private async issue(grant: EditGrant): Promise<EditSessionResponse> {
    const { token, expires_at } = await this.editor.store.issue(grant, this.editor.now());
    return {
      object: 'edit_session',
      url: `${this.docs.origin}/edit/${token}`,
      expires_at,
      session_seconds: SESSION_SECONDS,
      kind: grant.kind,
      document_id: grant.kind === 'document' ? grant.target_id : null,
      template_id: grant.kind === 'template' ? grant.target_id : null,
      actions: grant.actions,
      redirect_url: grant.redirect_url,
      locale: grant.locale,
    };
  }

  @Post('documents/:id/edit_session')
  @HttpCode(201)
  async forDocument(@Auth() auth: AuthContext, @Req() req: Request, @Param('id') id: string, @Body() dto: CreateEditSessionDto): Promise<EditSessionResponse> {
    const row = await this.docs.row(auth, id);
    return this.issue(this.grant(auth, req, 'document', row.id, dto));
  }

  @Post('templates/:id/edit_session')
  @HttpCode(201)
  async forTemplate(@Auth() auth: AuthContext, @Req() req: Request, @Param('id') id: string, @Body() dto: CreateEditSessionDto): Promise<EditSessionResponse> {
    const template = await this.editor.templateOf(auth, id);
    if (template.archived) throw ApiError.notFound('template_not_found', 'No such template (it was archived).');
    return this.issue(this.grant(auth, req, 'template', template.id, dto));
  }
}
