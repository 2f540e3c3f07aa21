import { Controller, Get, Inject, UseGuards } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import { Infrastructure, projectionStatus } from '@dojang/application';
import { Public } from '../shared/auth.guard';
import { INFRA } from '../shared/infrastructure.token';
import { AdminTokenGuard } from './admin-token.guard';

/** Operator endpoints: behind ADMIN_TOKEN, not API keys; not part of the integrators' API. */
@ApiExcludeController()
@Public()
@UseGuards(AdminTokenGuard)
@Controller('admin')
export class AdminHttpController {
  constructor(@Inject(INFRA) private readonly infra: Infrastructure) {}

  /** The same JSON as `cli projections status --json`. */
  @Get('projections')
  async projections() {
    return { projections: await projectionStatus(this.infra.events, this.infra.reads, this.infra.runner.projections) };
  }
}
