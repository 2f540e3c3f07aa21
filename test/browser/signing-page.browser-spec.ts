import { solidPngBytes } from '../support/png';
import { Browser, BrowserContext, BrowserContextOptions, Page } from 'playwright-core';
import { ANDROID_PHONE, closeContexts, settledImageWidth, startBrowserApp, callApi } from '../support/browser';
import { bearer, TestApp, TestOrg } from '../support/test-app';

/**
 * The signing page in a real browser (Debian's Chromium through playwright-core) against a real
 * in-process app listening on 127.0.0.1. Each test gets a fresh browser context; every page is
 * watched for console errors, uncaught exceptions and CSP violations. Chromium sees no Korean
 * system font: the page's own Noto Sans KR slices draw every Hangul character.
 */

// A hang guard, not a speed check (two cores shared by many runs).
jest.setTimeout(240_000);

const MOBILE: BrowserContextOptions = ANDROID_PHONE;
const DESKTOP: BrowserContextOptions = { viewport: { width: 1280, height: 860 }, locale: 'ko-KR' };
const SCREENSHOT = '/tmp/dojang-signing-page-mobile.png';

const solidPng = (width = 48, height = 48, rgba = [200, 30, 30, 255]) => solidPngBytes(width, height, rgba);

interface ParticipantSpec {
  name: string;
  phone?: string;
  auth?: 'sms_pin' | 'none';
  role?: 'signer' | 'reviewer' | 'cc';
  signing_order?: number;
  fields?: Array<'signature' | 'seal'>;
}

interface Watched {
  page: Page;
  /** Status and content type of each page image (`…/pages/<n>.png`) the page received. */
  images: string[];
  /** Console errors, page errors and CSP violations seen so far, minus the expected HTTP statuses. */
  problems(allowedStatuses?: number[]): Promise<string[]>;
}

