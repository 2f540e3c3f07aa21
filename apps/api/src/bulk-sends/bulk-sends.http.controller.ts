import { createHash } from 'crypto';
import { Body, Controller, Get, HttpCode, Inject, Param, Post, Query, Req } from '@nestjs/common';
import { CommandBus } from '@nestjs/cqrs';
import { Request } from 'express';
import {
  BulkInputError,
  BulkRow,
  BulkSendService,
  Clock,
  CLOCK,
  Decision,
  Infrastructure,
  MAX_BULK_UPLOAD_BYTES,
  RowError,
  DocumentPdfService,
  readUploadedTable,
  rowsFromJson,
  settledRows,
  rowsFromTable,
} from '@dojang/application';
import { BulkSendState, DomainError, bulkSendDecider, bulkSendStreamId } from '@dojang/domain';
import { REMIND_COOLDOWN_SECONDS } from '../documents/document-lifecycle.http.controller';
import { BULK_SENDS, BULK_SEND_ROWS, BulkSendRow, BulkSendRowOutcome } from '@dojang/projections';
import { DocumentAccess } from '../documents/document-access.service';
import { readFilePart } from '../files/multipart-file';
import { creationPrefixedId } from '../idempotency/idempotent-creation';
import { ApiError } from '../shared/api-error';
import { Auth, AuthContext, ReqInfo, RequestInfo, commandContext } from '../shared/auth.guard';
import { DecideCommand } from '../shared/decide.command';
import { INFRA } from '../shared/infrastructure.token';
import { CreateBulkSendDto, ListBulkSendRowsQuery, UploadBulkSendQuery } from './bulk-send.dto';
import {
  BulkSendDocumentsResultResponse,
  BulkSendResponse,
  BulkSendRowListResponse,
  BulkSendValidationResponse,
} from '../openapi/response-schemas';

function presentBulkSend(row: BulkSendRow): BulkSendResponse {
  return {
    id: row.id,
    object: 'bulk_send',
    status: row.status,
    template_id: row.template_id,
    template_version: row.template_version,
    row_count: row.row_count,
    counts: { pending: Math.max(0, row.row_count - row.sent - row.failed - row.canceled), sent: row.sent, failed: row.failed, canceled: row.canceled },
    livemode: row.livemode,
    created_at: row.created_at,
    finished_at: row.finished_at,
  };
}

/** Refused rows as one 400: the first problem as param (`rows[3].employee.phone`), the first ten in the message. */
function refusal(errors: RowError[]): ApiError {
  const first = errors[0];
  const param = first.row === null ? (first.column ?? 'rows') : `rows[${first.row}]${first.column ? `.${first.column}` : ''}`;
  const shown = errors.slice(0, 10).map((e) => (e.row === null ? `${e.column ? `column ${e.column}: ` : ''}${e.message}` : e.message));
  const more = errors.length > 10 ? ` (and ${errors.length - 10} more: dry_run lists every one)` : '';
  return new ApiError(400, 'invalid_request_error', 'bulk_send_invalid_rows', `${errors.length} problem${errors.length === 1 ? '' : 's'} in the rows, nothing was sent: ${shown.join(' | ')}${more}`, param);
}


@Controller('bulk_sends')
export class BulkSendsHttpController {
  constructor(
    @Inject(INFRA) private readonly infra: Infrastructure,
    @Inject(CLOCK) private readonly clock: Clock,
    private readonly bulk: BulkSendService,
    @Inject(DocumentPdfService) private readonly pdf: DocumentPdfService,
    private readonly docs: DocumentAccess,
    private readonly commandBus: CommandBus,
  ) {}

  private async job(auth: AuthContext, id: string): Promise<BulkSendRow> {
    const row = /^bulk_[0-9a-f]{24}$/.test(id) ? await this.infra.reads.get<BulkSendRow>(BULK_SENDS, id) : null;
    if (!row || row.organization_id !== auth.organization_id || row.livemode !== auth.livemode) throw ApiError.notFound('bulk_send_not_found', 'No such bulk send.');
    return row;
  }

