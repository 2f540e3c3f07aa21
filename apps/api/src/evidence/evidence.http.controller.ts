import { createHash } from 'crypto';
import { Controller, Get, Inject, Param, Res } from '@nestjs/common';
import { ModuleRef } from '@nestjs/core';
import { ApiOkResponse, ApiOperation } from '@nestjs/swagger';
import { DocumentPdfService, DocumentCertifier, maskEventData, signWithEvidenceKey } from '@dojang/application';
import { signManifestWith } from '@dojang/verifier';
import { buildEvidenceBundle } from '@dojang/evidence';
import { deliveryStreamId, documentStreamId } from '@dojang/domain';
import { Response } from 'express';
import { certifiedFirst } from '../evidence/certified-first';
import { DocumentAccess } from '../documents/document-access.service';
import { DocumentLifecycleHttpController } from '../documents/document-lifecycle.http.controller';
import { Auth, AuthContext } from '../shared/auth.guard';
import { recordedAttachments } from '../documents/form-data';

const sha256Hex = (der: Buffer) => createHash('sha256').update(der).digest('hex');
const pemOf = (der: Buffer) => `-----BEGIN CERTIFICATE-----\n${der.toString('base64').replace(/(.{64})/g, '$1\n').replace(/\n$/, '')}\n-----END CERTIFICATE-----\n`;

/**
 * `GET /v1/documents/{id}/evidence`: everything an auditor needs to check a document offline
 * with `dojang-verify` (libs/verifier). A read, so any key of the organization may fetch it.
 */
@Controller('documents/:id/evidence')
export class EvidenceHttpController {
  constructor(
    private readonly docs: DocumentAccess,
    @Inject(DocumentPdfService) private readonly pdf: DocumentPdfService,
    @Inject(DocumentCertifier) private readonly certifier: DocumentCertifier,
    private readonly moduleRef: ModuleRef,
  ) {}

  @Get()
  @ApiOperation({ summary: 'Evidence bundle (ZIP) to verify offline with `npx dojang-verify bundle.zip`' })
  @ApiOkResponse({
    description: 'manifest.json, manifest.json.jws, events.jsonl, deliveries.jsonl, original.pdf, final.pdf, audit-certificate.pdf, signing-chain.pem (docs/EVIDENCE.md)',
    content: { 'application/zip': { schema: { type: 'string', format: 'binary' } } },
  })
  async bundle(@Auth() auth: AuthContext, @Param('id') id: string, @Res() res: Response) {
    const row = await this.docs.row(auth, id);
    // A concluded document is sealed before its evidence leaves (the reactor normally did it already).
    await certifiedFirst(this.certifier, row.id);
    const events = await this.docs.infra.events.readStream(documentStreamId(row.id));
    // Read once: the certificate lists and seals exactly the deliveries the bundle ships.
    const deliveries = await this.docs.infra.events.readStream(deliveryStreamId(row.id));
    const original = row.original_pdf ? await this.pdf.blob(row.original_pdf.sha256) : null;
    const final = row.status === 'completed' && row.final_pdf ? await this.pdf.blob(row.final_pdf.sha256) : null;
    // A final PDF signed with the organization's own certificate: that chain goes in too.
    const finalChain = final ? await this.pdf.signerChain(final, row.organization_id) : null;
    const platform = await this.pdf.signingCertificateSha256();
    const ownChain = finalChain && finalChain.length && sha256Hex(finalChain[0]) !== platform ? finalChain.map(pemOf).join('') : null;
    const bundle = await buildEvidenceBundle(
      {
        document_id: row.id,
        status: row.status,
        generated_at: this.docs.nowIso(),
        events,
        deliveries,
        original,
        final,
        audit_certificate: await this.lifecycle().auditVersion(row, deliveries, events),
        signing_chain_pem: await this.pdf.evidenceChainPem(),
        final_signing_chain_pem: ownChain,
        // One masking rule for every auditor read: the bundle masks what /history masks, reasons included.
        mask: auth.role === 'auditor' ? (data) => maskEventData(data) as Record<string, unknown> : null,
        attachments: await Promise.all(
          recordedAttachments(row).map(async (a) => ({ attachment_id: a.attachment_id, filename: a.filename, bytes: await this.pdf.blob(a.sha256) })),
        ),
        // Through the signing-key port: a key in a token or a remote signer signs the manifest too.
        sign_manifest: async (manifest) => {
          const key = await this.pdf.evidenceKey();
          return signManifestWith(manifest, key.certificate, (data) => signWithEvidenceKey(key, data));
        },
      },
      (files, mtime) => this.pdf.zip(files, mtime),
    );
    res.setHeader('Content-Type', 'application/zip');
    res.setHeader('Content-Disposition', `attachment; filename="evidence-${row.id}.zip"`);
    res.setHeader('Content-Length', String(bundle.length));
    res.end(bundle);
  }

  /** The one place that builds the audit version (`GET /file?audit=true`). */
  private lifecycle(): DocumentLifecycleHttpController {
    return this.moduleRef.get(DocumentLifecycleHttpController, { strict: false });
  }
}
