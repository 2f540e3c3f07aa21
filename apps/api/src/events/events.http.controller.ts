import { ApiPropertyOptional } from '@nestjs/swagger';
import { Controller, Get, Inject, Param, Query } from '@nestjs/common';
import { IsIn, IsOptional, IsString } from 'class-validator';
import { Infrastructure, maskEventData } from '@dojang/application';
import { PUBLIC_EVENTS, PUBLIC_EVENT_TYPES, PublicEventRow } from '@dojang/projections';
import { Condition } from '@dojang/read-store';
import { parseLimit } from '../documents/documents.http.controller';
import { ApiError } from '../shared/api-error';
import { listPage } from '../shared/list-page';
import { Auth, AuthContext } from '../shared/auth.guard';
import { INFRA } from '../shared/infrastructure.token';
import { EventListResponse, EventResponse } from '../openapi/response-schemas';

export class ListEventsQuery {
  @ApiPropertyOptional({ enum: PUBLIC_EVENT_TYPES as unknown as string[] }) @IsOptional() @IsIn(PUBLIC_EVENT_TYPES as unknown as string[]) type?: string;
  @ApiPropertyOptional({ type: 'string' }) @IsOptional() @IsString() document_id?: string;
  @ApiPropertyOptional({ type: 'string' }) @IsOptional() @IsString() limit?: string;
  @ApiPropertyOptional({ type: 'string' }) @IsOptional() @IsString() starting_after?: string;
  @ApiPropertyOptional({ type: 'string' }) @IsOptional() @IsString() ending_before?: string;
}

export function presentEvent(row: PublicEventRow): EventResponse {
  return { id: row.id, object: 'event' as const, type: row.type, created_at: row.created_at, livemode: row.livemode, data: row.data };
}

/** An auditor key reads events masked by the one rule every auditor read follows (maskEventData), reasons included. */
const presentFor = (auth: AuthContext) => (row: PublicEventRow): EventResponse => {
  const event = presentEvent(row);
  return auth.role === 'auditor' ? { ...event, data: maskEventData(event.data) as EventResponse['data'] } : event;
};

@Controller('events')
export class EventsHttpController {
  constructor(@Inject(INFRA) private readonly infra: Infrastructure) {}

  private async row(auth: AuthContext, id: string): Promise<PublicEventRow | null> {
    const row = await this.infra.reads.get<PublicEventRow>(PUBLIC_EVENTS, id);
    return row && row.organization_id === auth.organization_id && row.livemode === auth.livemode ? row : null;
  }

  @Get()
  async list(@Auth() auth: AuthContext, @Query() q: ListEventsQuery): Promise<EventListResponse> {
    const limit = parseLimit(q.limit);
    const where: Record<string, Condition> = { organization_id: auth.organization_id, livemode: auth.livemode };
    if (q.type) where.type = q.type;
    if (q.document_id) where.document_id = q.document_id.toLowerCase();
    const { rows, has_more } = await listPage<PublicEventRow>(
      this.infra.reads,
      { limit, starting_after: q.starting_after, ending_before: q.ending_before },
      { collection: PUBLIC_EVENTS, where, sortField: 'seq', cursor: (id) => this.row(auth, id), noun: 'an event' },
    );
    return { object: 'list', data: rows.map(presentFor(auth)), has_more };
  }

  @Get(':id')
  async get(@Auth() auth: AuthContext, @Param('id') id: string): Promise<EventResponse> {
    const row = await this.row(auth, id);
    if (!row) throw ApiError.notFound('event_not_found', 'No such event.');
    return presentFor(auth)(row);
  }
}
