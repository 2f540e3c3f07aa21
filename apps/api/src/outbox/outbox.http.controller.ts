import { ApiPropertyOptional } from '@nestjs/swagger';
import { Controller, Get, Inject, Query } from '@nestjs/common';
import { IsIn, IsOptional, IsString } from 'class-validator';
import { Infrastructure, OUTBOX, OutboxRow } from '@dojang/application';
import { Condition } from '@dojang/read-store';
import { parseLimit } from '../documents/documents.http.controller';
import { ApiError } from '../shared/api-error';
import { listPage } from '../shared/list-page';
import { Auth, AuthContext } from '../shared/auth.guard';
import { INFRA } from '../shared/infrastructure.token';
import { OutboxMessageListResponse } from '../openapi/response-schemas';

export class ListOutboxQuery {
  @ApiPropertyOptional({ type: 'string' }) @IsOptional() @IsString() document_id?: string;
  @ApiPropertyOptional({ type: 'string' }) @IsOptional() @IsString() participant_id?: string;
  @ApiPropertyOptional({ enum: ['email', 'sms', 'kakao'] }) @IsOptional() @IsIn(['email', 'sms', 'kakao']) channel?: string;
  @ApiPropertyOptional({ type: 'string' }) @IsOptional() @IsString() limit?: string;
  @ApiPropertyOptional({ type: 'string', description: 'id of the last message of the previous page' }) @IsOptional() @IsString() starting_after?: string;
  @ApiPropertyOptional({ type: 'string', description: 'id of the first message of the next page: returns the page before it' }) @IsOptional() @IsString() ending_before?: string;
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
    const cursor = async (id: string) => {
      const row = await this.infra.reads.get<OutboxRow>(OUTBOX, id);
      return row && row.organization_id === auth.organization_id && row.livemode === false ? row : null;
    };
    const { rows, has_more } = await listPage<OutboxRow>(
      this.infra.reads,
      { limit, starting_after: q.starting_after, ending_before: q.ending_before },
      { collection: OUTBOX, where, sortField: 'sort_key', cursor, noun: 'a message' },
    );
    return {
      object: 'list' as const,
      data: rows.map((r) => ({
        id: r.id,
        object: 'message' as const,
        kind: r.kind,
        channel: r.channel,
        to: r.to,
        subject: r.subject,
        body: r.body,
        sms_type: r.sms_type ?? null,
        template_id: r.template_id ?? null,
        from_name: r.from_name ?? null,
        reply_to: r.reply_to ?? null,
        signing_url: r.signing_url,
        pin: r.pin,
        attachments: r.attachments,
        document_id: r.document_id,
        participant_id: r.participant_id,
        created_at: r.created_at,
      })),
      has_more,
    };
  }
}
