import { Controller, Get, Inject, Param, Req, Res } from '@nestjs/common';
import { Infrastructure, sha256Hex } from '@dojang/application';
import { ORGANIZATIONS, OrganizationRow, SIGNING_TOKENS, SigningTokenRow } from '@dojang/projections';
import { Request, Response } from 'express';
import * as fs from 'fs';
import * as path from 'path';
import * as zlib from 'zlib';
import { ApiError } from '../shared/api-error';
import { Public } from '../shared/auth.guard';
import { INFRA } from '../shared/infrastructure.token';
import { bundleModules } from './signing-page.bundler';
import { displayedPdf, SigningService } from './signing.service';

/** The repository root, found the same way from the sources (tests) and from dist/ (production). */
export function repoRoot(): string {
  let dir = __dirname;
  while (!fs.existsSync(path.join(dir, 'package.json')) && path.dirname(dir) !== dir) dir = path.dirname(dir);
  return dir;
}

export const SIGNING_PAGE_DIR = path.join(repoRoot(), 'apps/api/assets/signing-page');
/** main.js and every module it imports, as one script (bundleModules); no file of that name exists. */
export const BUNDLE = 'bundle.js';
/**
 * styles.css and brand.css as one style sheet; no file of that name exists. Style sheets block
 * rendering, and on a phone's HTTP/1.1 link (six connections) each one more request delayed page 1's
 * image (docs/BENCHMARKS.md).
 */
export const PAGE_CSS = 'page.css';
const PAGE_CSS_PARTS = ['styles.css', 'brand.css'];
/**
 * The page's modules and style sheet (every .js and .css next to index.html) and signature_pad.
 * Listed once at startup: a request can only name a file that was there.
 */
const ASSETS: ReadonlyMap<string, { file: string; type: string }> = new Map([
  ...(fs.existsSync(SIGNING_PAGE_DIR) ? fs.readdirSync(SIGNING_PAGE_DIR) : [])
    .filter((name) => /^[a-z0-9-]+\.(js|css)$/.test(name))
    .map((name) => [name, { file: path.join(SIGNING_PAGE_DIR, name), type: name.endsWith('.css') ? 'text/css; charset=utf-8' : 'text/javascript; charset=utf-8' }] as const),
  ['signature_pad.js', { file: path.join(repoRoot(), 'node_modules/signature_pad/dist/signature_pad.umd.min.js'), type: 'text/javascript; charset=utf-8' }],
]);

/**
 * Noto Sans KR in unicode-range slices and the stylesheet declaring them (scripts/build-signing-font.js).
 * Slice names carry their content hash, so they are cached for a year; the stylesheet, whose name
 * is fixed, is not. Listed once at startup: a request can only name a file that was there.
 */
export const SIGNING_FONT_DIR = path.join(SIGNING_PAGE_DIR, 'fonts');
const FONT_FILES: ReadonlyMap<string, { file: string; type: string; cache: string }> = new Map(
  (fs.existsSync(SIGNING_FONT_DIR) ? fs.readdirSync(SIGNING_FONT_DIR) : [])
    .filter((name) => /^[a-z0-9-]+\.(woff2|css)$/.test(name))
    .map((name) => {
      const css = name.endsWith('.css');
      const entry = { file: path.join(SIGNING_FONT_DIR, name), type: css ? 'text/css; charset=utf-8' : 'font/woff2', cache: css ? 'public, max-age=300' : 'public, max-age=31536000, immutable' };
      return [name, entry] as const;
    }),
);

const CSP =
  "default-src 'none'; script-src 'self'; style-src 'self'; font-src 'self'; img-src 'self' data: blob:; connect-src 'self'; frame-src 'self'; object-src 'self'; base-uri 'none'; form-action 'none'";

/**
 * Who may frame the page: nobody, unless the link's organization lists origins for embedded
 * signing. X-Frame-Options cannot name several origins, so it is sent (DENY) only when nobody may;
 * browsers that know frame-ancestors ignore it anyway.
 */
export function framingHeaders(embedOrigins: readonly string[]): Record<string, string> {
  if (embedOrigins.length === 0) return { 'Content-Security-Policy': `${CSP}; frame-ancestors 'none'`, 'X-Frame-Options': 'DENY' };
  return { 'Content-Security-Policy': `${CSP}; frame-ancestors ${embedOrigins.join(' ')}` };
}

const SECURITY_HEADERS: Record<string, string> = {  'Referrer-Policy': 'no-referrer',
  'X-Content-Type-Options': 'nosniff',
  'Cache-Control': 'no-store',
};

/**
 * The page's text files (HTML, modules, style sheets) compressed once per process and kept: brotli
 * or gzip as the browser accepts, since on a phone's slow link the bytes are the wait (the page's
 * own files are ~210 KB raw, ~90 KB brotli). A few small files compressed once each is not work
 * for the PDF pool.
 */
const compressed = new Map<string, { raw: Buffer; br: Buffer; gzip: Buffer }>();

export function sendText(req: Request, res: Response, file: string, read: () => Buffer = () => fs.readFileSync(file)) {
  let entry = compressed.get(file);
  if (!entry) {
    const raw = read();
    entry = {
      raw,
      br: zlib.brotliCompressSync(raw, { params: { [zlib.constants.BROTLI_PARAM_QUALITY]: 9, [zlib.constants.BROTLI_PARAM_SIZE_HINT]: raw.length } }),
      gzip: zlib.gzipSync(raw, { level: 9 }),
    };
    compressed.set(file, entry);
  }
  res.setHeader('Vary', 'Accept-Encoding');
  const accepts = String(req.headers['accept-encoding'] ?? '');
  if (/\bbr\b/.test(accepts)) {
    res.setHeader('Content-Encoding', 'br');
    return res.send(entry.br);
  }
  if (/\bgzip\b/.test(accepts)) {
    res.setHeader('Content-Encoding', 'gzip');
    return res.send(entry.gzip);
  }
  return res.send(entry.raw);
}

