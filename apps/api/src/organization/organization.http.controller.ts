import { Body, Controller, Get, Inject, Patch } from '@nestjs/common';
import { CommandBus } from '@nestjs/cqrs';
import { Clock, CLOCK, Infrastructure } from '@dojang/application';
import { brandOf, freeSignaturesPerMonth, OrganizationCommand, WithoutNow, organizationDecider, organizationStreamId, OrganizationState, quietHoursOf, timeZoneOf } from '@dojang/domain';
import { ORGANIZATIONS, OrganizationRow } from '@dojang/projections';
import { ApiError } from '../shared/api-error';
import { Auth, AuthContext, commandContext, ReqInfo, RequestInfo } from '../shared/auth.guard';
import { DecideCommand } from '../shared/decide.command';
import { UpdateOrganizationDto } from './organization-settings.dto';
import { INFRA } from '../shared/infrastructure.token';
import { MemberListResponse, OrganizationResponse } from '../openapi/response-schemas';

@Controller()
export class OrganizationHttpController {
  constructor(
    @Inject(INFRA) private readonly infra: Infrastructure,
    @Inject(CLOCK) private readonly clock: Clock,
    private readonly commandBus: CommandBus,
  ) {}

  private async org(auth: AuthContext): Promise<OrganizationRow> {
    const row = await this.infra.reads.get<OrganizationRow>(ORGANIZATIONS, auth.organization_id);
    if (!row) throw ApiError.notFound('organization_not_found', 'No such organization.');
    return row;
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
      brand: brandOf(org),
      time_zone: timeZoneOf(org),
      quiet_hours: quietHoursOf(org),
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
