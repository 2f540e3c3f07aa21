import { Controller, Get, Inject, Param, Res } from '@nestjs/common';
import { Response } from 'express';
import { DocumentPdfService } from '@dojang/application';
import { contentDispositionFor } from '@dojang/pdf';
import { ApiError } from '../shared/api-error';
import { Auth, AuthContext } from '../shared/auth.guard';
import { DocumentAccess } from './document-access.service';
import { formDataOf, recordedAttachments } from './form-data';
import { FormDataResponse } from '../openapi/response-schemas';

/** The values a document's signatures recorded (its form data), for the sender and auditors. */
@Controller('documents/:id')
export class FormDataHttpController {
  constructor(
    private readonly docs: DocumentAccess,
    @Inject(DocumentPdfService) private readonly pdf: DocumentPdfService,
  ) {}

  @Get('form_data')
  async get(@Auth() auth: AuthContext, @Param('id') id: string): Promise<FormDataResponse> {
    return formDataOf(await this.docs.row(auth, id));
  }

  /** A file a signature recorded as an attachment field's value, as stored (its hash checked on read). */
  @Get('attachments/:attachmentId')
  async attachment(@Auth() auth: AuthContext, @Param('id') id: string, @Param('attachmentId') attachmentId: string, @Res() res: Response) {
    const row = await this.docs.row(auth, id);
    const file = recordedAttachments(row).find((a) => a.attachment_id === attachmentId);
    if (!file) throw ApiError.notFound('attachment_not_found', 'No attachment with this id was recorded by a signature on this document.');
    const bytes = await this.pdf.blob(file.sha256);
    res.setHeader('Content-Type', file.content_type);
    const ext = file.content_type === 'application/pdf' ? 'pdf' : file.content_type === 'image/png' ? 'png' : 'jpg';
    // The PDF download's header (ASCII fallback and RFC 5987 name), with the file's own extension.
    res.setHeader('Content-Disposition', contentDispositionFor(file.filename.replace(/\.(pdf|jpe?g|png)$/i, '')).replace(/\.pdf(?="|$)/g, `.${ext}`));
    res.setHeader('X-Content-Type-Options', 'nosniff');
    res.setHeader('Cache-Control', 'private, no-store');
    res.setHeader('Content-Length', String(bytes.length));
    res.end(bytes);
  }
}
