import { X509Certificate } from 'crypto';
import { Body, Controller, Delete, Get, Inject, Put } from '@nestjs/common';
import { CommandBus } from '@nestjs/cqrs';
import { ApiProperty } from '@nestjs/swagger';
import { IsString, MaxLength } from 'class-validator';
import { Clock, CLOCK, DocumentPdfService, Infrastructure } from '@dojang/application';
import { oneLineDistinguishedName, OrganizationCommand, organizationDecider, organizationStreamId, SigningCertificateUploaded, signingCertificateValidityAt } from '@dojang/domain';
import type { SigningP12Problem } from '@dojang/evidence';
import { OrganizationRow } from '@dojang/projections';
import { ApiError, ErrorCode } from '../shared/api-error';
import { Auth, AuthContext, commandContext, ReqInfo, RequestInfo } from '../shared/auth.guard';
import { DecideCommand } from '../shared/decide.command';
import { INFRA } from '../shared/infrastructure.token';
import { organizationRowOf } from './organization-row';
import { SigningCertificateResponse } from '../openapi/response-schemas';

/** A .p12 with a key and a chain of a few certificates is a few KB; anything near this is not one. */
export const MAX_SIGNING_P12_BYTES = 256 * 1024;
const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;

/** PUT /v1/organization/signing_certificate */
export class UploadSigningCertificateDto {
  @ApiProperty({ type: 'string', format: 'byte', description: 'The PKCS#12 file (.p12/.pfx), base64. At most 256 KB.' })
  @IsString()
  @MaxLength(Math.ceil((MAX_SIGNING_P12_BYTES * 4) / 3) + 1024)
  p12: string;

  @ApiProperty({ type: 'string', maxLength: 1024, description: 'The password that opens the file (empty string for none). Stored only encrypted.' })
  @IsString()
  @MaxLength(1024)
  password: string;
}

/** Which field of the request a refusal is about: the password, or the file itself. */
const PROBLEMS: Record<SigningP12Problem, { code: ErrorCode; param: 'p12' | 'password' }> = {
  unsupported_format: { code: 'signing_certificate_unsupported_format', param: 'p12' },
  wrong_password: { code: 'signing_certificate_wrong_password', param: 'password' },
  no_private_key: { code: 'signing_certificate_no_private_key', param: 'p12' },
  key_mismatch: { code: 'signing_certificate_key_mismatch', param: 'p12' },
  certificate_expired: { code: 'signing_certificate_expired', param: 'p12' },
  certificate_not_yet_valid: { code: 'signing_certificate_not_yet_valid', param: 'p12' },
};

const pem = (der: Buffer) => `-----BEGIN CERTIFICATE-----\n${der.toString('base64').replace(/(.{64})/g, '$1\n').replace(/\n$/, '')}\n-----END CERTIFICATE-----\n`;
/** Node prints a DN one attribute a line; the API shows it on one line, as for uploads. */
const dn = oneLineDistinguishedName;

/**
 * An organization's own document-signing certificate (issue 25): uploaded as a .p12, opened and
 * checked in the PDF pool, its key stored encrypted (organization-signing-keys.ts) and the
 * certificate recorded on the organization's stream. Its own controller file: the organization
 * settings controller is another's to change.
 */
@Controller()
export class OrganizationCertificateHttpController {
  constructor(
    @Inject(INFRA) private readonly infra: Infrastructure,
    @Inject(CLOCK) private readonly clock: Clock,
    private readonly commandBus: CommandBus,
    private readonly pdf: DocumentPdfService,
  ) {}

  private org(auth: AuthContext): Promise<OrganizationRow> {
    return organizationRowOf(this.infra, auth);
  }

  @Get('organization/signing_certificate')
  async get(@Auth() auth: AuthContext): Promise<SigningCertificateResponse> {
    const own = (await this.org(auth)).signing_certificate;
    if (own) {
      const { key_blob: _k, uploaded_at, ...certificate } = own;
      // Valid at upload, it may have expired since: completions then answer 503 until it is
      // replaced or removed, and this is where the organization sees why.
      const validity = signingCertificateValidityAt(own, this.clock.now());
      return { object: 'signing_certificate', source: 'organization', ...certificate, uploaded_at, validity, expired: validity === 'expired' };
    }
    return this.platform();
  }