  /** Validates every row, then records the job (the worker sends it) or, with dry_run, reports only. */
  private async run(
    auth: AuthContext,
    info: RequestInfo,
    input: {
      template_id: string;
      rows: BulkRow[];
      errors: RowError[];
      dry_run: boolean;
      skip_invalid_rows: boolean;
      title?: string;
      message?: string;
      expires_in_days?: number;
      /** An upload: what it sent (its seed has no fingerprint of a streamed body), so another file under a key given back is another job. */
      upload?: string;
    },
  ): Promise<BulkSendResponse | BulkSendValidationResponse> {
    // The file or the shape of a row is wrong: nothing about the rows can be trusted yet.
    if (input.errors.length > 0 || input.rows.length === 0) throw refusal(input.errors.length ? input.errors : [{ row: null, column: 'rows', code: 'missing_parameter', message: 'There are no rows.' }]);
    const request = {
      organization_id: auth.organization_id,
      livemode: auth.livemode,
      template_id: input.template_id,
      rows: input.rows,
      ...(input.title !== undefined ? { title: input.title } : {}),
      ...(input.message !== undefined ? { message: input.message } : {}),
      ...(input.expires_in_days !== undefined ? { expires_in_days: input.expires_in_days } : {}),
      skip_invalid_rows: input.skip_invalid_rows,
      dry_run: input.dry_run,
    };
    try {
      if (input.dry_run) {
        const v = await this.bulk.validate(request);
        return { object: 'bulk_send_validation', template_id: v.template.id, template_version: v.template.version, row_count: v.row_count, valid_rows: v.valid_rows, errors: v.errors, warnings: v.warnings };
      }
      // The job's id derives from the Idempotency-Key: a retry names the job its first attempt started.
      const started = await this.bulk.start(request, commandContext(auth, info), creationPrefixedId(info.idempotency, 'bulk', input.upload ?? ''));
      if (started.position !== null && !(await this.infra.projections.waitFor(started.position))) await this.infra.projections.catchUp();
      return presentBulkSend(await this.job(auth, started.id));
    } catch (err) {
      if (err instanceof BulkInputError) throw refusal(err.errors);
      throw err;
    }
  }

  @Post()
  @HttpCode(200)
  async create(@Auth() auth: AuthContext, @ReqInfo() info: RequestInfo, @Body() dto: CreateBulkSendDto): Promise<BulkSendResponse | BulkSendValidationResponse> {
    const { rows, errors } = rowsFromJson(dto.rows);
    return this.run(auth, info, {
      template_id: dto.template_id,
      rows,
      errors,
      dry_run: dto.dry_run === true,
      skip_invalid_rows: dto.skip_invalid_rows === true,
      ...(dto.title !== undefined ? { title: dto.title } : {}),
      ...(dto.message !== undefined ? { message: dto.message } : {}),
      ...(dto.expires_in_days !== undefined ? { expires_in_days: dto.expires_in_days } : {}),
    });
  }

  /** The rows as an uploaded CSV (UTF-8 with or without BOM, or EUC-KR) or XLSX, in the `file` part. */
  @Post('upload')
  @HttpCode(200)
  async upload(
    @Auth() auth: AuthContext,
    @ReqInfo() info: RequestInfo,
    @Req() req: Request,
    @Query() query: UploadBulkSendQuery,
  ): Promise<BulkSendResponse | BulkSendValidationResponse> {
    const part = await readFilePart(req, { field: 'file', maxBytes: MAX_BULK_UPLOAD_BYTES, maxLabel: '10 MB' });
    if (part.bytes.length === 0) throw ApiError.missing('file', 'The file is empty: send a CSV or XLSX whose first row names the columns.');
    let table: { header: string[]; records: string[][] };
    try {
      // Read in the PDF pool: the API thread only checks the rows it gets back.
      table = await readUploadedTable(this.pdf, part.bytes, query.encoding, auth.organization_id);
    } catch (err) {
      if (err instanceof BulkInputError) throw refusal(err.errors);
      throw err;
    }
    const template = await this.templateOf(auth, query.template_id);
    const { rows, errors } = rowsFromTable(template, table.header, table.records);
    return this.run(auth, info, {
      template_id: query.template_id,
      rows,
      errors,
      upload: createHash('sha256').update(part.bytes).update(JSON.stringify(query)).digest('hex'),
      dry_run: query.dry_run === 'true',
      skip_invalid_rows: query.skip_invalid_rows === 'true',
      ...(query.title !== undefined ? { title: query.title } : {}),
      ...(query.message !== undefined ? { message: query.message } : {}),
    });
  }

  private templateOf(auth: AuthContext, templateId: string) {
    return this.bulk.template(auth.organization_id, auth.livemode, templateId);
  }

  @Get(':id')
  async get(@Auth() auth: AuthContext, @Param('id') id: string): Promise<BulkSendResponse> {
    return presentBulkSend(await this.job(auth, id));
  }

