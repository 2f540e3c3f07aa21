import { Body, Controller, Get, HttpCode, Param, Post, Put, Query, Res } from '@nestjs/common';
import { PAGE_IMAGE_WIDTHS } from '@dojang/application';
import { ApiProperty } from '@nestjs/swagger';
import { ArrayMaxSize, IsArray, IsDefined } from 'class-validator';
import { Response } from 'express';
import { ApiError } from '../shared/api-error';
import { Public, ReqInfo, RequestInfo } from '../shared/auth.guard';
import { EditorEventResponse, EditorSessionResponse, EditorTextLinesResponse } from '../openapi/response-schemas';
import { EditorService } from './editor.service';

/**
 * The body of the editor's save: the fields as PUT /documents/{id}/fields (kind document) or as
 * PATCH /templates/{id} (kind template) takes them. Only its outline is checked here; EditorService
 * validates it as the API route's own DTO, so every refusal is the API's.
 */
export class EditorFieldsDto {
  @ApiProperty({
    type: 'array',
    items: { type: 'object' },
    maxItems: 500,
    description: 'Every field, replacing the current ones: FieldDto items for a document (participant_id), TemplateFieldDto items for a template (role).',
  })
  @IsDefined() @IsArray() @ArrayMaxSize(500)
  fields: object[];
}

/**
 * The editor page's API (issue 34): the session's secret, which only the page that redeemed the
 * one-time URL holds, is the credential. Each call acts as the API key that opened the session, on
 * that one document or template.
 */
@Public()
@Controller('editor/:session')
export class EditorHttpController {
  constructor(private readonly editor: EditorService) {}

  @Get()
  async view(@Param('session') session: string): Promise<EditorSessionResponse> {
    const { row, auth } = await this.editor.open(session);
    return this.editor.view(row, auth);
  }

  /** A page of one part as a PNG, `w` pixels wide, rendered once in the PDF pool (as the signing page's). */
  @Get('parts/:part/pages/:file')
  async page(
    @Param('session') session: string,
    @Param('part') part: string,
    @Param('file') file: string,
    @Query('w') w: string | undefined,
    @Query('v') v: string | undefined,
    @Res() res: Response,
  ) {
    const { row, auth } = await this.editor.open(session);
    const partIndex = /^[0-9]$/.test(part) ? Number(part) : -1;
    const m = /^([1-9][0-9]{0,3})\.png$/.exec(file);
    if (partIndex < 0 || !m) throw ApiError.notFound('page_not_found', 'No such page: pages are parts/{part}/pages/{n}.png.');
    const width = w === undefined ? PAGE_IMAGE_WIDTHS[0] : Number(w);
    if (w !== undefined && (typeof w !== 'string' || !PAGE_IMAGE_WIDTHS.includes(width))) throw ApiError.invalid('w', `w must be one of ${PAGE_IMAGE_WIDTHS.join(', ')} (pixels).`);
    const { png, version } = await this.editor.pageImage(row, auth, partIndex, Number(m[1]), width);
    res.setHeader('Content-Type', 'image/png');
    res.setHeader('X-Content-Type-Options', 'nosniff');
    res.setHeader('Cache-Control', v === version ? 'private, max-age=31536000, immutable' : 'private, no-cache');
    res.end(png);
  }

  /** The baselines of the text lines of a part's pages, where the editor snaps fields (issue 34). */
  @Get('parts/:part/lines')
  async lines(@Param('session') session: string, @Param('part') part: string): Promise<EditorTextLinesResponse> {
    const { row, auth } = await this.editor.open(session);
    const partIndex = /^[0-9]$/.test(part) ? Number(part) : -1;
    if (partIndex < 0) throw ApiError.notFound('page_not_found', 'No such part: lines are parts/{part}/lines.');
    return this.editor.textLines(row, auth, partIndex);
  }

  @Put('fields')
  async save(@Param('session') session: string, @ReqInfo() info: RequestInfo, @Body() dto: EditorFieldsDto): Promise<EditorEventResponse> {
    const { row, auth } = await this.editor.open(session);
    return this.editor.save(row, auth, info, dto);
  }

  @Post('send')
  @HttpCode(200)
  async send(@Param('session') session: string, @ReqInfo() info: RequestInfo): Promise<EditorEventResponse> {
    const { row, auth } = await this.editor.open(session);
    return this.editor.send(row, auth, info);
  }

  @Post('cancel')
  @HttpCode(200)
  async cancel(@Param('session') session: string): Promise<EditorEventResponse> {
    const { row } = await this.editor.open(session);
    return this.editor.cancel(row);
  }
}
