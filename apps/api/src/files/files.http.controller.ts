import { Controller, Get, HttpCode, Inject, Param, Post, Query, Req, Res } from '@nestjs/common';
import { CommandBus } from '@nestjs/cqrs';
import { Clock, CLOCK, DocumentPdfService, Infrastructure } from '@dojang/application';
import { FileCommand, FileState, MAX_FILE_BYTES, WithoutNow, fileDecider, fileStreamId } from '@dojang/domain';
import { FILES, FileRow } from '@dojang/projections';
import { contentDispositionFor, inspectPdfIsolated } from '@dojang/pdf';
import { Request, Response } from 'express';
import { ApiError } from '../shared/api-error';
import { createOnce, creationPrefixedId } from '../idempotency/idempotent-creation';
import { Auth, AuthContext, Public, ReqInfo, RequestInfo, commandContext } from '../shared/auth.guard';
import { DecideCommand } from '../shared/decide.command';
import { INFRA } from '../shared/infrastructure.token';
import { fileUrlValid, issueFileUrl } from './file-urls';
import { readFilePart } from './multipart-file';
import { FileResponse } from '../openapi/response-schemas';

const FILE_ID = /^file_[A-Za-z0-9]{8,64}$/;

/**
 * Uploaded PDFs. POST /files takes the `file` part of a multipart body, counts its bytes while it
 * streams (413 past 20 MB), decides "PDF or not" from the bytes alone (415 otherwise, the claimed
 * Content-Type is ignored; read in a worker thread with a time limit), stores the bytes content-addressed and records a FileUploaded event.
 * The returned url is signed and expires after an hour; it is what POST /documents accepts as file_url.
 */
@Controller('files')
export class FilesHttpController {
  constructor(
    @Inject(INFRA) private readonly infra: Infrastructure,
    @Inject(CLOCK) private readonly clock: Clock,
    private readonly commandBus: CommandBus,
    @Inject(DocumentPdfService) private readonly pdf: DocumentPdfService,
  ) {}

  @Post()
  @HttpCode(201)
  async upload(@Auth() auth: AuthContext, @ReqInfo() info: RequestInfo, @Req() req: Request): Promise<FileResponse> {
    const part = await readFilePart(req, { field: 'file', maxBytes: MAX_FILE_BYTES, maxLabel: '20 MB' });
    if (part.bytes.length === 0) throw new ApiError(415, 'invalid_request_error', 'unsupported_file_type', 'The file is empty; upload a PDF.', 'file');
    // In a worker thread with a time limit: a file built to make the parser spin costs its
    // uploader a 415, not everybody a stalled server.
    const inspection = await inspectPdfIsolated(part.bytes, { timeoutMs: this.infra.config.pdfReadTimeoutMs });
    if (!inspection.ok && inspection.reason === 'too_complex') {
      throw new ApiError(413, 'invalid_request_error', 'file_too_complex', inspection.message, 'file');
    }
    if (!inspection.ok) {
      const message =
        inspection.reason === 'encrypted'
          ? inspection.message
          : `Only PDF files are accepted, and this file is not one we can read (judged by its bytes, not by its Content-Type): ${inspection.message}`;
      throw new ApiError(415, 'invalid_request_error', 'unsupported_file_type', message, 'file');
    }
    // Scripts, launch actions, open/page actions, embedded files and links other than http, https
    // and mailto are removed before anything is
    // stored, so neither a signer nor the final PDF ever carries them; a clean file stays byte for byte.
    const stored = inspection.sanitized ? Buffer.from(inspection.sanitized) : part.bytes;
    const blob = await this.infra.blobs.put(stored);
    // A multipart body is not fingerprinted when the route starts: the id also names the bytes, so a
    // key given back and reused for another file makes another file.
    const fileId = creationPrefixedId(info.idempotency, 'file', `${blob.sha256}\u0000${part.filename ?? ''}`);
    const command: WithoutNow<FileCommand> = {
      type: 'UploadFile',
      file_id: fileId,
      organization_id: auth.organization_id,
      livemode: auth.livemode,
      sha256: blob.sha256,
      byte_size: blob.byte_size,
      page_count: inspection.page_count,
      filename: part.filename,
    };
    const mine = (state: FileState) => state.exists && state.organization_id === auth.organization_id && state.livemode === auth.livemode;
    await createOnce(this.infra, info.idempotency, { decider: fileDecider, id: fileStreamId(fileId), existsCode: 'file_exists', mine }, () =>
      this.commandBus
        .execute(new DecideCommand(fileDecider, fileStreamId(fileId), () => ({ ...command, now: this.clock.now().toISOString() }), commandContext(auth, info)))
        .then(() => true),
    );
    return this.present(await this.ownRow(auth, fileId));
  }

  /** The file object again, with a freshly issued URL. */
  @Get(':id')
  async retrieve(@Auth() auth: AuthContext, @Param('id') id: string): Promise<FileResponse> {
    return this.present(await this.ownRow(auth, id));
  }

  /**
   * The bytes behind an issued URL: no API key, the signature is the credential. A wrong, tampered
   * or expired signature looks exactly like a file that does not exist.
   */
  @Public()
  @Get(':id/content')
  async content(@Param('id') id: string, @Query('expires') expires: string | undefined, @Query('signature') signature: string | undefined, @Res() res: Response) {
    const notFound = () => ApiError.notFound('file_not_found', 'No such file, or the file URL has expired.');
    if (!FILE_ID.test(id) || typeof expires !== 'string' || !/^\d{1,12}$/.test(expires) || typeof signature !== 'string') throw notFound();
    if (!fileUrlValid(this.infra, id, Number(expires), signature, this.clock.now())) throw notFound();
    const row = await this.infra.reads.get<FileRow>(FILES, id);
    if (!row) throw notFound();
    // Served only as stored: read past the cache and checked against its hash.
    const bytes = await this.pdf.blob(row.sha256);
    res.setHeader('Content-Type', 'application/pdf');
    res.setHeader('Content-Disposition', contentDispositionFor(row.filename ?? row.id).replace(/^attachment/, 'inline'));
    res.setHeader('Content-Length', String(bytes.length));
    res.setHeader('Cache-Control', 'private, no-store');
    res.setHeader('X-Content-Type-Options', 'nosniff');
    res.end(bytes);
  }

  private async ownRow(auth: AuthContext, id: string): Promise<FileRow> {
    const row = FILE_ID.test(id) ? await this.infra.reads.get<FileRow>(FILES, id) : null;
    if (!row || row.organization_id !== auth.organization_id || row.livemode !== auth.livemode) {
      throw ApiError.notFound('file_not_found', 'No such file.');
    }
    return row;
  }

  private present(row: FileRow): FileResponse {
    const { url, expires_at } = issueFileUrl(this.infra, row.id, this.clock.now());
    return {
      id: row.id,
      object: 'file' as const,
      url,
      byte_size: row.byte_size,
      expires_at,
      page_count: row.page_count,
      filename: row.filename,
      sha256: row.sha256,
      livemode: row.livemode,
      created_at: row.created_at,
    };
  }
}