describe('signing page (browser)', () => {
  let t: TestApp;
  let org: TestOrg;
  let browser: Browser;
  let origin: string;
  const contexts: BrowserContext[] = [];

  const h = () => bearer(org.test);

  const api = <T = any>(method: 'get' | 'post' | 'put', path: string, body?: unknown, status = 200): Promise<T> => callApi<T>(t, h(), method, path, body, status);

  /** Creates, fills and sends a document; returns its id and each participant's id and page URL. */
  async function sentDocument(title: string, specs: ParticipantSpec[]) {
    const doc = await api('post', '/v1/documents', { title, content: `<p>${title}: 갑과 을은 다음과 같이 계약한다.</p>` }, 201);
    const people: Array<{ id: string; spec: ParticipantSpec }> = [];
    for (const spec of specs) {
      const { fields, ...body } = spec;
      const p = await api('post', `/v1/documents/${doc.id}/participants`, { auth: 'sms_pin', ...body }, 201);
      people.push({ id: p.id, spec });
    }
    const fields = people.flatMap(({ id, spec }, i) =>
      (spec.fields ?? []).map((type, j) => ({ participant_id: id, type, page: 1, x: 10 + j * 30, y: 60 + i * 12, width: 20, height: 8 })),
    );
    await api('put', `/v1/documents/${doc.id}/fields`, { fields });
    const sent = await api('post', `/v1/documents/${doc.id}/send`, {});
    const urlOf = (id: string) => {
      const signingUrl: string = sent.participants.find((p: any) => p.id === id).signing_url;
      return `${origin}/sign/${signingUrl.split('/sign/')[1]}`;
    };
    return { id: doc.id as string, participants: people.map(({ id }) => ({ id, url: urlOf(id) })) };
  }

  async function latestPin(participantId: string): Promise<string> {
    for (let i = 0; i < 50; i++) {
      const out = await api('get', `/v1/outbox?participant_id=${participantId}&channel=sms&limit=10`);
      const msg = out.data.find((m: any) => m.pin);
      if (msg) return msg.pin;
      await new Promise((r) => setTimeout(r, 50));
    }
    throw new Error('no PIN in the outbox');
  }

  async function documentStatus(id: string, expected: string): Promise<string> {
    let status = '';
    for (let i = 0; i < 50; i++) {
      status = (await api('get', `/v1/documents/${id}`)).status;
      if (status === expected) return status;
      await new Promise((r) => setTimeout(r, 50));
    }
    return status;
  }

  /**
   * Opens `url` in a fresh context. Unless `pages` is set, page images are answered with a blank
   * page: rendering them costs the PDF pool, and only the first scenario is about the document itself.
   */
  async function open(url: string, options: BrowserContextOptions, { pages = false } = {}): Promise<Watched> {
    const context = await browser.newContext(options);
    contexts.push(context);
    if (!pages) await context.route(/\/v1\/signing\/[^/]+\/pages\//, (route) => route.fulfill({ status: 200, contentType: 'image/png', body: solidPng(60, 85, [255, 255, 255, 255]) }));
    const page = await context.newPage();
    const seen: string[] = [];
    const images: string[] = [];
    page.on('response', (r) => {
      if (/\/pages\/\d+\.png/.test(r.url())) images.push(`${r.status()} ${r.headers()['content-type']}`);
    });
    page.on('console', (msg) => {
      if (msg.type() === 'error') seen.push(`console: ${msg.text()}`);
    });
    page.on('pageerror', (err) => seen.push(`pageerror: ${err.message}`));
    // CSP violations are also reported as console errors; the event catches them regardless.
    await page.addInitScript(() => {
      const w = window as unknown as { __csp: string[] };
      w.__csp = [];
      document.addEventListener('securitypolicyviolation', (e) => w.__csp.push(`${e.violatedDirective} ${e.blockedURI}`));
    });
    // The page renders after its first fetch of the signing view: wait for the network to settle.
    await page.goto(url, { waitUntil: 'networkidle' });
    return {
      page,
      images,
      async problems(allowedStatuses: number[] = []) {
        const csp = await page.evaluate(() => (window as unknown as { __csp: string[] }).__csp).catch(() => [] as string[]);
        const allowed = (s: string) => allowedStatuses.some((code) => s.includes(`Failed to load resource: the server responded with a status of ${code}`));
        return [...seen.filter((s) => !allowed(s)), ...csp.map((c) => `csp: ${c}`)];
      },
    };
  }

  async function drawSignature(page: Page) {
    const canvas = page.locator('#signature-canvas');
    await canvas.scrollIntoViewIfNeeded();
    const box = await canvas.boundingBox();
    if (!box) throw new Error('no signature canvas');
    const at = (fx: number, fy: number) => [box.x + box.width * fx, box.y + box.height * fy] as const;
    await page.mouse.move(...at(0.15, 0.6));
    await page.mouse.down();
    for (let i = 1; i <= 12; i++) await page.mouse.move(...at(0.15 + i * 0.06, 0.55 - 0.25 * Math.sin(i / 1.25)), { steps: 2 });
    await page.mouse.up();
  }

  beforeAll(async () => {
    ({ t, browser, origin } = await startBrowserApp({ latinOnlyFonts: true }));
    org = await t.createOrg();
  });

  afterEach(() => closeContexts(contexts));

  afterAll(async () => {
    await browser?.close();
    await t?.close();
  });

  it('serves the page under a strict CSP', async () => {
    const { participants } = await sentDocument('CSP 확인', [{ name: '검사', auth: 'none', fields: ['signature'] }]);
    const res = await fetch(participants[0].url);
    expect(res.status).toBe(200);
    const csp = res.headers.get('content-security-policy') ?? '';
    expect(csp).toContain("script-src 'self'");
    expect(csp).toContain("style-src 'self'");
    const html = await res.text();
    expect(html).not.toMatch(/<script(?![^>]*\bsrc=)[^>]*>/i);
    expect(html).not.toMatch(/\sstyle=/i);
    expect(html).not.toMatch(/\son[a-z]+=/i);
    for (const asset of ['main.js', 'states.js', 'styles.css', 'signature_pad.js', 'fonts/fonts.css']) {
      expect((await fetch(`${origin}/sign/assets/${asset}`)).status).toBe(200);
    }
  });

  it('asks for the session once, from the start, and for page 2 only once page 1 is there', async () => {
    // Four pages of clauses: page 2 is within the browser's lazy-load distance, so it would load at once.
    const content = Array.from({ length: 60 }, (_, i) => `<p>제${i + 1}조 갑과 을은 성실히 계약을 이행한다. 근로시간, 임금, 휴일은 근로기준법에 따른다.</p>`).join('');
    const doc = await api('post', '/v1/documents', { title: '네 쪽 계약서', content }, 201);
    const p = await api('post', `/v1/documents/${doc.id}/participants`, { name: '순서', auth: 'none' }, 201);
    await api('put', `/v1/documents/${doc.id}/fields`, { fields: [{ participant_id: p.id, type: 'signature', page: 1, x: 10, y: 80, width: 20, height: 8 }] });
    const sent = await api('post', `/v1/documents/${doc.id}/send`, {});
    const token: string = sent.participants[0].signing_url.split('/sign/')[1];

    const context = await browser.newContext(MOBILE);
    contexts.push(context);
    const events: string[] = [];
    // Page 1 answers slowly (a phone's link): page 2 must not be asked for meanwhile.
    await context.route(/\/v1\/signing\/[^/]+\/pages\//, async (route) => {
      const n = /\/pages\/(\d+)\.png/.exec(route.request().url())![1];
      events.push(`asked ${n}`);
      if (n === '1') await new Promise((r) => setTimeout(r, 1500));
      events.push(`answered ${n}`);
      await route.fulfill({ status: 200, contentType: 'image/png', body: solidPng(60, 85, [255, 255, 255, 255]) });
    });
    const page = await context.newPage();
    const sessionGets: string[] = [];
    page.on('request', (r) => {
      if (r.method() === 'GET' && new URL(r.url()).pathname === `/v1/signing/${token}`) sessionGets.push(r.url());
    });
    await page.goto(`${origin}/sign/${token}`, { waitUntil: 'networkidle' });
    expect(await settledImageWidth(page, '#pages .page-img', 1)).toBeGreaterThan(0);

    // early-session.js started it; api.js took that answer instead of asking again.
    expect(sessionGets).toHaveLength(1);
    expect(events.indexOf('asked 2')).toBeGreaterThan(events.indexOf('answered 1'));
    expect(events.filter((e) => e === 'asked 1')).toHaveLength(1);
  });

  it('isolates what people wrote: a bidi override in a title cannot reverse the text after it (issue 24, item 18); names refuse one (issue 33 §14)', async () => {
    // Since issue 33 a participant's name cannot hold a bidi control at all (it reaches SMS and
    // e-mail, where nothing isolates it); the page still sets every name in its own <bdi>.
    const draft = await api('post', '/v1/documents', { title: '초안', content: '<p>초안</p>' }, 201);
    const refused = await api('post', `/v1/documents/${draft.id}/participants`, { name: 'Signer\u202e', auth: 'none' }, 400);
    expect(refused.error).toMatchObject({ code: 'invalid_parameter', param: 'name' });
    const { participants } = await sentDocument('\u202egnp.exe', [{ name: 'שרה כהן', auth: 'none', fields: ['signature'] }]);
    const { page } = await open(participants[0].url, DESKTOP);
    await expect(page.locator('#doc-participant bdi').textContent()).resolves.toBe('שרה כהן');
    // A right-to-left name does not pull the role after it into its direction: "(" before ")".
    const parens = await page.evaluate(() => {
      const bdi = document.querySelector('#doc-participant bdi') as HTMLElement;
      const text = bdi.nextSibling as Text;
      const at = (ch: string) => {
        const range = document.createRange();
        const i = text.data.indexOf(ch);
        range.setStart(text, i);
        range.setEnd(text, i + 1);
        return range.getBoundingClientRect().left;
      };
      return { open: at('('), close: at(')'), name: bdi.getBoundingClientRect().right };
    });
    expect(parens.open).toBeLessThan(parens.close);
    expect(parens.open).toBeGreaterThanOrEqual(parens.name - 1);
    expect(await page.evaluate(() => getComputedStyle(document.getElementById('doc-title') as HTMLElement).unicodeBidi)).toBe('isolate');
    expect(await page.title()).toBe('\u2068\u202egnp.exe\u2069 – Dojang 전자서명');
  });

  it('sms_pin signer signs on a phone; the second signer waits, then signs and completes the document', async () => {
    const doc = await sentDocument('근로계약서', [
      { name: '김철수', phone: '01012345678', signing_order: 1, fields: ['signature'] },
      { name: '이영희', auth: 'none', signing_order: 2, fields: ['signature', 'seal'] },
    ]);
    const [first, second] = doc.participants;

    // The second signer opens early: not their turn yet.
    const b = await open(second.url, DESKTOP, { pages: true });
    await b.page.locator('#notice-title').getByText('앞 순서 서명자를 기다리는 중').waitFor();
    expect(await b.page.locator('#sign-step').isHidden()).toBe(true);
    // The document as page images, readable while waiting; the signer's fields shown but inert.
    const firstImage = b.page.locator('#pages img').first();
    expect(await firstImage.getAttribute('src')).toMatch(new RegExp(`^/v1/signing/${second.url.split('/sign/')[1]}/pages/1\\.png\\?w=480&v=[0-9a-f]{16}$`));
    expect(await b.page.locator('#pages .field-own').count()).toBe(2);
    // Marks, not controls: nothing on the page image takes a tap or the focus while waiting.
    expect(await b.page.locator('#pages .field-own.field-disabled').count()).toBe(2);
    expect(await b.page.locator('#pages .field-own button, #pages .field-own input, #pages .field-own[tabindex]').count()).toBe(0);
    // The first signer's field is on the page too, in its colour, and nothing to press.
    expect(await b.page.locator('#pages .field-other.field-p0').count()).toBe(1);
    const waitingSrc = await firstImage.getAttribute('src');

    // The first signer, on a 390 px phone.
    const a = await open(first.url, MOBILE, { pages: true });
    const pa = a.page;
    await expect(pa.locator('#doc-title').textContent()).resolves.toBe('근로계약서');
    await expect(pa.locator('#doc-status').textContent()).resolves.toBe('서명 진행 중');
    await expect(pa.locator('#doc-participant').textContent()).resolves.toContain('김철수');
    await expect(pa.locator('#pin-intro').textContent()).resolves.toContain('010-****-5678');
    expect(await pa.locator('#open-pdf').getAttribute('href')).toMatch(/^\/v1\/signing\/[A-Za-z0-9_-]+\/file$/);
    // The first page image arrives (rendered by the server, as WebP: Chromium's Accept names it)
    // and shows; the signer's field is on it.
    expect(await settledImageWidth(pa, '#pages img')).toBeGreaterThan(0);
    expect(a.images[0]).toBe('200 image/webp');
    const field = pa.locator('#pages .field-own.field-signature');
    expect(await field.count()).toBe(1);
    const pageBox = (await pa.locator('#pages .page').first().boundingBox())!;
    const fieldBox = (await field.boundingBox())!;
    // x 10 %, y 60 %, 20 % × 8 % of the page (see sentDocument).
    expect((fieldBox.x - pageBox.x) / pageBox.width).toBeCloseTo(0.1, 1);
    expect((fieldBox.y - pageBox.y) / pageBox.height).toBeCloseTo(0.6, 1);
    expect(fieldBox.width / pageBox.width).toBeCloseTo(0.2, 1);
    // Nothing overflows the phone's width.
    expect(await pa.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);

    await pa.click('#send-pin');
    await pa.locator('#pin-info').getByText('010-****-5678').waitFor();
    await expect(pa.locator('#send-pin').textContent()).resolves.toMatch(/다시 받기 \(\d+초\)/);
    expect(await pa.locator('#send-pin').isDisabled()).toBe(true);
    const input = pa.locator('#pin-input');
    expect(await input.getAttribute('inputmode')).toBe('numeric');
    expect(await input.getAttribute('autocomplete')).toBe('one-time-code');
    await input.fill(await latestPin(first.id));
    await pa.click('#verify-pin');
    await pa.locator('#sign-step').waitFor();
    expect(await pa.locator('#pin-step').isHidden()).toBe(true);

    const signBtn = pa.locator('#sign-btn');
    expect(await signBtn.isDisabled()).toBe(true);
    // "Next field" goes to the signature pad (the only field is the signature); so does a tap on
    // the signature's mark on the page.
    await expect(pa.locator('#next-field').textContent()).resolves.toBe('다음 입력 칸 (1개 남음)');
    await pa.click('#next-field');
    await pa.waitForFunction(() => document.activeElement?.id === 'signature-canvas');
    await pa.locator('#consent').focus();
    await expect(field.getAttribute('data-label')).resolves.toBe('1쪽 서명 칸');
    await expect(field.getAttribute('data-state')).resolves.toBe('empty');
    await field.tap();
    await pa.waitForFunction(() => document.activeElement?.id === 'signature-canvas');
    await drawSignature(pa);
    await expect(field.getAttribute('class')).resolves.toContain('field-filled');
    await expect(pa.locator('#next-field').textContent()).resolves.toBe('모든 칸 입력 완료');
    expect(await signBtn.isDisabled()).toBe(true); // consent still missing
    // The backing store follows devicePixelRatio (3 here) and the canvas size, and a resize (a
    // narrower 375 px phone) keeps the strokes already drawn.
    const canvasState = () =>
      pa.evaluate(() => {
        const c = document.getElementById('signature-canvas') as HTMLCanvasElement;
        const px = c.getContext('2d')!.getImageData(0, 0, c.width, c.height).data;
        let ink = 0;
        for (let i = 3; i < px.length; i += 4) if (px[i]) ink++;
        return { width: c.width, css: c.offsetWidth, ink, pageWidth: document.documentElement.scrollWidth };
      });
    const before = await canvasState();
    expect(before.width).toBe(Math.round(before.css * 3));
    expect(before.ink).toBeGreaterThan(0);
    await pa.setViewportSize({ width: 375, height: 812 });
    await pa.waitForFunction((w) => (document.getElementById('signature-canvas') as HTMLCanvasElement).width !== w, before.width);
    const after = await canvasState();
    expect(after.css).toBeLessThan(before.css);
    expect(after.width).toBe(Math.round(after.css * 3));
    expect(after.ink).toBeGreaterThan(0);
    expect(after.pageWidth).toBeLessThanOrEqual(375);
    await pa.check('#consent');
    expect(await signBtn.isEnabled()).toBe(true);
    await pa.screenshot({ path: SCREENSHOT, fullPage: true, scale: 'css' });
    await signBtn.click();
    await pa.locator('#notice-title').getByText('서명 완료').waitFor();
    await expect(pa.locator('#notice-text').textContent()).resolves.toContain('다른 참여자의 서명이 끝나면');
    expect(await pa.locator('#sign-step').isHidden()).toBe(true);
    expect(await documentStatus(doc.id, 'sent')).toBe('sent');

    // Now the second signer's turn: "check again" brings up the signing step (auth none: no PIN).
    await b.page.click('#check-again');
    await b.page.locator('#sign-step').waitFor();
    await drawSignature(b.page);
    await b.page.click('#seal-mode-uploaded');
    await b.page.setInputFiles('#seal-file', { name: 'seal.png', mimeType: 'image/png', buffer: solidPng() });
    await b.page.locator('#seal-preview-wrap').waitFor();
    expect(await b.page.locator('#sign-btn').isDisabled()).toBe(true);
    await b.page.check('#consent');
    await b.page.click('#sign-btn');
    await b.page.locator('#notice-title').getByText('서명 완료: 모든 서명이 끝났습니다').waitFor();
    await expect(b.page.locator('#notice-text').textContent()).resolves.toBe('서명이 완료된 문서를 내려받아 보관해 주세요.');
    // No "read before signing" once it is all signed; the signed PDF is offered for download.
    await expect(b.page.locator('#read-hint').textContent()).resolves.toBe('모든 참여자가 서명한 최종 문서입니다.');
    expect(await b.page.locator('#download-final').getAttribute('href')).toMatch(/\/v1\/signing\/[A-Za-z0-9_-]+\/file\?v=final$/);
    expect(await b.page.locator('#download-final').getAttribute('download')).toBe('');
    await expect(b.page.locator('#doc-status').textContent()).resolves.toBe('완료');
    // The pages now show the signed PDF, under its own version.
    const finalSrc = await b.page.locator('#pages img').first().getAttribute('src');
    expect(finalSrc).not.toBe(waitingSrc);
    expect(await settledImageWidth(b.page, '#pages img')).toBeGreaterThan(0);
    expect(await b.page.locator('#open-pdf').getAttribute('href')).toMatch(/\/file\?v=final$/);

    expect(await documentStatus(doc.id, 'completed')).toBe('completed');
    // Reopening the first link after completion shows the completed state.
    await pa.reload({ waitUntil: 'networkidle' });
    await pa.locator('#notice-title').getByText('모든 서명이 완료되었습니다').waitFor();
    expect(await pa.locator('#read-hint').textContent()).not.toContain('서명하기 전에');
    expect(await pa.locator('#download-final').isVisible()).toBe(true);

    expect(await a.problems()).toEqual([]);
    expect(await b.problems()).toEqual([]);
  });

  it('a wrong PIN shows the attempts left; a reload during the resend cooldown says when, in Korean only', async () => {
    const doc = await sentDocument('비밀유지계약서', [{ name: '박민수', phone: '01098765432', fields: ['signature'] }]);
    const [p] = doc.participants;
    const w = await open(p.url, MOBILE);
    const page = w.page;
    await page.click('#send-pin');
    await page.locator('#pin-form').waitFor();
    const pin = await latestPin(p.id);
    const wrong = String((Number(pin) + 1) % 1_000_000).padStart(6, '0');
    await page.fill('#pin-input', wrong);
    await page.click('#verify-pin');
    const error = page.locator('#pin-error');
    await error.getByText('남은 시도 횟수: 4회').waitFor();
    // One language at a time: the server's English message is not printed under the Korean one.
    await expect(error.textContent()).resolves.not.toContain('The PIN is not correct');
    expect(await page.locator('#pin-input').getAttribute('aria-invalid')).toBe('true');

    // A reload forgets the PIN was sent; asking again within the cooldown is a 429 whose message is shown,
    // and the PIN box appears so the PIN already received can still be entered.
    await page.reload({ waitUntil: 'networkidle' });
    await page.click('#send-pin');
    await error.getByText(/초 후에 인증번호를 다시 받을 수 있습니다/).waitFor();
    await expect(error.textContent()).resolves.not.toMatch(/A new PIN can be requested/);
    await page.fill('#pin-input', pin);
    await page.click('#verify-pin');
    await page.locator('#sign-step').waitFor();
    expect(await error.isHidden()).toBe(true);

    expect(await w.problems([400, 429])).toEqual([]);
  });

  it('declining with a reason declines the document; the link is inactive afterwards', async () => {
    const doc = await sentDocument('용역계약서', [{ name: '최지우', auth: 'none', fields: ['signature'] }]);
    const w = await open(doc.participants[0].url, DESKTOP);
    const page = w.page;
    await page.locator('#sign-step').waitFor();
    await page.click('#decline-open');
    expect(await page.locator('#decline-confirm').isDisabled()).toBe(true);
    await page.fill('#decline-reason', '계약 조건이 협의된 내용과 다릅니다.');
    await page.click('#decline-confirm');
    await page.locator('#notice-title').getByText('서명을 거부했습니다').waitFor();
    await expect(page.locator('#doc-status').textContent()).resolves.toBe('거부됨');
    expect(await page.locator('#sign-step').isHidden()).toBe(true);
    expect(await page.locator('#document').isHidden()).toBe(true);
    expect(await documentStatus(doc.id, 'declined')).toBe('declined');

    await page.reload({ waitUntil: 'networkidle' });
    await page.locator('#fatal-title').getByText('서명이 거부된 문서입니다').waitFor();
    // In Korean only: the server's English reason ("This signing request was declined; …") is not added.
    await expect(page.locator('#fatal').textContent()).resolves.not.toContain('declined');
    expect(await w.problems([410])).toEqual([]);
  });

  it('a canceled document and an unknown token show friendly inactive / invalid messages', async () => {
    const doc = await sentDocument('취소될 계약서', [{ name: '정하늘', auth: 'none', fields: ['signature'] }]);
    await api('post', `/v1/documents/${doc.id}/cancel`);
    const w = await open(doc.participants[0].url, MOBILE);
    await w.page.locator('#fatal-title').getByText('서명 요청이 취소되었습니다').waitFor();
    await expect(w.page.locator('#fatal').textContent()).resolves.not.toContain('This signing request was canceled');
    expect(await w.page.locator('#content').isHidden()).toBe(true);

    await w.page.goto(`${origin}/sign/${'x'.repeat(43)}`);
    await w.page.locator('#fatal-title').getByText('유효하지 않은 링크입니다').waitFor();
    await expect(w.page.locator('#fatal').textContent()).resolves.not.toContain('This signing link is not valid.');
    expect(await w.problems([404, 410])).toEqual([]);
  });

  it('switches between Korean and English; English browsers start in English; cc has nothing to sign; a reviewer approves', async () => {
    const doc = await sentDocument('Lease agreement 임대차계약서', [
      { name: '한지민', phone: '01055556666', fields: ['signature'] },
      { name: 'Observer', auth: 'none', role: 'cc' },
      { name: 'Reviewer', auth: 'none', role: 'reviewer' },
    ]);
    const [signer, cc, reviewer] = doc.participants;
    const w = await open(signer.url, DESKTOP);
    const page = w.page;
    await page.locator('#send-pin').getByText('인증번호 받기').waitFor();
    expect(await page.getAttribute('html', 'lang')).toBe('ko');
    await expect(page.locator('#document-heading').textContent()).resolves.toBe('문서 확인');

    await page.click('.lang-btn[data-lang="en"]');
    await expect(page.locator('#send-pin').textContent()).resolves.toBe('Send PIN');
    await expect(page.locator('#document-heading').textContent()).resolves.toBe('Read the document');
    await expect(page.locator('#pin-heading').textContent()).resolves.toBe('Verify it’s you');
    await expect(page.locator('#doc-status').textContent()).resolves.toBe('Awaiting signatures');
    await expect(page.locator('#open-pdf').textContent()).resolves.toBe('Open PDF');
    await expect(page.locator('label[for="consent"]').textContent()).resolves.toBe('I agree to sign electronically');
    expect(await page.getAttribute('html', 'lang')).toBe('en');
    expect(await page.getAttribute('.lang-btn[data-lang="en"]', 'aria-pressed')).toBe('true');
    // The title people wrote sits between bidi isolates (FSI … PDI) in the tab title.
    expect(await page.title()).toBe('\u2068Lease agreement 임대차계약서\u2069 – Dojang e-Signature');

    await page.click('.lang-btn[data-lang="ko"]');
    await expect(page.locator('#send-pin').textContent()).resolves.toBe('인증번호 받기');

    // A browser that prefers English starts in English; the cc participant sees the copy notice.
    const e = await open(cc.url, { ...DESKTOP, locale: 'en-US' });
    await e.page.locator('#notice-title').getByText('Copy for your information').waitFor();
    expect(await e.page.locator('#sign-step').isHidden()).toBe(true);
    expect(await e.page.locator('#pin-step').isHidden()).toBe(true);
    await expect(e.page.locator('#doc-participant').textContent()).resolves.toBe('Observer (CC)');

    // A reviewer has no fields: consent alone enables Approve.
    const r = await open(reviewer.url, { ...DESKTOP, locale: 'en-US' });
    await r.page.locator('#sign-heading').getByText('Review and approve').waitFor();
    expect(await r.page.locator('#signature-block').isHidden()).toBe(true);
    expect(await r.page.locator('#sign-btn').isDisabled()).toBe(true);
    await r.page.check('#consent');
    await r.page.click('#sign-btn');
    await r.page.locator('#notice-title').getByText('Signed').waitFor();

    expect(await w.problems()).toEqual([]);
    expect(await e.problems()).toEqual([]);
    expect(await r.problems()).toEqual([]);
  });
});
