import { Controller, Get, Param, Res } from '@nestjs/common';
import { Response } from 'express';
import * as fs from 'fs';
import * as path from 'path';
import { ApiError } from '../shared/api-error';
import { Public } from '../shared/auth.guard';
import { framingHeaders, SIGNING_PAGE_DIR } from '../signing/signing-page.http.controller';

/** Beside the signing page's assets (whose font slices it reuses). */
export const VERIFY_PAGE_DIR = path.join(path.dirname(SIGNING_PAGE_DIR), 'verify-page');

/** The page's script and style sheet, listed once at startup: a request can only name a file that was there. */
const ASSETS: ReadonlyMap<string, { file: string; type: string }> = new Map(
  (fs.existsSync(VERIFY_PAGE_DIR) ? fs.readdirSync(VERIFY_PAGE_DIR) : [])
    .filter((name) => /^[a-z0-9-]+\.(js|css)$/.test(name))
    .map((name) => [name, { file: path.join(VERIFY_PAGE_DIR, name), type: name.endsWith('.css') ? 'text/css; charset=utf-8' : 'text/javascript; charset=utf-8' }] as const),
);

/**
 * `GET /verify`: the public page where anyone drops a PDF and sees what POST /v1/verify answers.
 * Static HTML and one script, under the signing page's Content-Security-Policy (no inline script
 * or style, nothing from another origin) and never framed.
 */
@Public()
@Controller('verify')
export class VerifyPageHttpController {
  @Get()
  page(@Res() res: Response) {
    const headers = { 'Referrer-Policy': 'no-referrer', 'X-Content-Type-Options': 'nosniff', 'Cache-Control': 'no-store', ...framingHeaders([]) };
    for (const [k, v] of Object.entries(headers)) res.setHeader(k, v);
    res.setHeader('Content-Type', 'text/html; charset=utf-8');
    res.send(fs.readFileSync(path.join(VERIFY_PAGE_DIR, 'index.html')));
  }

  @Get('assets/:name')
  asset(@Param('name') name: string, @Res() res: Response) {
    const asset = ASSETS.get(name);
    if (!asset) throw ApiError.notFound('resource_not_found', 'No such file.');
    res.setHeader('Content-Type', asset.type);
    res.setHeader('X-Content-Type-Options', 'nosniff');
    res.setHeader('Cache-Control', 'public, max-age=300');
    return res.send(fs.readFileSync(asset.file));
  }
}
