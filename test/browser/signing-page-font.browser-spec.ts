import { execFileSync } from 'child_process';
import { AddressInfo } from 'net';
import { Browser, BrowserContext, Page } from 'playwright-core';
import { bearer, startTestApp, TestApp } from '../support/test-app';
import { ANDROID_PHONE, glyphReport, latinOnlyFontconfig, launchChromium } from '../support/browser';
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { readSlices } = require('../../scripts/build-signing-font') as { readSlices(): Array<{ file: string; codePoints: number[] }> };

/**
 * Every Hangul syllable renders on a phone without a Korean system font. Chromium runs with a
 * fontconfig listing only DejaVu (Latin), whatever this machine has installed, so the only Hangul
 * it can draw comes from the page's Noto Sans KR slices. Rare syllables in the title, the signer's
 * name and the sending organization must each be drawn by the slice font, never by a fallback box.
 */


const RARE = '똠뷁쀍햏괆';
const TITLE = `${RARE} 근로계약서 (표준)`;
const SIGNER = '뷁똠햏 (괆쀍)';
const ORG = '쀍괆 주식회사 ㈜똠';

describe('signing page fonts: every Hangul syllable (browser, no Korean system font)', () => {
  let t: TestApp;
  let browser: Browser;
  let origin: string;
  let url: string;
  const fontconfig = latinOnlyFontconfig();
  const contexts: BrowserContext[] = [];

  beforeAll(async () => {
    [t, browser] = await Promise.all([
      startTestApp(),
      launchChromium({ ...process.env, FONTCONFIG_FILE: fontconfig }),
    ]);
    await t.app.listen(0, '127.0.0.1');
    origin = `http://127.0.0.1:${(t.app.getHttpServer().address() as AddressInfo).port}`;
    const org = await t.createOrg(ORG);
    const h = bearer(org.test);
    const doc = (await t.http.post('/v1/documents').set(h).send({ title: TITLE, content: `<p>${TITLE}</p>` })).body;
    const p = (await t.http.post(`/v1/documents/${doc.id}/participants`).set(h).send({ name: SIGNER, auth: 'none' })).body;
    await t.http.put(`/v1/documents/${doc.id}/fields`).set(h).send({ fields: [{ participant_id: p.id, type: 'signature', page: 1, x: 10, y: 60, width: 20, height: 8 }] });
    const sent = (await t.http.post(`/v1/documents/${doc.id}/send`).set(h).send({})).body;
    url = `${origin}/sign/${sent.participants[0].signing_url.split('/sign/')[1]}`;
  });

  afterEach(async () => {
    await Promise.all(contexts.splice(0).map((c) => c.close()));
  });

  afterAll(async () => {
    await browser?.close();
    await t?.close();
  });

  it('the browser has no font with Hangul but the page’s own', () => {
    // What fontconfig offers Chromium here: not one font claims Korean.
    const korean = execFileSync('fc-list', [':lang=ko', 'family'], { env: { ...process.env, FONTCONFIG_FILE: fontconfig }, encoding: 'utf8' });
    expect(korean.trim()).toBe('');
  });

  async function open(blockFonts: boolean): Promise<{ page: Page; slices: string[]; csp: () => Promise<string[]> }> {
    const context = await browser.newContext(ANDROID_PHONE);
    contexts.push(context);
    if (blockFonts) await context.route(/\/sign\/assets\/fonts\/[^/]+\.woff2$/, (route) => route.abort());
    // The document itself is not what this test looks at.
    await context.route(/\/v1\/signing\/[^/]+\/(file|pages)/, (route) => route.fulfill({ status: 404, contentType: 'application/json', body: '{}' }));
    const page = await context.newPage();
    const slices: string[] = [];
    page.on('response', (r) => {
      const m = /\/sign\/assets\/fonts\/([^/?]+\.woff2)$/.exec(r.url());
      if (m && r.status() === 200 && r.headers()['content-type'] === 'font/woff2') slices.push(m[1]);
    });
    await page.addInitScript(() => {
      const w = window as unknown as { __csp: string[] };
      w.__csp = [];
      document.addEventListener('securitypolicyviolation', (e) => w.__csp.push(`${e.violatedDirective} ${e.blockedURI}`));
    });
    await page.goto(url, { waitUntil: 'networkidle' });
    await page.locator('#doc-title').getByText(TITLE).waitFor();
    await page.evaluate(() => document.fonts.ready);
    return { page, slices, csp: () => page.evaluate(() => (window as unknown as { __csp: string[] }).__csp) };
  }

  it('draws rare syllables in the title, the signer’s name and the organization with the slice font', async () => {
    const { page, slices, csp } = await open(false);
    await expect(page.locator('#doc-participant').textContent()).resolves.toContain(SIGNER);
    await expect(page.locator('#doc-sender').textContent()).resolves.toBe(ORG);

    // The page itself asked for the slices holding the rare syllables (nothing here loads fonts
    // by hand), and only some slices: not the whole font.
    const owner = new Map<number, string>();
    for (const s of readSlices()) for (const cp of s.codePoints) owner.set(cp, s.file);
    for (const ch of `${RARE}㈜`) expect({ ch, fetched: slices.includes(owner.get(ch.codePointAt(0)!) ?? '?') }).toEqual({ ch, fetched: true });
    expect(slices.length).toBeLessThan(40);
    expect(new Set(slices).size).toBe(slices.length);

    for (const sel of ['#doc-title', '#doc-participant', '#doc-sender']) {
      const g = await glyphReport(page, sel);
      expect(g.stack).toContain('Dojang Noto Sans KR');
      expect(g.chars.length).toBeGreaterThan(3);
      expect({ sel, wrong: g.chars.filter((c) => !c.bySliceFont || c.box) }).toEqual({ sel, wrong: [] });
    }
    expect(await csp()).toEqual([]);

    // The slices are cached for a year; a name that is not a slice is a 404.
    const res = await fetch(`${origin}/sign/assets/fonts/${slices[0]}`);
    expect(res.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
    expect((await fetch(`${origin}/sign/assets/fonts/..%2Fapp.js`)).status).toBe(404);
    expect((await fetch(`${origin}/sign/assets/fonts/nskr-999-0000000000.woff2`)).status).toBe(404);
    await page.screenshot({ path: '/tmp/dojang-signing-page-rare-syllables.png', scale: 'css' });
  });

  it('asks for the web font at once on a screen without page images (a dead link), not after a page 1 that never comes', async () => {
    const context = await browser.newContext(ANDROID_PHONE);
    contexts.push(context);
    const page = await context.newPage();
    const css = page.waitForResponse((r) => r.url().endsWith('/sign/assets/fonts/fonts.css') && r.status() === 200);
    await page.goto(`${origin}/sign/${'x'.repeat(43)}`);
    await page.locator('#fatal').waitFor();
    await css;
    expect(await page.locator('link[rel=stylesheet][href="/sign/assets/fonts/fonts.css"]').count()).toBe(1);
  });

  it('without the slices the same characters are missing-glyph boxes (the check above can fail)', async () => {
    const { page } = await open(true);
    const g = await glyphReport(page, '#doc-title');
    const rare = g.chars.filter((c) => RARE.includes(c.ch));
    expect(rare).toHaveLength(RARE.length);
    expect(rare.every((c) => c.box)).toBe(true);
  });
});
