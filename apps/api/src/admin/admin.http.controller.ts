import { Controller, Get, Inject, UseGuards } from '@nestjs/common';
import { ApiOperation } from '@nestjs/swagger';
import { Infrastructure, projectionStatus } from '@dojang/application';
import { Public } from '../shared/auth.guard';
import { INFRA } from '../shared/infrastructure.token';
import { AdminTokenGuard } from './admin-token.guard';
import { ProjectionStatusListResponse } from '../openapi/response-schemas';

/** Operator endpoints: behind ADMIN_TOKEN, never API keys (404 when ADMIN_TOKEN is unset). */
@Public()
@UseGuards(AdminTokenGuard)
@Controller('admin')
export class AdminHttpController {
  constructor(@Inject(INFRA) private readonly infra: Infrastructure) {}

  /** The same JSON as `cli projections status --json`. */
  @ApiOperation({
    summary: 'Projection status (operators)',
    description: 'Needs `Authorization: Bearer <ADMIN_TOKEN>`, not an API key; 404 when ADMIN_TOKEN is unset. Same JSON as `cli projections status --json`.',
  })
  @Get('projections')
  async projections(): Promise<ProjectionStatusListResponse> {
    return { projections: await projectionStatus(this.infra.events, this.infra.reads, this.infra.runner.projections) };
  }
}
