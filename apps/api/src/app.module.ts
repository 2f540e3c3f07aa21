import { DynamicModule, Inject, Module, OnModuleDestroy, Provider } from '@nestjs/common';
import { APP_FILTER, APP_GUARD } from '@nestjs/core';
import { CqrsModule } from '@nestjs/cqrs';
import { BulkSendService, Clock, CLOCK, DocumentPdfService, DocumentCertifier, Infrastructure, Notifier, readStoreCertificationLedger, TemplateSender, withOrganizationKeys } from '@dojang/application';
import { BulkSendsHttpController } from './bulk-sends/bulk-sends.http.controller';
import { DocumentLifecycleHttpController } from './documents/document-lifecycle.http.controller';
import { EventsHttpController } from './events/events.http.controller';
import { ExtensionsHttpController } from './extensions/extensions.http.controller';
import { FilesHttpController } from './files/files.http.controller';
import { OutboxHttpController } from './outbox/outbox.http.controller';
import { SigningHttpController } from './signing/signing.http.controller';
import { SigningPageHttpController } from './signing/signing-page.http.controller';
import { PublicVerifyHttpController } from './verification/public-verify.http.controller';
import { VerifyPageHttpController } from './verification/verify-page.http.controller';
import { SigningService } from './signing/signing.service';
import { DocumentAccess } from './documents/document-access.service';
import { DocumentSources } from './documents/document-sources.service';
import { DocumentsHttpController } from './documents/documents.http.controller';
import { ParticipantsHttpController } from './documents/participants.http.controller';
import { FormDataHttpController } from './documents/form-data.http.controller';
import { HealthHttpController } from './health/health.http.controller';
import { MetricsHttpController } from './observability/metrics.http.controller';
import { OrganizationHttpController } from './organization/organization.http.controller';
import { BrandLogoHttpController } from './organization/brand-logo.http.controller';
import { OrganizationCertificateHttpController } from './organization/organization-certificate.http.controller';
import { ApiKeyGuard } from './shared/auth.guard';
import { DecideCommandHandler } from './shared/decide.command';
import { HttpErrorFilter } from './shared/http-error.filter';
import { INFRA, NOTIFIER, OWNED_NOTIFIER } from './shared/infrastructure.token';
import { WebhookEndpointsHttpController } from './webhooks/webhook-endpoints.http.controller';
import { TemplatesHttpController } from './templates/templates.http.controller';
import { SealsHttpController } from './seals/seals.http.controller';
import { SignatureRequestsHttpController } from './signature-requests/signature-requests.http.controller';
import { EvidenceHttpController } from './evidence/evidence.http.controller';
import { OpenApiDocumentHolder, OpenApiHttpController } from './openapi/openapi.http.controller';
import { DocumentHistoryHttpController } from './history/document-history.http.controller';
import { DocumentHistoryService } from './history/document-history.service';
import { AdminHttpController } from './admin/admin.http.controller';
import { EditSessionsHttpController } from './editor/edit-sessions.http.controller';
import { EditorHttpController } from './editor/editor.http.controller';
import { EditorPageHttpController } from './editor/editor-page.http.controller';
import { EditorService } from './editor/editor.service';

/** Slices register here: controllers are thin, everything else sits behind the INFRA ports. */
@Module({})
export class AppModule implements OnModuleDestroy {
  constructor(
    private readonly pdf: DocumentPdfService,
    @Inject(OWNED_NOTIFIER) private readonly ownedNotifier: Notifier | null,
  ) {}

  /** app.close(): the PDF pool's workers stop with the last API that holds them; a notifier this app made closes its connections. */
  async onModuleDestroy(): Promise<void> {
    await this.pdf.close();
    this.ownedNotifier?.close();
  }

  static register(
    infra: Infrastructure,
    clock: Clock,
    notifier: Notifier,
    extra: { controllers?: any[]; providers?: Provider[]; ownsNotifier?: boolean } = {},
  ): DynamicModule {
    return {
      module: AppModule,
      imports: [CqrsModule.forRoot()],
      controllers: [
        HealthHttpController,
        MetricsHttpController,
        OrganizationHttpController,
        BrandLogoHttpController,
        OrganizationCertificateHttpController,
        DocumentsHttpController,
        ParticipantsHttpController,
        DocumentLifecycleHttpController,
        FormDataHttpController,
        SigningHttpController,
        SigningPageHttpController,
        PublicVerifyHttpController,
        VerifyPageHttpController,
        EventsHttpController,
        ExtensionsHttpController,
        OutboxHttpController,
        FilesHttpController,
        TemplatesHttpController,
        SealsHttpController,
        SignatureRequestsHttpController,
        BulkSendsHttpController,
        OpenApiHttpController,
        WebhookEndpointsHttpController,
        DocumentHistoryHttpController,
        EvidenceHttpController,
        AdminHttpController,
        EditSessionsHttpController,
        EditorHttpController,
        EditorPageHttpController,
        ...(extra.controllers ?? []),
      ],
      providers: [
        { provide: INFRA, useValue: infra },
        { provide: CLOCK, useValue: clock },
        { provide: NOTIFIER, useValue: notifier },
        { provide: OWNED_NOTIFIER, useValue: extra.ownsNotifier ? notifier : null },
        { provide: DocumentPdfService, useValue: withOrganizationKeys(new DocumentPdfService(infra.blobs, infra.config, infra.reads), infra) },
        {
          provide: DocumentCertifier,
          useFactory: (pdf: DocumentPdfService) => new DocumentCertifier(infra.events, infra.commands, readStoreCertificationLedger(infra.reads), () => pdf.evidenceKey(), clock, infra.config.tsaUrl),
          inject: [DocumentPdfService],
        },
        SigningService,
        // Create + send from a template (signature requests, bulk sends): one application service.
        { provide: TemplateSender, useFactory: (pdf: DocumentPdfService) => new TemplateSender(infra, pdf, clock), inject: [DocumentPdfService] },
        { provide: BulkSendService, useFactory: (sender: TemplateSender) => new BulkSendService(infra, sender, clock), inject: [TemplateSender] },
        { provide: APP_GUARD, useClass: ApiKeyGuard },
        { provide: APP_FILTER, useClass: HttpErrorFilter },
        DecideCommandHandler,
        DocumentAccess,
        DocumentSources,
        DocumentHistoryService,
        OpenApiDocumentHolder,
        // The field-placement editor saves and sends through the very handlers of PUT …/fields,
        // PATCH /templates/{id} and POST …/send (issue 34: no second write path), so the editor's
        // service is given instances of those controllers, as it would be given any service.
        ParticipantsHttpController,
        DocumentLifecycleHttpController,
        TemplatesHttpController,
        EditorService,
        ...(extra.providers ?? []),
      ],
    };
  }
}
