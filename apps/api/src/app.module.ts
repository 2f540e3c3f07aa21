import { DynamicModule, Module, Provider } from '@nestjs/common';
import { APP_FILTER, APP_GUARD } from '@nestjs/core';
import { CqrsModule } from '@nestjs/cqrs';
import { Clock, CLOCK, Infrastructure } from '@dojang/application';
import { DocumentAccess } from './documents/document-access.service';
import { DocumentSources } from './documents/document-sources.service';
import { DocumentsHttpController } from './documents/documents.http.controller';
import { ParticipantsHttpController } from './documents/participants.http.controller';
import { HealthHttpController } from './health/health.http.controller';
import { OrganizationHttpController } from './organization/organization.http.controller';
import { ApiKeyGuard } from './shared/auth.guard';
import { DecideCommandHandler } from './shared/decide.command';
import { HttpErrorFilter } from './shared/http-error.filter';
import { INFRA } from './shared/infrastructure.token';

/** Slices register here: controllers are thin, everything else sits behind the INFRA ports. */
@Module({})
export class AppModule {
  static register(infra: Infrastructure, clock: Clock, extra: { controllers?: any[]; providers?: Provider[] } = {}): DynamicModule {
    return {
      module: AppModule,
      imports: [CqrsModule.forRoot()],
      controllers: [
        HealthHttpController,
        OrganizationHttpController,
        DocumentsHttpController,
        ParticipantsHttpController,
        ...(extra.controllers ?? []),
      ],
      providers: [
        { provide: INFRA, useValue: infra },
        { provide: CLOCK, useValue: clock },
        { provide: APP_GUARD, useClass: ApiKeyGuard },
        { provide: APP_FILTER, useClass: HttpErrorFilter },
        DecideCommandHandler,
        DocumentAccess,
        DocumentSources,
        ...(extra.providers ?? []),
      ],
    };
  }
}
