import { ApiPropertyOptional } from '@nestjs/swagger';
import { Controller, Get, Param, Query } from '@nestjs/common';
import { IsOptional, IsString } from 'class-validator';
import { parseLimit } from '../documents/documents.http.controller';
import { DocumentAccess } from '../documents/document-access.service';
import { ApiError } from '../shared/api-error';
import { Auth, AuthContext } from '../shared/auth.guard';
import { DocumentHistoryService } from './document-history.service';
import { DocumentHistoryResponse } from '../openapi/response-schemas';

export class DocumentHistoryQuery {
  @ApiPropertyOptional({ type: 'string', description: '1 to 100, default 20' }) @IsOptional() @IsString() limit?: string;
  @ApiPropertyOptional({ type: 'string', description: 'a revision: the page starts after it' }) @IsOptional() @IsString() starting_after?: string;
  @ApiPropertyOptional({ type: 'string', description: 'ISO 8601 instant: only the events up to it, and the document as it was then' })
  @IsOptional()
  @IsString()
  as_of?: string;
  @ApiPropertyOptional({ enum: ['deliveries'] }) @IsOptional() @IsString() include?: string;
}

@Controller('documents/:id')
export class DocumentHistoryHttpController {
  constructor(
    private readonly docs: DocumentAccess,
    private readonly history: DocumentHistoryService,
  ) {}

  /**
   * The stored events of the document's stream in order, masked like the audit trail, with their
   * hashes and the verification of the whole stored chain (not only of this page).
   */
  @Get('history')
  async list(@Auth() auth: AuthContext, @Param('id') id: string, @Query() q: DocumentHistoryQuery): Promise<DocumentHistoryResponse> {
    const limit = parseLimit(q.limit);
    let startingAfter: number | undefined;
    if (q.starting_after !== undefined) {
      if (!/^\d{1,9}$/.test(q.starting_after)) throw ApiError.invalid('starting_after', 'starting_after must be the revision (a non-negative integer) of an event in this history.');
      startingAfter = Number(q.starting_after);
    }
    if (q.include !== undefined && q.include !== 'deliveries') throw ApiError.invalid('include', 'include must be deliveries.');
    const asOf = this.history.parseAsOf(q.as_of);
    const row = await this.docs.row(auth, id);
    const page = await this.history.history.read(row.id, {
      limit,
      starting_after: startingAfter,
      as_of: asOf ?? null,
      include_deliveries: q.include === 'deliveries',
    });
    if (asOf !== undefined && !page.state_as_of) throw ApiError.documentNotFound();
    return {
      object: 'list' as const,
      document_id: row.id,
      data: page.entries,
      has_more: page.has_more,
      chain: page.chain,
      ...(asOf !== undefined && page.state_as_of
        ? { as_of: new Date(asOf).toISOString(), document: await this.history.presentState(auth, page.state_as_of.state, page.state_as_of.updated_at) }
        : {}),
      ...(page.deliveries ? { deliveries: { object: 'list' as const, data: page.deliveries.entries, chain: page.deliveries.chain } } : {}),
    };
  }
}
