import { CanActivate, ExecutionContext, Inject, Injectable } from '@nestjs/common';
import { Infrastructure } from '@dojang/application';
import { createHash, timingSafeEqual } from 'crypto';
import { Request } from 'express';
import { ApiError } from '../shared/api-error';
import { INFRA } from '../shared/infrastructure.token';

function sameSecret(given: string, expected: string): boolean {
  // Hash both sides so the comparison is constant-time whatever the lengths.
  return timingSafeEqual(createHash('sha256').update(given).digest(), createHash('sha256').update(expected).digest());
}

/**
 * Operator routes answer only to `Authorization: Bearer <ADMIN_TOKEN>`, never to an API key (an
 * organization's key must not see the service's internals). With no ADMIN_TOKEN configured they
 * do not exist: 404 like any unknown route, so a default deployment exposes nothing.
 */
@Injectable()
export class AdminTokenGuard implements CanActivate {
  constructor(@Inject(INFRA) private readonly infra: Infrastructure) {}

  canActivate(context: ExecutionContext): boolean {
    const token = this.infra.config.adminToken;
    if (!token) throw new ApiError(404, 'invalid_request_error', 'resource_not_found', 'No such endpoint.');
    const header = context.switchToHttp().getRequest<Request>().headers.authorization ?? '';
    const given = /^Bearer (.+)$/.exec(header)?.[1] ?? '';
    if (!sameSecret(given, token)) throw new ApiError(401, 'authentication_error', 'invalid_admin_token', 'Admin routes need Authorization: Bearer <ADMIN_TOKEN>.');
    return true;
  }
}
