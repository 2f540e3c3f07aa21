import { AddressInfo } from 'net';
import { Browser } from 'playwright-core';
import { ANDROID_PHONE, axeViolations, latinOnlyFontconfig, launchChromium } from '../support/browser';
import { client, expectStatus } from '../support/api-helpers';
import { sentWith, signer } from '../support/lifecycle';
import { bearer, startTestApp, TestApp } from '../support/test-app';
import { binary } from '../files/file-helpers';

jest.setTimeout(120_000);

/**
 * The public verify page on an Android phone without a Korean system font: a completed document's
 * final PDF chosen with the file input reads "issued, unchanged"; the same PDF with one byte
 * changed, dropped on the page, reads "altered". axe-core finds no WCAG A/AA violation in either
 * state, the page loads nothing from another origin and logs no error, and English is one tap away.
 */
describe('verify page (browser)', () => {
  let t: TestApp;
  let browser: Browser;
  let origin: string;
  let finalPdf: Buffer;

  beforeAll(async () => {
    [t, browser] = await Promise.all([
      startTestApp(),
      launchChromium({ ...process.env, FONTCONFIG_FILE: latinOnlyFontconfig() }),
    ]);
    const org = await t.createOrg();
    const c = client(t, org.test);
    const built = await sentWith(c, [{ name: '김민준', email: 'minjun.kim@example.com' }]);
    expectStatus(await signer(t, built.p['김민준'].token).sign(), 200);
    await t.infra.runner.catchUp();
    finalPdf = (await t.http.get(`/v1/documents/${built.id}/file`).set(bearer(org.test)).buffer(true).parse(binary)).body as Buffer;
    await t.app.listen(0, '127.0.0.1');
    origin = `http://127.0.0.1:${(t.app.getHttpServer().address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    await browser?.close();
    await t?.close();
  });

  it('reports a completed PDF as issued and unchanged, and one with a byte changed as altered', async () => {
    const context = await browser.newContext(ANDROID_PHONE);
    const page = await context.newPage();
    const problems: string[] = [];
    const foreign: string[] = [];
    page.on('console', (msg) => msg.type() === 'error' && problems.push(msg.text()));
    page.on('pageerror', (err) => problems.push(err.message));
    page.on('request', (req) => !req.url().startsWith(origin) && !req.url().startsWith('data:') && foreign.push(req.url()));
    await page.goto(`${origin}/verify`, { waitUntil: 'networkidle' });
    expect(await page.locator('h1').textContent()).toBe('전자계약 문서 검증');
    expect(await axeViolations(page)).toEqual([]);

    await page.setInputFiles('#file', { name: '근로계약서.pdf', mimeType: 'application/pdf', buffer: finalPdf });
    await page.locator('#verdict').getByText('이 서비스가 발급한 원본 그대로입니다').waitFor();
    await expect(page.locator('#signatures').textContent()).resolves.toContain('서명: 유효');
    // The signer named with its certificate's fingerprint, as POST /v1/verify gives them (issue 31 item 2).
    const judged = expectStatus(await t.http.post('/v1/verify').attach('file', finalPdf, { filename: 'final.pdf', contentType: 'application/pdf' }), 200).body.signatures[0];
    expect(judged.certificate_sha256).toMatch(/^[0-9a-f]{64}$/);
    await expect(page.locator('#signatures').textContent()).resolves.toContain(`${judged.signer} (`);
    await expect(page.locator('#signatures').textContent()).resolves.toContain(`인증서 지문(SHA-256) ${judged.certificate_sha256}`);
    // What the embedded revocation data says, and trust said plainly: no VERIFY_TRUST_ANCHORS here.
    expect(judged).toMatchObject({ trusted: false, revocation: expect.any(String) });
    await expect(page.locator('#signatures').textContent()).resolves.toContain(`폐지 여부: ${judged.revocation}`);
    await expect(page.locator('#signatures').textContent()).resolves.toContain('신뢰할 수 있는 발급자로 확인되지 않았습니다 (untrusted issuer)');
    await expect(page.locator('#doc-chain').textContent()).resolves.toBe('검증됨');
    await expect(page.locator('#participants').textContent()).resolves.toMatch(/김민준 \(서명자\) · m\*+@example\.com · 서명 /);
    expect(await page.locator('#doc-test').isVisible()).toBe(true);
    // Korean drawn with the page's web font (this browser has no Korean system font).
    expect(await page.evaluate(() => document.fonts.ready.then(() => document.fonts.check("16px 'Dojang Noto Sans KR'", '검증')))).toBe(true);
    // Fits the phone: nothing scrolls sideways.
    expect(await page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth)).toBe(true);
    expect(await axeViolations(page)).toEqual([]);

    const altered = Buffer.from(finalPdf);
    altered[Math.floor(altered.length / 3)] ^= 0x01;
    const transfer = await page.evaluateHandle((b64: string) => {
      const bytes = Uint8Array.from(atob(b64), (ch) => ch.charCodeAt(0));
      const dt = new DataTransfer();
      dt.items.add(new File([bytes], 'altered.pdf', { type: 'application/pdf' }));
      return dt;
    }, altered.toString('base64'));
    await page.dispatchEvent('#drop', 'drop', { dataTransfer: transfer });
    await page.locator('#verdict').getByText('변경된 문서입니다').waitFor();
    expect(await page.locator('#document').isHidden()).toBe(true);
    await expect(page.locator('#signatures').textContent()).resolves.toContain('서명: 유효하지 않음');
    expect(await axeViolations(page)).toEqual([]);

    await page.click('.lang-btn[data-lang="en"]');
    await expect(page.locator('#verdict').textContent()).resolves.toBe('This document was altered');
    expect(await page.evaluate(() => document.documentElement.lang)).toBe('en');
    expect(await axeViolations(page)).toEqual([]);

    expect(problems).toEqual([]);
    expect(foreign).toEqual([]);
    await context.close();
  });
});
