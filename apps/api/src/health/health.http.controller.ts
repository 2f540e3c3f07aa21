import { Controller, Get, Inject } from '@nestjs/common';
import { Infrastructure } from '@dojang/application';
import { Public } from '../shared/auth.guard';
import { INFRA } from '../shared/infrastructure.token';

@Controller('health')
export class HealthHttpController {
  constructor(@Inject(INFRA) private readonly infra: Infrastructure) {}

  @Public()
  @Get()
  async health() {
    const head = await this.infra.events.headPosition();
    return {
      status: 'ok',
      event_store: this.infra.config.eventStoreUrl ? 'eventstoredb' : 'sqlite',
      read_store: this.infra.config.mongoUrl ? 'mongodb' : 'sqlite',
      log_position: head,
      projections_position: this.infra.runner.position,
    };
  }
}