  @Put('organization/signing_certificate')
  async upload(@Auth() auth: AuthContext, @ReqInfo() info: RequestInfo, @Body() dto: UploadSigningCertificateDto): Promise<SigningCertificateResponse> {
    await this.org(auth);
    if (!dto.p12) throw ApiError.missing('p12', 'p12 is required: the PKCS#12 file, base64.');
    const text = dto.p12.replace(/\s+/g, '');
    if (!BASE64.test(text) || text.length % 4 === 1) throw ApiError.invalid('p12', 'p12 must be the PKCS#12 file in base64.');
    const p12 = Buffer.from(text, 'base64');
    if (p12.length > MAX_SIGNING_P12_BYTES) {
      throw new ApiError(413, 'invalid_request_error', 'file_too_large', `A signing certificate file is at most ${MAX_SIGNING_P12_BYTES / 1024} KB; this one is ${Math.ceil(p12.length / 1024)} KB.`, 'p12');
    }
    const now = this.clock.now();
    // Opening a PKCS#12 runs PBKDF2 in JavaScript: in the pool, counted against the organization.
    const inspected = await this.pdf.inspectSigningP12(p12, dto.password, now, auth.organization_id);
    if (!inspected.ok) {
      const problem = PROBLEMS[inspected.code];
      throw new ApiError(400, 'invalid_request_error', problem.code, inspected.message, problem.param);
    }
    const keys = this.pdf.organizationKeys;
    if (!keys) throw new Error('organization signing keys are not configured in this process');
    const keyBlob = await keys.store(p12, dto.password);
    const certificate: SigningCertificateUploaded['data']['certificate'] = inspected.certificate;
    await this.decide(auth, info, { type: 'UploadSigningCertificate', certificate, key_blob: keyBlob });
    return this.get(auth);
  }

  @Delete('organization/signing_certificate')
  async remove(@Auth() auth: AuthContext, @ReqInfo() info: RequestInfo): Promise<SigningCertificateResponse> {
    await this.org(auth);
    await this.decide(auth, info, { type: 'RemoveSigningCertificate' });
    return this.platform();
  }

  private async decide(auth: AuthContext, info: RequestInfo, command: DistributiveOmit<Extract<OrganizationCommand, { type: 'UploadSigningCertificate' | 'RemoveSigningCertificate' }>, 'now'>) {
    await this.commandBus.execute(
      new DecideCommand(
        organizationDecider,
        organizationStreamId(auth.organization_id),
        () => ({ ...command, now: this.clock.now().toISOString() }) as OrganizationCommand,
        commandContext(auth, info),
      ),
    );
  }

  /** The installation's certificate (SIGNING_KEY's, SIGNING_P12's or the generated one). */
  private async platform(): Promise<SigningCertificateResponse> {
    const key = await this.pdf.signingKey();
    const chain = key && key.kind !== 'file' ? key.certificates.map((c) => Buffer.from(c)) : [(await this.pdf.evidenceKey()).certificate];
    const cert = new X509Certificate(chain[0]);
    const validity = signingCertificateValidityAt({ not_before: new Date(cert.validFrom).toISOString(), not_after: new Date(cert.validTo).toISOString() }, this.clock.now());
    return {
      object: 'signing_certificate',
      source: 'platform',
      subject: dn(cert.subject),
      issuer: dn(cert.issuer),
      not_before: new Date(cert.validFrom).toISOString(),
      not_after: new Date(cert.validTo).toISOString(),
      serial_number: cert.serialNumber.toLowerCase(),
      sha256_fingerprint: await this.pdf.signingCertificateSha256(),
      chain_pem: chain.map(pem),
      uploaded_at: null,
      validity,
      expired: validity === 'expired',
    };
  }
}

type DistributiveOmit<T, K extends PropertyKey> = T extends unknown ? Omit<T, K> : never;
