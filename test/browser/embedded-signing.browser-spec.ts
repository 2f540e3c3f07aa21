import * as http from 'http';
import { AddressInfo } from 'net';
import { Browser, BrowserContext, Frame, Page } from 'playwright-core';
import { closeContexts, startBrowserApp, callApi } from '../support/browser';
import { bearer, TestApp, TestOrg } from '../support/test-app';

/**
 * Embedded signing in Chromium: a sender's page on another local origin (a second loopback port)
 * frames the signing page. The organization's embed origins decide whether the browser renders it
 * (CSP frame-ancestors); after approving inside the frame, the signer lands on the participant's
 * redirect_url with the outcome.
 */


const REDIRECT = 'https://app.example/signing/done?ref=42';

describe('embedded signing (browser)', () => {
  let t: TestApp;
  let browser: Browser;
  let origin: string;
  let host: http.Server;
  let hostPort: number;
  const contexts: BrowserContext[] = [];

  const api = <T = any>(org: TestOrg, method: 'get' | 'post' | 'put', path: string, body?: unknown, status = 200): Promise<T> => callApi<T>(t, bearer(org.test), method, path, body, status);

  /** A sent document whose reviewer (no field to fill: consent alone) has a redirect_url. */
  async function reviewerLink(org: TestOrg) {
    const doc = await api(org, 'post', '/v1/documents', { title: '임베드 계약서', content: '<p>임베드 서명</p>' }, 201);
    const reviewer = await api(org, 'post', `/v1/documents/${doc.id}/participants`, { name: '검토자', role: 'reviewer', auth: 'none', redirect_url: REDIRECT }, 201);
    const signer = await api(org, 'post', `/v1/documents/${doc.id}/participants`, { name: '서명자', auth: 'none' }, 201);
    await api(org, 'put', `/v1/documents/${doc.id}/fields`, { fields: [{ participant_id: signer.id, type: 'signature', page: 1, x: 10, y: 60, width: 20, height: 8 }] });
    const sent = await api(org, 'post', `/v1/documents/${doc.id}/send`, {});
    const url: string = sent.participants.find((p: any) => p.id === reviewer.id).signing_url;
    return { documentId: doc.id as string, participantId: reviewer.id as string, token: url.split('/sign/')[1], path: `/sign/${url.split('/sign/')[1]}` };
  }

  /** Opens the sender's page, which frames `path` of the app, from `hostOrigin`. */
  async function framed(hostOrigin: string, path: string): Promise<{ page: Page; violations: () => Promise<string[]> }> {
    const context = await browser.newContext({ viewport: { width: 1100, height: 900 }, locale: 'ko-KR' });
    contexts.push(context);
    await context.route(/\/v1\/signing\/[^/]+\/file(\?|$)/, (route) => route.fulfill({ status: 200, contentType: 'text/plain', body: '' }));
    await context.route('https://app.example/**', (route) => route.fulfill({ status: 200, contentType: 'text/html', body: '<!doctype html><title>done</title><h1>back at the sender</h1>' }));
    const page = await context.newPage();
    const blocked: string[] = [];
    page.on('console', (msg) => {
      if (/frame-ancestors|Refused to frame|X-Frame-Options/i.test(msg.text())) blocked.push(msg.text());
    });
    await page.goto(`${hostOrigin}/embed?src=${encodeURIComponent(`${origin}${path}`)}`, { waitUntil: 'load' });
    return { page, violations: async () => blocked };
  }

  const signingFrame = (page: Page): Frame | undefined => page.frames().find((f) => f !== page.mainFrame());

  beforeAll(async () => {
    host = http.createServer((req, res) => {
      const src = new URL(req.url ?? '/', 'http://x').searchParams.get('src') ?? '';
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
      res.end(`<!doctype html><title>sender</title><h1>Sender app</h1><iframe id="signing" src="${src.replace(/"/g, '&quot;')}" width="1000" height="800"></iframe>`);
    });
    await new Promise<void>((resolve) => host.listen(0, '127.0.0.1', resolve));
    hostPort = (host.address() as AddressInfo).port;
    ({ t, browser, origin } = await startBrowserApp());
  });

  afterEach(() => closeContexts(contexts));

  afterAll(async () => {
    await browser?.close();
    await t?.close();
    await new Promise((resolve) => host?.close(resolve));
  });

  it('an allowed origin frames the page; approving in the frame lands on redirect_url with the outcome', async () => {
    const org = await t.createOrg();
    const hostOrigin = `http://127.0.0.1:${hostPort}`;
    // What `dojang org settings --org ID --embed-origin …` runs.
    const settings = await t.admin.changeSettings(org.id, { embed_origins: [hostOrigin, 'https://app.example'] });
    expect(settings.settings.embed_origins).toEqual([hostOrigin, 'https://app.example']);
    const link = await reviewerLink(org);

    const res = await fetch(`${origin}${link.path}`);
    expect(res.headers.get('content-security-policy')).toContain(`frame-ancestors ${hostOrigin} https://app.example`);
    expect(res.headers.get('x-frame-options')).toBeNull();

    const { page, violations } = await framed(hostOrigin, link.path);
    const frame = signingFrame(page)!;
    await frame.locator('#doc-title').getByText('임베드 계약서').waitFor();
    await frame.check('#consent');
    await frame.click('#sign-btn');
    await frame.waitForURL(/^https:\/\/app\.example\//);
    const landed = new URL(frame.url());
    expect(`${landed.origin}${landed.pathname}`).toBe('https://app.example/signing/done');
    expect(Object.fromEntries(landed.searchParams)).toEqual({ ref: '42', dojang_event: 'signed', document_id: link.documentId, participant_id: link.participantId });
    expect(frame.url()).not.toContain(link.token);
    expect(page.url()).toContain(`${hostOrigin}/embed`);
    expect(await violations()).toEqual([]);
    const doc = await api(org, 'get', `/v1/documents/${link.documentId}`);
    expect(doc.participants.find((p: any) => p.id === link.participantId)).toMatchObject({ status: 'signed', redirect_url: REDIRECT });
  });

  it('declining at top level also lands on redirect_url, with dojang_event=declined', async () => {
    const org = await t.createOrg();
    const link = await reviewerLink(org);
    const context = await browser.newContext({ viewport: { width: 1100, height: 900 }, locale: 'ko-KR' });
    contexts.push(context);
    await context.route(/\/v1\/signing\/[^/]+\/file(\?|$)/, (route) => route.fulfill({ status: 200, contentType: 'text/plain', body: '' }));
    await context.route('https://app.example/**', (route) => route.fulfill({ status: 200, contentType: 'text/html', body: '<!doctype html><title>done</title>' }));
    const page = await context.newPage();
    await page.goto(`${origin}${link.path}`, { waitUntil: 'networkidle' });
    await page.click('#decline-open');
    await page.fill('#decline-reason', '조건이 맞지 않습니다');
    await page.click('#decline-form button[type="submit"]');
    await page.waitForURL(/^https:\/\/app\.example\//);
    const landed = new URL(page.url());
    expect(Object.fromEntries(landed.searchParams)).toEqual({ ref: '42', dojang_event: 'declined', document_id: link.documentId, participant_id: link.participantId });
    expect(page.url()).not.toContain(link.token);
  });

  it('by default nobody may frame the page, and a listed origin is exact', async () => {
    const plain = await t.createOrg();
    const link = await reviewerLink(plain);
    const res = await fetch(`${origin}${link.path}`);
    expect(res.headers.get('content-security-policy')).toContain("frame-ancestors 'none'");
    expect(res.headers.get('x-frame-options')).toBe('DENY');

    const blocked = await framed(`http://127.0.0.1:${hostPort}`, link.path);
    await expectBlocked(blocked.page);
    expect((await blocked.violations()).join('\n')).toMatch(/frame-ancestors/);

    // Allowed for 127.0.0.1:port, framed from localhost:port: another origin, refused too.
    const org = await t.createOrg();
    await t.admin.changeSettings(org.id, { embed_origins: [`http://127.0.0.1:${hostPort}`] });
    const other = await reviewerLink(org);
    const elsewhere = await framed(`http://localhost:${hostPort}`, other.path);
    await expectBlocked(elsewhere.page);
  });

  /** The frame never shows the signing page: Chromium puts its error page there instead. */
  async function expectBlocked(page: Page) {
    const frame = signingFrame(page)!;
    await frame.waitForLoadState('load').catch(() => undefined);
    for (let i = 0; i < 40 && frame.url() === 'about:blank'; i++) await new Promise((r) => setTimeout(r, 50));
    expect(frame.url()).not.toContain('/sign/');
    expect(await frame.locator('#doc-title').count()).toBe(0);
  }

  it('redirect_url must be https', async () => {
    const org = await t.createOrg();
    const doc = await api(org, 'post', '/v1/documents', { title: '검증', content: '<p>x</p>' }, 201);
    for (const redirect_url of ['http://app.example/done', 'javascript:alert(1)', 'app.example/done', 'https://user:pw@app.example/']) {
      const res = await t.http.post(`/v1/documents/${doc.id}/participants`).set(bearer(org.test)).send({ name: '갑', auth: 'none', redirect_url });
      expect(res.status).toBe(400);
      expect(res.body.error).toMatchObject({ code: 'invalid_parameter', param: 'redirect_url' });
    }
    await expect(t.admin.changeSettings(org.id, { embed_origins: ['http://app.example'] })).rejects.toMatchObject({ code: 'invalid_parameter' });
  });
});
