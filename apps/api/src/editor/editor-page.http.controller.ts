import { Controller, Get, Inject, Param, Req, Res } from '@nestjs/common';
import { EditRefusal, Infrastructure } from '@dojang/application';
import { ORGANIZATIONS, OrganizationRow } from '@dojang/projections';
import { Request, Response } from 'express';
import * as fs from 'fs';
import * as path from 'path';
import { ApiError } from '../shared/api-error';
import { Public } from '../shared/auth.guard';
import { INFRA } from '../shared/infrastructure.token';
import { bundleModules } from '../signing/signing-page.bundler';
import { framingHeaders, repoRoot, sendText } from '../signing/signing-page.http.controller';
import { EditorService } from './editor.service';

export const EDITOR_PAGE_DIR = path.join(repoRoot(), 'apps/api/assets/editor-page');
const BUNDLE = 'bundle.js';
/** The page's style sheets and modules, listed once at startup: a request can only name a file that was there. */
const ASSETS: ReadonlyMap<string, string> = new Map(
  (fs.existsSync(EDITOR_PAGE_DIR) ? fs.readdirSync(EDITOR_PAGE_DIR) : []).filter((name) => /^[a-z0-9-]+\.(js|css)$/.test(name)).map((name) => [name, path.join(EDITOR_PAGE_DIR, name)] as const),
);

const escapeHtml = (t: string) => t.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

/** What a refused URL says, in both languages (the URL that would have named the locale is the one refused). */
const REFUSALS: Record<EditRefusal, { status: number; ko: string; en: string }> = {
  invalid: { status: 404, ko: '유효하지 않은 편집 링크입니다.', en: 'This editor link is not valid.' },
  used: { status: 410, ko: '이미 열린 편집 링크입니다. 링크는 한 번만 열 수 있습니다.', en: 'This editor link was opened already. A link opens once.' },
  expired: { status: 410, ko: '편집 링크의 유효 시간이 지났습니다.', en: 'This editor link has expired.' },
};

/**
 * The field-placement editor page (issue 34), served like the signing page: static modules
 * bundled once per process by esbuild, the same strict CSP and font slices, framed only by the
 * organization's embed_origins. Opening /edit/{token} redeems the one-time URL: the page gets the
 * session's own secret in its HTML (never in a URL, so no Referer, log or history holds it), and
 * the URL works no more. A refused URL gets a page that says why and holds nothing editable.
 */
@Public()
@Controller('edit')
export class EditorPageHttpController {
  constructor(
    @Inject(INFRA) private readonly infra: Infrastructure,
    private readonly editor: EditorService,
  ) {}

  @Get('assets/:name')
  asset(@Param('name') name: string, @Req() req: Request, @Res() res: Response) {
    const file = name === BUNDLE ? path.join(EDITOR_PAGE_DIR, BUNDLE) : ASSETS.get(name);
    if (!file) throw ApiError.notFound('resource_not_found', 'No such file.');
    res.setHeader('Content-Type', name.endsWith('.css') ? 'text/css; charset=utf-8' : 'text/javascript; charset=utf-8');
    res.setHeader('X-Content-Type-Options', 'nosniff');
    res.setHeader('Cache-Control', 'public, max-age=300');
    if (name === BUNDLE) return sendText(req, res, file, () => Buffer.from(bundleModules(EDITOR_PAGE_DIR, 'main.js').code));
    return sendText(req, res, file);
  }

  @Get(':token')
  async page(@Param('token') token: string, @Req() req: Request, @Res() res: Response) {
    res.setHeader('Referrer-Policy', 'no-referrer');
    res.setHeader('Cache-Control', 'no-store');
    res.setHeader('Content-Type', 'text/html; charset=utf-8');
    // Express answers HEAD with the GET route: a link checker's HEAD must not spend the one opening.
    if (req.method === 'HEAD') {
      for (const [k, v] of Object.entries(framingHeaders([]))) res.setHeader(k, v);
      return res.status(200).end();
    }
    const opened = await this.editor.store.redeem(token, this.editor.now());
    if (typeof opened === 'string') {
      for (const [k, v] of Object.entries(framingHeaders(await this.embedOriginsOfUrl(token)))) res.setHeader(k, v);
      const refusal = REFUSALS[opened];
      return res.status(refusal.status).send(refusedPage(refusal));
    }
    const org = await this.infra.reads.get<OrganizationRow>(ORGANIZATIONS, opened.row.organization_id);
    for (const [k, v] of Object.entries(framingHeaders(org?.embed_origins ?? []))) res.setHeader(k, v);
    const html = fs
      .readFileSync(path.join(EDITOR_PAGE_DIR, 'index.html'), 'utf8')
      .replace('lang="ko"', `lang="${opened.row.locale}"`)
      .replace('content="__SESSION__"', `content="${escapeHtml(opened.session)}"`);
    return res.status(200).send(html);
  }

  /**
   * A used or expired URL is still one the organization issued: its refusal is framed where its
   * editor would have been, so the integrator's user reads why. An unknown one frames nowhere.
   */
  private async embedOriginsOfUrl(token: string): Promise<string[]> {
    const row = await this.editor.store.urlRow(token);
    if (!row) return [];
    const org = await this.infra.reads.get<OrganizationRow>(ORGANIZATIONS, row.organization_id);
    return org?.embed_origins ?? [];
  }
}

function refusedPage(r: { ko: string; en: string }): string {
  return `<!doctype html>
<html lang="ko">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Dojang 편집기 · Editor</title>
<link rel="stylesheet" href="/sign/assets/fonts/fonts.css">
<link rel="stylesheet" href="/edit/assets/styles.css">
</head>
<body>
<main class="refused" id="refused">
<h1>${escapeHtml(r.ko)}</h1>
<p lang="en">${escapeHtml(r.en)}</p>
<p>새 편집 링크를 요청하세요. <span lang="en">Ask for a new editor link.</span></p>
</main>
</body>
</html>
`;
}
