import { Controller, Get, Headers, Inject, Res } from '@nestjs/common';
import { Infrastructure } from '@dojang/application';
import { timingSafeEqual, createHash } from 'crypto';
import { Response } from 'express';
import { ApiError } from '../shared/api-error';
import { Public } from '../shared/auth.guard';
import { INFRA } from '../shared/infrastructure.token';

function sameSecret(given: string, expected: string): boolean {
  // Hash both sides so the comparison is constant-time whatever the lengths.
  const a = createHash('sha256').update(given).digest();
  const b = createHash('sha256').update(expected).digest();
  return timingSafeEqual(a, b);
}

/** Prometheus text exposition; behind `METRICS_TOKEN` when one is set. */
@Controller('metrics')
export class MetricsHttpController {
  constructor(@Inject(INFRA) private readonly infra: Infrastructure) {}

  @Public()
  @Get()
  async metrics(@Headers('authorization') authorization: string | undefined, @Res() res: Response): Promise<void> {
    const token = this.infra.config.metricsToken;
    if (token) {
      const given = /^Bearer (.+)$/.exec(authorization ?? '')?.[1] ?? '';
      if (!sameSecret(given, token)) {
        throw new ApiError(401, 'authentication_error', 'invalid_metrics_token', 'GET /metrics needs Authorization: Bearer <METRICS_TOKEN>.');
      }
    }
    res.setHeader('Content-Type', this.infra.metrics.contentType);
    res.send(await this.infra.metrics.expose());
  }
}
