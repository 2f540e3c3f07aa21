import { ApiPropertyOptional } from '@nestjs/swagger';
import { Controller, Get, Inject, Query } from '@nestjs/common';
import { IsIn, IsOptional, IsString } from 'class-validator';
import { Infrastructure, OUTBOX, OutboxRow } from '@dojang/application';
import { Condition } from '@dojang/read-store';
import { parseLimit } from '../documents/documents.http.controller';
import { ApiError } from '../shared/api-error';
import { Auth, AuthContext } from '../shared/auth.guard';
import { INFRA } from '../shared/infrastructure.token';
import { OutboxMessageListResponse } from '../openapi/response-schemas';

export class ListOutboxQuery {
  @ApiPropertyOptional({ type: 'string' }) @IsOptional() @IsString() document_id?: string;
  @ApiPropertyOptional({ type: 'string' }) @IsOptional() @IsString() participant_id?: string;
  @ApiPropertyOptional({ enum: ['email', 'sms'] }) @IsOptional() @IsIn(['email', 'sms']) channel?: string;
  @ApiPropertyOptional({ type: 'string' }) @IsOptional() @IsString() limit?: string;
}

/** What test mode would have sent, newest first. Live keys have no outbox: their messages really go out. */
@Controller('outbox')
export class OutboxHttpController {
  constructor(@Inject(INFRA) private readonly infra: Infrastructure) {}

  @Get()
  async list(@Auth() auth: AuthContext, @Query() q: ListOutboxQuery): Promise<OutboxMessageListResponse> {
    if (auth.livemode) {
      throw new ApiError(403, 'permission_error', 'test_mode_only', 'The outbox exists in test mode only; live messages are really sent.');
    }
    const limit = parseLimit(q.limit);
    const where: Record<string, Condition> = { organization_id: auth.organization_id, livemode: false };
    if (q.document_id) where.document_id = q.document_id.toLowerCase();
    if (q.participant_id) where.participant_id = q.participant_id.toLowerCase();
    if (q.channel) where.channel = q.channel;
    const rows = await this.infra.reads.find<OutboxRow>(OUTBOX, { where, orderBy: [{ field: 'sort_key', direction: 'desc' }], limit: limit + 1 });
    return {
      object: 'list' as const,
      data: rows.slice(0, limit).map((r) => ({
        id: r.id,
        object: 'message' as const,
        kind: r.kind,
        channel: r.channel,
        to: r.to,
        subject: r.subject,
        body: r.body,
        signing_url: r.signing_url,
        pin: r.pin,
        attachments: r.attachments,
        document_id: r.document_id,
        participant_id: r.participant_id,
        created_at: r.created_at,
      })),
      has_more: rows.length > limit,
    };
  }
}
