import { Body, Controller, Delete, Get, Inject, Patch, Put, Req } from '@nestjs/common';
import { CommandBus } from '@nestjs/cqrs';
import { Clock, CLOCK, DocumentPdfService, Infrastructure, logoUrl } from '@dojang/application';
import { Request } from 'express';
import { brandOf, dateFormatOf, freeSignaturesPerMonth, logoOf, MAX_LOGO_BYTES, MAX_LOGO_SIDE, OrganizationCommand, OrganizationLogo, WithoutNow, organizationDecider, organizationStreamId, OrganizationState, quietHoursOf, timeZoneOf } from '@dojang/domain';
import { OrganizationRow } from '@dojang/projections';
import { ApiError } from '../shared/api-error';
import { Auth, AuthContext, commandContext, ReqInfo, RequestInfo } from '../shared/auth.guard';
import { DecideCommand } from '../shared/decide.command';
import { UpdateOrganizationDto } from './organization-settings.dto';
import { INFRA } from '../shared/infrastructure.token';
import { organizationRowOf } from './organization-row';
import { readFilePart } from '../files/multipart-file';
import { MemberListResponse, OrganizationResponse } from '../openapi/response-schemas';

@Controller()
export class OrganizationHttpController {
  constructor(
    @Inject(INFRA) private readonly infra: Infrastructure,
    @Inject(CLOCK) private readonly clock: Clock,
    private readonly commandBus: CommandBus,
    @Inject(DocumentPdfService) private readonly pdf: DocumentPdfService,
  ) {}

  private get origin(): string {
    return this.infra.config.publicOrigin ?? `http://localhost:${this.infra.config.port}`;
  }

  private org(auth: AuthContext): Promise<OrganizationRow> {
    return organizationRowOf(this.infra, auth);
  }

  @Get('organization')
  async get(@Auth() auth: AuthContext): Promise<OrganizationResponse> {
    const org = await this.org(auth);
    // The usage period is the service clock's month, the same clock that records usage.
    const period = this.clock.now().toISOString().slice(0, 7);
    const free = freeSignaturesPerMonth(org as unknown as OrganizationState);
    return {
      id: org.id,
      object: 'organization' as const,
      name: org.name,
      workspace_kind: org.workspace_kind,
      plan: org.plan,
      livemode: auth.livemode,
      created_at: org.created_at,
      settings: { default_expiry_days: org.default_expiry_days, reminder_interval_days: org.reminder_interval_days, embed_origins: org.embed_origins ?? [] },
      brand: { ...brandOf(org), logo: this.presentLogo(org.id, logoOf(org)) },
      time_zone: timeZoneOf(org),
      quiet_hours: quietHoursOf(org),
      date_format: dateFormatOf(org as unknown as OrganizationState),
      kakao: org.kakao ? { pf_id: org.kakao.pf_id, templates: { ...org.kakao.templates } } : null,
      usage: {
        period,
        free_signatures_per_month: free,
        free_signatures_remaining: Math.max(0, free - (org.free_used?.[period] ?? 0)),
        credit_balance: org.credit_balance,
      },
    };
  }

