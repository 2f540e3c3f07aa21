import { Controller, Get, Inject, Param, Res } from '@nestjs/common';
import { Infrastructure, logoFileName } from '@dojang/application';
import { logoOf } from '@dojang/domain';
import { ORGANIZATIONS, OrganizationRow } from '@dojang/projections';
import { Response } from 'express';
import { ApiError } from '../shared/api-error';
import { Public } from '../shared/auth.guard';
import { INFRA } from '../shared/infrastructure.token';

/**
 * Organizations' logos, for mail clients and the signing page: no API key (a mail client has
 * none), under /sign so the page loads them from its own origin. Only an organization's current
 * logo is served, under its content hash: the blob store is content-addressed and holds
 * contracts too, so a hash alone must never be a way to fetch a blob. A replaced or removed logo's
 * URL answers 404.
 */
@Public()
@Controller('sign/brand')
export class BrandLogoHttpController {
  constructor(@Inject(INFRA) private readonly infra: Infrastructure) {}

  @Get(':organization/:logo')
  async logo(@Param('organization') organization: string, @Param('logo') file: string, @Res() res: Response) {
    const notFound = () => ApiError.notFound('resource_not_found', 'No such logo.');
    if (!/^[A-Za-z0-9_-]{1,64}$/.test(organization) || !/^[0-9a-f]{64}\.(png|jpg)$/.test(file)) throw notFound();
    const org = await this.infra.reads.get<OrganizationRow>(ORGANIZATIONS, organization);
    const logo = logoOf(org);
    if (!logo || logoFileName(logo) !== file) throw notFound();
    const headers: Record<string, string> = {
      'Content-Type': logo.content_type,
      // The name is the content hash: the bytes behind this URL never change.
      'Cache-Control': 'public, max-age=31536000, immutable',
      'X-Content-Type-Options': 'nosniff',
      // An image, never a document: opened on its own it may run nothing.
      'Content-Security-Policy': "default-src 'none'; sandbox",
      // Mail clients and their image proxies load it from other origins.
      'Cross-Origin-Resource-Policy': 'cross-origin',
    };
    const bytes = await this.infra.blobs.get(logo.sha256);
    if (!bytes) throw notFound();
    res.status(200).set({ ...headers, 'Content-Length': String(bytes.length) }).end(bytes);
  }
}
