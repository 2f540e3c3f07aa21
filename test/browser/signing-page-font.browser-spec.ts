import * as fs from 'fs';
import { AddressInfo } from 'net';
import * as os from 'os';
import * as path from 'path';
import { Browser, chromium, Page } from 'playwright-core';
import { startTestApp, TestApp } from '../support/test-app';

/**
 * The signing page's Korean renders on a device without any Korean system font. Chromium runs
 * with a fontconfig listing only DejaVu (Latin), whatever this machine has installed, so the
 * only Hangul it can draw comes from the page's own web font.
 */

jest.setTimeout(45_000);

const CHROMIUM_ARGS = ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'];

function latinOnlyFontconfig(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'dojang-latin-fonts-'));
  const file = path.join(dir, 'fonts.conf');
  fs.writeFileSync(
    file,
    `<?xml version="1.0"?><!DOCTYPE fontconfig SYSTEM "fonts.dtd"><fontconfig><dir>/usr/share/fonts/truetype/dejavu</dir><cachedir>${path.join(dir, 'cache')}</cachedir></fontconfig>`,
  );
  return file;
}

describe('signing page web font (browser, no Korean system font)', () => {
  let t: TestApp;
  let browser: Browser;
  let origin: string;

  beforeAll(async () => {
    [t, browser] = await Promise.all([
      startTestApp(),
      chromium.launch({ executablePath: '/usr/bin/chromium', args: CHROMIUM_ARGS, env: { ...process.env, FONTCONFIG_FILE: latinOnlyFontconfig() } }),
    ]);
    await t.app.listen(0, '127.0.0.1');
    origin = `http://127.0.0.1:${(t.app.getHttpServer().address() as AddressInfo).port}`;
  });

  afterAll(async () => {
    await browser?.close();
    await t?.close();
  });

  /** The page for an unknown link: its Korean error heading is drawn by app.js without any API data. */
  async function heading(blockFont: boolean): Promise<{ page: Page; png: Buffer; csp: string[] }> {
    const context = await browser.newContext({ viewport: { width: 600, height: 400 }, locale: 'ko-KR' });
    if (blockFont) await context.route(/noto-sans-kr-subset\.woff2$/, (route) => route.abort());
    const page = await context.newPage();
    await page.addInitScript(() => {
      const w = window as unknown as { __csp: string[] };
      w.__csp = [];
      document.addEventListener('securitypolicyviolation', (e) => w.__csp.push(`${e.violatedDirective} ${e.blockedURI}`));
    });
    await page.goto(`${origin}/sign/no-such-link-${blockFont ? 'a' : 'b'}`, { waitUntil: 'networkidle' });
    const title = page.locator('#fatal-title');
    await title.waitFor();
    await page.evaluate(() => document.fonts.ready);
    // The same text in both renderings, so any difference is the font.
    await page.evaluate(() => {
      document.getElementById('fatal-title')!.textContent = '서명 링크를 확인해 주세요';
    });
    const png = await title.screenshot();
    const csp = await page.evaluate(() => (window as unknown as { __csp: string[] }).__csp);
    return { page, png, csp };
  }

  const webFontLoaded = (page: Page) =>
    page.evaluate(() => {
      let loaded = false;
      document.fonts.forEach((f) => {
        if (f.family.replace(/"/g, '') === 'Dojang Noto Sans KR' && f.status === 'loaded') loaded = true;
      });
      return loaded;
    });

  it('serves the font under the page CSP and draws Hangul with it', async () => {
    const res = await fetch(`${origin}/sign/assets/noto-sans-kr-subset.woff2`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('font/woff2');

    const withFont = await heading(false);
    expect(withFont.csp).toEqual([]);
    expect(await withFont.page.evaluate(() => document.fonts.check('16px "Dojang Noto Sans KR"', '서명'))).toBe(true);
    expect(await webFontLoaded(withFont.page)).toBe(true);

    // Without the web font the same heading is boxes (no system font has Hangul here).
    const tofu = await heading(true);
    expect(await webFontLoaded(tofu.page)).toBe(false);
    expect(withFont.png.equals(tofu.png)).toBe(false);

    await Promise.all([withFont.page.context().close(), tofu.page.context().close()]);
  });
});