/** The signing page: static HTML and script that talk to /v1/signing/<token>. */
@Public()
@Controller('sign')
export class SigningPageHttpController {
  constructor(
    @Inject(INFRA) private readonly infra: Infrastructure,
    private readonly signing: SigningService,
  ) {}

  /** The embed origins of the organization that sent this link; none for an unknown link. */
  private async embedOrigins(token: string): Promise<string[]> {
    if (!/^[A-Za-z0-9_-]{32,64}$/.test(token)) return [];
    const link = await this.infra.reads.get<SigningTokenRow>(SIGNING_TOKENS, sha256Hex(token));
    if (!link) return [];
    const org = await this.infra.reads.get<OrganizationRow>(ORGANIZATIONS, link.organization_id);
    return org?.embed_origins ?? [];
  }

  /**
   * What the HTML's `Link` header preloads, so the browser starts it with the HTML instead of after
   * the modules and the session (round trips on a phone): page 1's image, the page's largest paint,
   * with the same URLs, srcset and sizes as pages.js builds, so the <img> takes the preloaded
   * response — only where the page shows the images at once (a sent document, no SMS PIN first).
   * Same-origin, what the CSP allows already. Any doubt (a bad link…) means no preload, never an
   * error. No font slice: the web font is asked for once page 1 is shown (state.js loadFonts); its
   * first slice preloaded here was 54 KB sharing the link with page 1.
   */
  private async preloads(token: string): Promise<string[]> {
    const links: string[] = [];
    try {
      const { state, participant } = await this.signing.session(token);
      const pdf = displayedPdf(state);
      if (pdf && state.status === 'sent' && participant.auth !== 'sms_pin') {
        const url = (w: number) => `/v1/signing/${token}/pages/1.png?w=${w}&v=${pdf.slice(0, 16)}`;
        links.push(`<${url(480)}>; rel=preload; as=image; imagesrcset="${url(480)} 480w, ${url(720)} 720w, ${url(960)} 960w"; imagesizes="(min-width: 960px) 560px, 92vw"; fetchpriority=high`);
      }
    } catch {
      // A bad link: the page will say so, with nothing to preload.
    }
    return links;
  }

  @Get('assets/:name')
  asset(@Param('name') name: string, @Req() req: Request, @Res() res: Response) {
    if (name === BUNDLE) {
      res.setHeader('Content-Type', 'text/javascript; charset=utf-8');
      res.setHeader('X-Content-Type-Options', 'nosniff');
      res.setHeader('Cache-Control', 'public, max-age=300');
      // Made once per process, from the modules as they are (signing-page.bundler.ts).
      return sendText(req, res, path.join(SIGNING_PAGE_DIR, BUNDLE), () => Buffer.from(bundleModules(SIGNING_PAGE_DIR, 'main.js', ['early-session.js']).code));
    }
    if (name === PAGE_CSS) {
      res.setHeader('Content-Type', 'text/css; charset=utf-8');
      res.setHeader('X-Content-Type-Options', 'nosniff');
      res.setHeader('Cache-Control', 'public, max-age=300');
      // Made once per process, from the files as they are, in the order the page listed them.
      return sendText(req, res, path.join(SIGNING_PAGE_DIR, PAGE_CSS), () =>
        Buffer.concat(PAGE_CSS_PARTS.map((part) => Buffer.concat([fs.readFileSync(path.join(SIGNING_PAGE_DIR, part)), Buffer.from('\n')]))),
      );
    }
    const asset = ASSETS.get(name);
    // Thrown, not written here: the error filter adds the request_id every error body carries.
    if (!asset) throw ApiError.notFound('resource_not_found', 'No such file.');
    res.setHeader('Content-Type', asset.type);
    res.setHeader('X-Content-Type-Options', 'nosniff');
    res.setHeader('Cache-Control', 'public, max-age=300');
    return sendText(req, res, asset.file);
  }

  @Get('assets/fonts/:name')
  async font(@Param('name') name: string, @Req() req: Request, @Res() res: Response) {
    const entry = FONT_FILES.get(name);
    if (!entry) throw ApiError.notFound('resource_not_found', 'No such file.');
    res.setHeader('Content-Type', entry.type);
    res.setHeader('X-Content-Type-Options', 'nosniff');
    res.setHeader('Cache-Control', entry.cache);
    // The style sheets compress well (unicode-range lists); woff2 is compressed already.
    if (name.endsWith('.css')) return sendText(req, res, entry.file);
    return res.send(await fs.promises.readFile(entry.file));
  }

  @Get(':token')
  async page(@Param('token') token: string, @Req() req: Request, @Res() res: Response) {
    const headers = { ...SECURITY_HEADERS, ...framingHeaders(await this.embedOrigins(token)) };
    for (const [k, v] of Object.entries(headers)) res.setHeader(k, v);
    const preloads = await this.preloads(token);
    if (preloads.length) res.setHeader('Link', preloads.join(', '));
    res.setHeader('Content-Type', 'text/html; charset=utf-8');
    sendText(req, res, path.join(SIGNING_PAGE_DIR, 'index.html'));
  }
}
