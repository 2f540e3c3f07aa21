import { Browser, BrowserContext, Page } from 'playwright-core';
import { ANDROID_PHONE, closeContexts, startBrowserApp, callApi } from '../support/browser';
import { solidPngBytes } from '../support/png';
import { bearer, TestApp, TestOrg } from '../support/test-app';

/**
 * The organization's date_format on the signing page (issue 32): a date the signer picks is shown
 * as the final PDF will print it — on the page image's overlay, in the sheet's hint and in the
 * review — and a field's own locale still wins, as on the server.
 */

// A hang guard, not a speed check: on two cores shared by many runs one page took minutes.
jest.setTimeout(300_000);

describe('signing page: the document\'s date format (browser)', () => {
  let t: TestApp;
  let org: TestOrg;
  let browser: Browser;
  let origin: string;
  const contexts: BrowserContext[] = [];

  const api = <T = any>(method: 'get' | 'post' | 'put' | 'patch', p: string, body?: unknown, status = 200): Promise<T> => callApi<T>(t, bearer(org.test), method, p, body, status);

  beforeAll(async () => {
    ({ t, browser, origin } = await startBrowserApp({ latinOnlyFonts: true }));
    org = await t.createOrg();
  });

  afterEach(() => closeContexts(contexts));

  afterAll(async () => {
    await browser?.close();
    await t?.close();
  });

  it('shows 2026. 3. 1. for an organization set to YYYY. M. D., the field\'s locale still winning', async () => {
    await api('patch', '/v1/organization', { date_format: 'YYYY. M. D.' });
    const doc = await api('post', '/v1/documents', { title: '근로계약서', content: '<p>근로계약서</p>' }, 201);
    const me = await api('post', `/v1/documents/${doc.id}/participants`, { name: '김지원', email: 'kim@example.com', auth: 'none' }, 201);
    const box = (y: number) => ({ page: 1, x: 10, y, width: 40, height: 4 });
    await api('put', `/v1/documents/${doc.id}/fields`, {
      fields: [
        { participant_id: me.id, type: 'date', label: '입사일', required: true, ...box(20) },
        { participant_id: me.id, type: 'date', label: '생년월일', locale: 'ko', required: true, ...box(30) },
        { participant_id: me.id, type: 'signature', page: 1, x: 10, y: 70, width: 30, height: 8 },
      ],
    });
    const sent = await api('post', `/v1/documents/${doc.id}/send`, {});
    const url = `${origin}/sign/${sent.participants[0].signing_url.split('/sign/')[1]}`;

    const context = await browser.newContext(ANDROID_PHONE);
    contexts.push(context);
    // Blank page images: the overlays are what this test reads.
    await context.route(/\/v1\/signing\/[^/]+\/pages\//, (route) => route.fulfill({ status: 200, contentType: 'image/png', body: solidPngBytes(60, 85, [255, 255, 255, 255]) }));
    const page: Page = await context.newPage();
    const problems: string[] = [];
    page.on('pageerror', (err) => problems.push(`pageerror: ${err.message}`));
    await page.goto(url, { waitUntil: 'networkidle' });
    await page.locator('#sign-step').waitFor();

    const named = (label: string) => page.locator(`.field-own[data-label^="1쪽 ${label} ("]`);
    const dialog = page.locator('#field-dialog');
    async function pick(label: string, day: string): Promise<string | null> {
      await named(label).tap();
      await dialog.waitFor();
      await page.locator('#field-input').fill(day);
      // The sheet says how the document will write the day the picker shows its own way.
      const hint = await page.locator('#field-hint').textContent();
      await page.locator('#field-save').tap();
      await dialog.waitFor({ state: 'hidden' });
      return hint;
    }
    await expect(pick('입사일', '2026-03-01')).resolves.toBe('문서에는 2026. 3. 1.(으)로 적힙니다');
    await expect(pick('생년월일', '1995-03-15')).resolves.toBe('문서에는 1995년 3월 15일(으)로 적힙니다');

    // On the page image's overlay.
    await expect(named('입사일').locator('.field-value').textContent()).resolves.toBe('2026. 3. 1.');
    await expect(named('생년월일').locator('.field-value').textContent()).resolves.toBe('1995년 3월 15일');
    // In the review before signing.
    const reviewed = await page.locator('#review-list .review-row').evaluateAll((rows) => rows.map((r) => [r.querySelector('.review-label')?.textContent, r.querySelector('.review-value')?.textContent]));
    expect(reviewed).toEqual(expect.arrayContaining([['입사일', '2026. 3. 1.'], ['생년월일', '1995년 3월 15일']]));
    expect(problems).toEqual([]);
  });
});