  /** Row outcomes in row order: the document each sent row made, or the error naming row and column. */
  @Get(':id/rows')
  async rows(@Auth() auth: AuthContext, @Param('id') id: string, @Query() query: ListBulkSendRowsQuery): Promise<BulkSendRowListResponse> {
    const job = await this.job(auth, id);
    const limit = query.limit === undefined ? 100 : Number(query.limit);
    if (!Number.isInteger(limit) || limit < 1 || limit > 1000) throw ApiError.invalid('limit', 'limit must be an integer from 1 to 1000.');
    const after = query.starting_after === undefined ? 0 : Number(query.starting_after);
    if (!Number.isInteger(after) || after < 0) throw ApiError.invalid('starting_after', 'starting_after must be a row number.');
    const found = await this.infra.reads.find<BulkSendRowOutcome>(BULK_SEND_ROWS, {
      where: { bulk_send_id: job.id, row: { $gt: after }, ...(query.state ? { state: query.state } : {}) },
      orderBy: [{ field: 'row', direction: 'asc' }],
      limit: limit + 1,
    });
    const page = found.slice(0, limit);
    return {
      object: 'list',
      data: page.map((r) => ({ object: 'bulk_send_row' as const, row: r.row, state: r.state, document_id: r.document_id, external_id: r.external_id, error: r.error, at: r.at })),
      has_more: found.length > limit,
    };
  }

  /** Stops the rows not yet sent (the ones sent stay sent: cancel their documents with documents/cancel). */
  @Post(':id/cancel')
  @HttpCode(200)
  async cancel(@Auth() auth: AuthContext, @ReqInfo() info: RequestInfo, @Param('id') id: string): Promise<BulkSendResponse> {
    await this.job(auth, id);
    // No wait here: the settle below may write after it, and the answer waits for the last write.
    const decision: Decision<BulkSendState, unknown> = await this.commandBus.execute(
      new DecideCommand(bulkSendDecider, bulkSendStreamId(id), { type: 'CancelBulkSend', now: this.clock.now().toISOString() }, commandContext(auth, info), false),
    );
    // The canceled rows' credits are free again at once (the worker settles it too, should this fail).
    const { state } = decision;
    const settled = state.livemode ? await this.bulk.settle(state.organization_id, state.id, settledRows(state), state.row_count, commandContext(auth, info)) : null;
    const position = settled ?? decision.position;
    // The answer reads the job's row: wait for whichever write came last, as DecideCommand waits for its own.
    if (position !== null) await this.infra.commands.visible(position);
    return presentBulkSend(await this.job(auth, id));
  }

  @Post(':id/documents/remind')
  @HttpCode(200)
  remindDocuments(@Auth() auth: AuthContext, @ReqInfo() info: RequestInfo, @Param('id') id: string): Promise<BulkSendDocumentsResultResponse> {
    return this.eachDocument(auth, info, id, 'remind');
  }

  @Post(':id/documents/cancel')
  @HttpCode(200)
  cancelDocuments(@Auth() auth: AuthContext, @ReqInfo() info: RequestInfo, @Param('id') id: string): Promise<BulkSendDocumentsResultResponse> {
    return this.eachDocument(auth, info, id, 'cancel');
  }

  /** One document at a time (a job is one request against the rate limit; its work is paced here too). */
  private async eachDocument(auth: AuthContext, info: RequestInfo, id: string, action: 'remind' | 'cancel'): Promise<BulkSendDocumentsResultResponse> {
    const job = await this.job(auth, id);
    const sent = await this.infra.reads.find<BulkSendRowOutcome>(BULK_SEND_ROWS, { where: { bulk_send_id: job.id, state: 'sent' }, orderBy: [{ field: 'row', direction: 'asc' }], limit: 10_000 });
    let succeeded = 0;
    let skipped = 0;
    for (const row of sent) {
      try {
        const decision = await this.docs.decide(
          auth,
          info,
          row.document_id as string,
          action === 'remind' ? { type: 'RemindParticipants', automatic: false, cooldown_seconds: REMIND_COOLDOWN_SECONDS } : { type: 'CancelDocument', reason: null },
        );
        if (decision.events.length > 0) succeeded++;
        else skipped++;
      } catch (err) {
        // A document past the action (completed, canceled, in its cooldown) is skipped, not a failure of the others.
        if (err instanceof DomainError || err instanceof ApiError) skipped++;
        else throw err;
      }
    }
    return { object: 'bulk_send_documents_result', action, succeeded, skipped };
  }
}
