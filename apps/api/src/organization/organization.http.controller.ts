import { Controller, Get, Inject } from '@nestjs/common';
import { Clock, CLOCK, Infrastructure } from '@dojang/application';
import { freeSignaturesPerMonth, OrganizationState } from '@dojang/domain';
import { ORGANIZATIONS, OrganizationRow } from '@dojang/projections';
import { ApiError } from '../shared/api-error';
import { Auth, AuthContext } from '../shared/auth.guard';
import { INFRA } from '../shared/infrastructure.token';
import { MemberListResponse, OrganizationResponse } from '../openapi/response-schemas';

@Controller()
export class OrganizationHttpController {
  constructor(
    @Inject(INFRA) private readonly infra: Infrastructure,
    @Inject(CLOCK) private readonly clock: Clock,
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
      usage: {
        period,
        free_signatures_per_month: free,
        free_signatures_remaining: Math.max(0, free - (org.free_used?.[period] ?? 0)),
        credit_balance: org.credit_balance,
      },
    };
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