  /**
   * The organization's brand, time zone (with quiet hours) and KakaoTalk channel: each part given
   * is one command on the organization's stream, decided (and validated) there.
   */
  @Patch('organization')
  async update(@Auth() auth: AuthContext, @ReqInfo() info: RequestInfo, @Body() dto: UpdateOrganizationDto): Promise<OrganizationResponse> {
    await this.org(auth);
    const commands: Array<WithoutNow<OrganizationCommand>> = [];
    if (dto.brand !== undefined) commands.push({ type: 'ChangeBrand', ...dto.brand });
    if (dto.time_zone !== undefined || dto.quiet_hours !== undefined) {
      commands.push({ type: 'ChangeTimeZone', ...(dto.time_zone !== undefined ? { time_zone: dto.time_zone } : {}), ...(dto.quiet_hours !== undefined ? { quiet_hours: dto.quiet_hours } : {}) });
    }
    if (dto.date_format !== undefined) commands.push({ type: 'ChangeDateFormat', date_format: dto.date_format });
    if (dto.kakao !== undefined) commands.push({ type: 'ConfigureKakao', kakao: dto.kakao });
    // Validated all before any is recorded: a bad kakao part must not leave the brand changed.
    const state = (await this.infra.commands.load(organizationDecider, organizationStreamId(auth.organization_id))).state;
    let next = state;
    for (const c of commands) {
      const events = organizationDecider.decide({ ...c, now: this.clock.now().toISOString() } as OrganizationCommand, next);
      next = events.reduce(organizationDecider.evolve, next);
    }
    for (const c of commands) {
      await this.commandBus.execute(
        new DecideCommand(organizationDecider, organizationStreamId(auth.organization_id), () => ({ ...c, now: this.clock.now().toISOString() }) as OrganizationCommand, commandContext(auth, info)),
      );
    }
    return this.get(auth);
  }

  private presentLogo(organizationId: string, logo: OrganizationLogo | null) {
    return logo ? { url: logoUrl(this.origin, organizationId, logo), content_type: logo.content_type, width: logo.width, height: logo.height, byte_size: logo.byte_size, sha256: logo.sha256 } : null;
  }

  /**
   * The logo, as multipart/form-data in the part `file`: counted while it arrives (413 past
   * 512 KB), then judged in the PDF pool by its bytes (415 when neither PNG nor JPEG, SVG
   * included; 400 invalid_image when it does not decode or is over 2048 pixels a side). The pool's
   * re-encoded PNG (or the decoded JPEG) is what is stored and served.
   */
  @Put('organization/logo')
  async putLogo(@Auth() auth: AuthContext, @ReqInfo() info: RequestInfo, @Req() req: Request): Promise<OrganizationResponse> {
    await this.org(auth);
    const part = await readFilePart(req, { field: 'file', maxBytes: MAX_LOGO_BYTES, maxLabel: '512 KB', what: 'a PNG or JPEG logo' });
    if (part.bytes.length === 0) throw new ApiError(415, 'invalid_request_error', 'unsupported_file_type', 'The file is empty; upload a PNG or JPEG logo.', 'file');
    const check = await this.pdf.checkLogo(part.bytes, MAX_LOGO_SIDE);
    if (!check.ok) {
      throw check.reason === 'unsupported_type'
        ? new ApiError(415, 'invalid_request_error', 'unsupported_file_type', check.message, 'file')
        : new ApiError(400, 'invalid_request_error', 'invalid_image', check.message, 'file');
    }
    const ref = await this.infra.blobs.put(Buffer.from(check.bytes));
    const logo: OrganizationLogo = { sha256: ref.sha256, content_type: check.type === 'jpeg' ? 'image/jpeg' : 'image/png', byte_size: ref.byte_size, width: check.width, height: check.height };
    await this.changeLogo(auth, info, logo);
    return this.get(auth);
  }

  /** Removes the logo (no logo: nothing changes). Its URL stops serving it. */
  @Delete('organization/logo')
  async deleteLogo(@Auth() auth: AuthContext, @ReqInfo() info: RequestInfo): Promise<OrganizationResponse> {
    await this.org(auth);
    await this.changeLogo(auth, info, null);
    return this.get(auth);
  }

  private async changeLogo(auth: AuthContext, info: RequestInfo, logo: OrganizationLogo | null): Promise<void> {
    await this.commandBus.execute(
      new DecideCommand(organizationDecider, organizationStreamId(auth.organization_id), () => ({ type: 'ChangeLogo', logo, now: this.clock.now().toISOString() }) as OrganizationCommand, commandContext(auth, info)),
    );
  }

  @Get('members')
  async members(@Auth() auth: AuthContext): Promise<MemberListResponse> {
    const org = await this.org(auth);
    return {
      object: 'list' as const,
      data: org.members.map((m) => ({ object: 'member' as const, user_id: m.user_id, name: m.name, email: m.email, role: m.role })),
      has_more: false,
    };
  }
}
