import { Body, Controller, Get, HttpCode, Inject, Param, Post, Put, Query, Req, Res } from '@nestjs/common';
import { DocumentPdfService, isStoreUnavailable, PAGE_IMAGE_WIDTHS, type PageImageFormat } from '@dojang/application';
import { contentDispositionFor } from '@dojang/pdf';
import { Request, Response } from 'express';
import { Public, ReqInfo, RequestInfo } from '../shared/auth.guard';
import { DeclineDto, DelegateDto, SaveDraftDto, SealPreviewDto, SignDto, VerifyPinDto } from './signing.dto';
import { ApiError } from '../shared/api-error';
import { STORE_RETRY_AFTER_SECONDS } from '../shared/http-error.filter';
import { displayedPdf, SigningService } from './signing.service';
import { AttachmentResponse, DelegationResponse, PinIssuedResponse, PinVerificationResponse, SealPreviewResponse, SigningBodyResponse, SigningDeclineResponse, SigningDraftResponse, SigningSessionResponse } from '../openapi/response-schemas';

/** The JSON API behind the signing page. The link's token is the credential: no API key. */
@Public()
@Controller('signing/:token')
export class SigningHttpController {
  constructor(
    private readonly signing: SigningService,
    @Inject(DocumentPdfService) private readonly pdf: DocumentPdfService,
  ) {}

  @Get()
  async view(@Param('token') token: string, @ReqInfo() info: RequestInfo): Promise<SigningSessionResponse> {
    const session = await this.signing.open(await this.signing.session(token), info);
    return await this.signing.view(session, token);
  }

  /**
   * Acting through a link is opening it: a participant who skips GET (straight to pin, verify, sign
   * or decline) is still recorded as viewed, before the action, so document.viewed always precedes it.
   */
  private async acting(token: string, info: RequestInfo) {
    return this.signing.open(await this.signing.session(token), info);
  }

  @Post('pin')
  @HttpCode(200)
  async pin(@Param('token') token: string, @ReqInfo() info: RequestInfo): Promise<PinIssuedResponse> {
    return this.signing.sendPin(await this.acting(token, info), info);
  }

  @Post('verify')
  @HttpCode(200)
  async verify(@Param('token') token: string, @ReqInfo() info: RequestInfo, @Body() dto: VerifyPinDto): Promise<PinVerificationResponse> {
    return this.signing.verifyPin(await this.acting(token, info), info, dto.pin);
  }

  @Post('sign')
  @HttpCode(200)
  async sign(@Param('token') token: string, @ReqInfo() info: RequestInfo, @Body() dto: SignDto): Promise<SigningSessionResponse> {
    const signed = await this.signing.sign(await this.acting(token, info), info, dto);
    // The signature has landed: a read that fails now must not read as "not signed" (a 503 the
    // signer retries). The answer says it landed; the retry is answered with the signed state.
    return this.signing.view(signed, token).catch((err: unknown) => {
      if (!isStoreUnavailable(err)) throw err;
      throw new ApiError(
        503,
        'api_error',
        'service_unavailable',
        'The signature was recorded, but reading the signed document back failed. Open the signing link again (or repeat this request: it is answered with the signed state).',
        undefined,
        { 'Retry-After': String(STORE_RETRY_AFTER_SECONDS), 'Write-Landed': 'true' },
      );
    });
  }

  /**
   * Saves what the signer filled so far (merged; null clears a field), checked as signing checks
   * it; the session's `draft` gives it back after a reload or on another device.
   */
  @Put('draft')
  @HttpCode(200)
  async saveDraft(@Param('token') token: string, @ReqInfo() info: RequestInfo, @Body() dto: SaveDraftDto): Promise<SigningDraftResponse> {
    return this.signing.saveDraft(await this.acting(token, info), dto.values);
  }

  /** A red seal made from the signer's name (or `text`), rendered in the PDF pool. */
  @Post('seal_preview')
  @HttpCode(200)
  async sealPreview(@Param('token') token: string, @ReqInfo() info: RequestInfo, @Body() dto: SealPreviewDto): Promise<SealPreviewResponse> {
    return this.signing.sealPreview(await this.acting(token, info), dto.shape, dto.text);
  }

  /** The contract's text as sanitized HTML, for the page's reading view. */
  @Get('body')
  async body(@Param('token') token: string): Promise<SigningBodyResponse> {
    return this.signing.body(await this.signing.session(token));
  }

  /** One of the session's organization_seals, as an image (behind this link). */
  @Get('seals/:id/image')
  async sealImage(@Param('token') token: string, @Param('id') id: string, @Res() res: Response) {
    const { bytes, mime } = await this.signing.organizationSealImage(await this.signing.session(token), id);
    res.setHeader('Content-Type', mime);
    res.setHeader('X-Content-Type-Options', 'nosniff');
    res.setHeader('Cache-Control', 'private, max-age=3600');
    res.setHeader('Content-Length', String(bytes.length));
    res.end(bytes);
  }

