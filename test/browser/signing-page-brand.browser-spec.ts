import { Browser, BrowserContext, Page } from 'playwright-core';
import { ANDROID_PHONE, closeContexts, startBrowserApp, callApi } from '../support/browser';
import { solidPngBytes } from '../support/png';
import { bearer, TestApp, TestOrg } from '../support/test-app';

/**
 * The signing page shows the sender's logo (loaded from its own origin under the page's strict
 * CSP, the display name as its alt text) and writes every time in the organization's zone with
 * the zone named: EST for an organization in New York, KST for one in Seoul. A signing_date
 * field previews the day where the organization is, which the server dates it with.
 */


describe('signing page: the sender\'s logo and time zone (browser)', () => {
  let t: TestApp;
  let browser: Browser;
  let origin: string;
  const contexts: BrowserContext[] = [];

  const api = <T = any>(org: TestOrg, method: 'get' | 'post' | 'put' | 'patch', path: string, body?: unknown, status = 200): Promise<T> => callApi<T>(t, bearer(org.test), method, path, body, status);

  /** A document sent to one signer until the end of `expiresOn` in the organization's zone; its token. */
  async function sent(org: TestOrg, expiresOn: string, participant: Record<string, unknown> = { auth: 'none' }): Promise<string> {
    const doc = await api(org, 'post', '/v1/documents', { title: 'Offer letter', content: '<p>Offer</p>' }, 201);
    const p = await api(org, 'post', `/v1/documents/${doc.id}/participants`, { name: 'Jane Kim', ...participant }, 201);
    await api(org, 'put', `/v1/documents/${doc.id}/fields`, {
      fields: [
        { participant_id: p.id, type: 'signature', page: 1, x: 10, y: 20, width: 20, height: 8 },
        { participant_id: p.id, type: 'signing_date', page: 1, x: 10, y: 40, width: 30, height: 4 },
      ],
    });
    const out = await api(org, 'post', `/v1/documents/${doc.id}/send`, { expires_on: expiresOn });
    return (out.participants[0].signing_url as string).split('/sign/')[1];
  }

  /** Opens the link on a phone in Seoul whose clock reads `now`. */
  async function open(token: string, now = '2026-12-02T01:00:00.000Z'): Promise<{ page: Page; problems: string[] }> {
    const context = await browser.newContext({ ...ANDROID_PHONE, timezoneId: 'Asia/Seoul' });
    contexts.push(context);
    await context.clock.setFixedTime(new Date(now));
    await context.route(/\/v1\/signing\/[^/]+\/pages\//, (route) => route.fulfill({ status: 200, contentType: 'image/png', body: solidPngBytes(60, 85, [255, 255, 255, 255]) }));
    const page = await context.newPage();
    const problems: string[] = [];
    page.on('console', (msg) => {
      if (msg.type() === 'error') problems.push(msg.text());
    });
    page.on('pageerror', (err) => problems.push(`pageerror: ${err.message}`));
    await page.goto(`${origin}/sign/${token}`, { waitUntil: 'networkidle' });
    return { page, problems };
  }

  beforeAll(async () => {
    ({ t, browser, origin } = await startBrowserApp({ app: { manualClock: true, worker: { tickIntervalMs: 0 } } }));
    t.clock!.set('2026-12-01T03:00:00.000Z');
  });

  afterEach(() => closeContexts(contexts));

  afterAll(async () => {
    await browser?.close();
    await t?.close();
  });

  it('an organization in New York with a logo: the logo in the header, the deadline in EST', async () => {
    const org = await t.createOrg('Acme Inc.');
    await api(org, 'patch', '/v1/organization', { brand: { display_name: 'Acme', color: '#1a56db' }, time_zone: 'America/New_York' });
    const logo = (await t.http.put('/v1/organization/logo').set(bearer(org.test)).attach('file', solidPngBytes(160, 40, [26, 86, 219, 255]), 'logo.png')).body.brand.logo;
    const token = await sent(org, '2026-12-10');

    const { page, problems } = await open(token);
    const img = page.locator('#sender-logo');
    await img.waitFor({ state: 'visible' });
    expect(await img.getAttribute('alt')).toBe('Acme');
    expect(await img.getAttribute('src')).toBe(new URL(logo.url).pathname);
    // Loaded, under the page's CSP (img-src 'self'): a refused or broken image has no natural size.
    expect(await img.evaluate((el: HTMLImageElement) => [el.complete, el.naturalWidth, el.naturalHeight])).toEqual([true, 160, 40]);
    // The logo stands for the name, which is not shown twice.
    expect(await page.locator('#sender-name').isHidden()).toBe(true);

    // 10 December ends at 23:59 in New York: the page says so, and names the zone.
    await expect(page.locator('#doc-deadline').textContent()).resolves.toBe('2026년 12월 10일 오후 11:59 (EST)');
    // The phone is in Seoul, where it is already 2 December (10:00); in New York it is still
    // 1 December (20:00), the day the server will date the signing_date field: the page says so.
    await expect(page.locator('#field-1 .field-value').textContent()).resolves.toBe('2026년 12월 1일');
    await page.locator('.lang-btn[data-lang="en"]').click();
    await expect(page.locator('#doc-deadline').textContent()).resolves.toBe('December 10, 2026 at 11:59 PM (EST)');
    expect(problems).toEqual([]);
  });

  it('an organization left in Seoul, without a logo: the name in the header, the deadline in KST', async () => {
    const org = await t.createOrg('주식회사 도장');
    const token = await sent(org, '2026-12-10');
    const { page, problems } = await open(token);
    await page.locator('#sender-name').waitFor({ state: 'visible' });
    expect(await page.locator('#sender-name').textContent()).toBe('주식회사 도장');
    expect(await page.locator('#sender-logo').isHidden()).toBe(true);
    await expect(page.locator('#doc-deadline').textContent()).resolves.toBe('2026년 12월 10일 오후 11:59 (KST)');
    await expect(page.locator('#field-1 .field-value').textContent()).resolves.toBe('2026년 12월 2일');
    expect(problems).toEqual([]);
  });

  it('the PIN\'s deadline is in the organization\'s zone too, named', async () => {
    const org = await t.createOrg('Acme Inc.');
    await api(org, 'patch', '/v1/organization', { time_zone: 'America/New_York' });
    const token = await sent(org, '2026-12-10', { auth: 'sms_pin', phone: '01012345678' });
    const { page, problems } = await open(token, '2026-12-01T03:00:00.000Z');
    await page.locator('#send-pin').click();
    // The page turns the server's expiry into its own clock (skew-corrected), then writes it as a
    // New York time with the zone named, though the phone is in Seoul.
    await page.locator('#pin-info', { hasText: '까지' }).waitFor();
    expect(await page.locator('#pin-info').textContent()).toMatch(/오[전후] \d{1,2}:\d{2} \(EST\)까지 입력해 주세요\.$/);
    expect(problems).toEqual([]);
  });
});
