import { Body, Controller, Get, HttpCode, Inject, Param, Post, Query } from '@nestjs/common';
import { CommandBus } from '@nestjs/cqrs';
import { Clock, CLOCK, Infrastructure, prefixedId, putBody, readBody } from '@dojang/application';
import { TemplateCommand, templateDecider, templateStreamId, validateTemplateContent } from '@dojang/domain';
import { TEMPLATES, TemplateReadRow } from '@dojang/projections';
import { Condition } from '@dojang/read-store';
import { extractTemplateVariables } from '@dojang/seals';
import { parseLimit } from '../documents/documents.http.controller';
import { ApiError } from '../shared/api-error';
import { listPage } from '../shared/list-page';
import { Auth, AuthContext, ReqInfo, RequestInfo, commandContext } from '../shared/auth.guard';
import { DecideCommand } from '../shared/decide.command';
import { INFRA } from '../shared/infrastructure.token';
import { CreateTemplateDto, ListTemplatesQuery } from './template.dto';
import { TemplateListResponse, TemplateResponse, TemplateSummaryResponse } from '../openapi/response-schemas';

/** List items leave the (possibly large) content out; GET /templates/{id} has it. */
export function presentTemplateSummary(row: TemplateReadRow): TemplateSummaryResponse {
  return { id: row.id, object: 'template', name: row.name, variables: row.variables, livemode: row.livemode, created_at: row.created_at };
}

/** `content` is the body read from the blob store (the row holds only its ref). */
export function presentTemplate(row: TemplateReadRow, content: string): TemplateResponse {
  return { id: row.id, object: 'template', name: row.name, variables: row.variables, content, livemode: row.livemode, created_at: row.created_at };
}

@Controller('templates')
export class TemplatesHttpController {
  constructor(
    @Inject(INFRA) private readonly infra: Infrastructure,
    @Inject(CLOCK) private readonly clock: Clock,
    private readonly commandBus: CommandBus,
  ) {}

  private async row(auth: AuthContext, id: string): Promise<TemplateReadRow | null> {
    const row = await this.infra.reads.get<TemplateReadRow>(TEMPLATES, id);
    return row && row.organization_id === auth.organization_id && row.livemode === auth.livemode ? row : null;
  }

  @Post()
  @HttpCode(201)
  async create(@Auth() auth: AuthContext, @ReqInfo() info: RequestInfo, @Body() dto: CreateTemplateDto): Promise<TemplateResponse> {
    const id = prefixedId('tmpl');
    validateTemplateContent(dto.content);
    const command: TemplateCommand = {
      type: 'CreateTemplate',
      template_id: id,
      organization_id: auth.organization_id,
      livemode: auth.livemode,
      name: dto.name,
      content_blob: await putBody(this.infra.blobs, dto.content),
      variables: extractTemplateVariables(dto.content),
      now: this.clock.now().toISOString(),
    };
    await this.commandBus.execute(
      new DecideCommand(templateDecider, templateStreamId(id), command, commandContext(auth, info)),
    );
    return presentTemplate((await this.row(auth, id)) as TemplateReadRow, dto.content);
  }

  @Get()
  async list(@Auth() auth: AuthContext, @Query() query: ListTemplatesQuery): Promise<TemplateListResponse> {
    const limit = parseLimit(query.limit);
    const where: Record<string, Condition> = { organization_id: auth.organization_id, livemode: auth.livemode };
    const { rows, has_more } = await listPage<TemplateReadRow>(
      this.infra.reads,
      { limit, starting_after: query.starting_after, ending_before: query.ending_before },
      { collection: TEMPLATES, where, sortField: 'sort_key', cursor: (id) => this.row(auth, id), noun: 'a template' },
    );
    return { object: 'list' as const, data: rows.map(presentTemplateSummary), has_more };
  }

  @Get(':id')
  async get(@Auth() auth: AuthContext, @Param('id') id: string): Promise<TemplateResponse> {
    const row = await this.row(auth, id);
    if (!row) throw ApiError.notFound('template_not_found', 'No such template.');
    return presentTemplate(row, (await readBody(this.infra.blobs, row)) ?? '');
  }
}