  @Post('decline')
  @HttpCode(200)
  async decline(@Param('token') token: string, @ReqInfo() info: RequestInfo, @Body() dto: DeclineDto): Promise<SigningDeclineResponse> {
    const session = await this.acting(token, info);
    await this.signing.decline(session, info, dto.reason);
    return { object: 'signing_session' as const, document: { id: session.state.id, status: 'declined' as const }, participant: { id: session.participant.id, status: 'declined' as const } };
  }

  /** A file for an attachment field (multipart: file, field_id); the signature names it by attachment_id. */
  @Post('attachments')
  @HttpCode(201)
  async attachment(@Param('token') token: string, @ReqInfo() info: RequestInfo, @Req() req: Request): Promise<AttachmentResponse> {
    return this.signing.uploadAttachment(await this.acting(token, info), info, req);
  }

  /** Hands the signing to another person when the sender allowed it; this link stops working. */
  @Post('delegate')
  @HttpCode(200)
  async delegate(@Param('token') token: string, @ReqInfo() info: RequestInfo, @Body() dto: DelegateDto): Promise<DelegationResponse> {
    return this.signing.delegate(await this.acting(token, info), info, dto);
  }

  /** The signed PDF for a participant, after the same PIN check as signing (completion SMS link). */
  @Get('completed.pdf')
  async completedPdf(@Param('token') token: string, @Res() res: Response) {
    const session = await this.signing.session(token);
    const bytes = await this.signing.completedPdf(session);
    res.setHeader('Content-Type', 'application/pdf');
    res.setHeader('Content-Disposition', contentDispositionFor(session.state.title));
    res.setHeader('Cache-Control', 'private, no-store');
    res.setHeader('Content-Length', String(bytes.length));
    res.end(bytes);
  }

  @Get('file')
  async file(@Param('token') token: string, @Res() res: Response) {
    const session = await this.signing.session(token);
    const { state } = session;
    // The signed PDF is served behind the same check as …/completed.pdf (the original, before
    // completion, is what the participant reads before proving who they are).
    const bytes = state.status === 'completed' && state.final_pdf ? await this.signing.completedPdf(session) : await this.pdf.original(state);
    res.setHeader('Content-Type', 'application/pdf');
    res.setHeader('Content-Disposition', contentDispositionFor(state.title).replace(/^attachment/, 'inline'));
    res.setHeader('Cache-Control', 'private, no-store');
    res.end(bytes);
  }

  /**
   * A page of the document as an image, for the signing page (Android Chrome shows no PDF inline).
   * The link is checked first (404/410 as for every signing call), then the page and width, all
   * before any rendering; the image is rendered once per PDF, page and width, in the PDF pool.
   * Lossless WebP to a browser whose Accept names image/webp, PNG to every other client (the URL
   * keeps its .png name: `Vary: Accept` tells caches the body depends on the header).
   */
  @Get('pages/:file')
  async page(@Param('token') token: string, @Param('file') file: string, @Query('w') w: string | undefined, @Query('v') v: string | undefined, @Req() req: Request, @Res() res: Response) {
    const session = await this.signing.session(token);
    const { state } = session;
    // The signed PDF's pages are the signed PDF: the same window and PIN check as …/completed.pdf.
    if (state.status === 'completed' && state.final_pdf) this.signing.completedAccess(session);
    const m = /^([1-9][0-9]{0,3})\.png$/.exec(file);
    const page = m ? Number(m[1]) : 0;
    const pdf = displayedPdf(state);
    if (!pdf || !page || (state.page_count !== null && page > state.page_count)) {
      throw ApiError.notFound('page_not_found', `The document has no page ${file.replace(/\.png$/, '').slice(0, 20)}; its pages are 1..${state.page_count ?? '?'}.`);
    }
    const width = w === undefined ? PAGE_IMAGE_WIDTHS[0] : Number(w);
    if (typeof w !== 'undefined' && (typeof w !== 'string' || !PAGE_IMAGE_WIDTHS.includes(width))) {
      throw ApiError.invalid('w', `w must be one of ${PAGE_IMAGE_WIDTHS.join(', ')} (pixels).`);
    }
    // PNG first among the offers: a client that names neither (*/*, image/*, no Accept) gets PNG;
    // WebP only to one that names it (every current browser does for images).
    const format: PageImageFormat = req.accepts(['image/png', 'image/webp']) === 'image/webp' ? 'webp' : 'png';
    const image = await this.pdf.pageImage(pdf, page, width, format);
    if (!image) throw ApiError.notFound('page_not_found', `The document has no page ${page}.`);
    // Page 1 asked for: the next pages, at this screen's width, are rendered while it travels.
    if (page === 1 && state.page_count) this.pdf.warmFollowingPages(pdf, state.page_count, width, format, (err) => this.signing.warmFailed(err, state.id));
    const version = pdf.slice(0, 16);
    res.setHeader('Content-Type', `image/${format}`);
    res.setHeader('Vary', 'Accept');
    res.setHeader('X-Content-Type-Options', 'nosniff');
    // Versioned URLs never change: cached for good, privately (the link is the credential).
    res.setHeader('Cache-Control', v === version ? 'private, max-age=31536000, immutable' : 'private, no-cache');
    res.setHeader('ETag', `"${version}-${page}-${width}${format === 'png' ? '' : `-${format}`}"`);
    res.end(image);
  }
}
