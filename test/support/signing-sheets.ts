import * as fs from 'fs';
import * as path from 'path';
import { Browser, BrowserContextOptions, Page, Request } from 'playwright-core';
import { FIELD_TYPES } from '@dojang/domain';
import { ANDROID_PHONE, axeViolations } from './browser';
import { solidPngBytes } from './png';
import { bearer, TestApp, TestOrg } from './test-app';

/**
 * Issue 30's "done when" (signing-page-sheets.browser-spec.ts), against the real server:
 * at 360×780 with an Android user agent and no Korean system font, a signer fills a two-part
 * contract with every field type through the bottom sheets only, reloads half-way (attachment
 * uploaded) and finishes without entering anything again, makes a seal from "곽뙇희", reviews and
 * signs. axe (target-size included) finds nothing in each state, and every interactive target is
 * at least 44×44 CSS px. Screenshots go to test-artifacts/<dir>/.
 */

export const PHONE_360: BrowserContextOptions = { ...ANDROID_PHONE, viewport: { width: 360, height: 780 } };
export const SIGNER = '곽뙇희';

const CONTRACT = '<h2>근로계약서</h2><p>주식회사 똠방(이하 "회사")과 근로자는 다음과 같이 근로계약을 체결한다.</p><p>제1조 근무 장소: 서울</p><p>제2조 임금: 월급 또는 주급</p>';
const CONSENT = '<h2>개인정보 수집·이용 동의서</h2><p>회사는 근로계약의 이행을 위하여 근로자의 개인정보를 수집·이용합니다.</p>';
export const ADDRESS = '서울특별시 종로구 똠방각하길 123, 뷁뷁아파트 101동 1001호 (쀍괆동) — 우편물은 관리사무소 경유';

export interface SheetsContract {
  docId: string;
  token: string;
  link: string;
  fields: any[];
  id: (label: string, option?: string) => string;
  parts: { html: string; title: string }[];
}

export async function makeContract(t: TestApp, org: TestOrg, origin: string): Promise<SheetsContract> {
  const call = async (method: 'post' | 'put', p: string, body: object, status: number) => {
    const res = await t.http[method](p).set(bearer(org.test)).send(body);
    if (res.status !== status) throw new Error(`${method} ${p}: ${res.status} ${JSON.stringify(res.body)}`);
    return res.body;
  };
  const doc = await call('post', '/v1/documents', { title: '근로계약서 · 똠방', parts: [{ content: CONTRACT }, { title: '개인정보 수집·이용 동의서', content: CONSENT }] }, 201);
  const me = await call('post', `/v1/documents/${doc.id}/participants`, { name: SIGNER, email: 'kwak@example.com', phone: '01012345678', auth: 'none' }, 201);
  // Each part is one page, and the API numbers pages across the whole document: part n is page n + 1.
  const box = (part: number, x: number, y: number, width = 36, height = 4) => ({ participant_id: me.id, part, page: part + 1, x, y, width, height });
  const fields = [
    { type: 'text', label: '주소', required: true, max_length: 200, ...box(0, 8, 30) },
    { type: 'number', label: '월 급여', min: 0, max: 100_000_000, required: true, ...box(0, 52, 30) },
    { type: 'date', label: '입사일', required: true, ...box(0, 8, 36) },
    { type: 'dropdown', label: '근무 형태', options: ['정규직', '계약직'], required: true, ...box(0, 52, 36) },
    { type: 'radio', label: '임금 형태', group: 'pay', option: '월급', required: true, ...box(0, 8, 42, 3, 2) },
    { type: 'radio', label: '임금 형태', group: 'pay', option: '주급', required: true, ...box(0, 18, 42, 3, 2) },
    { type: 'initials', label: '이니셜', required: true, ...box(0, 52, 42, 14) },
    { type: 'name', ...box(0, 8, 50) },
    { type: 'email', ...box(0, 52, 50) },
    { type: 'phone', ...box(0, 8, 56) },
    { type: 'signing_date', ...box(0, 52, 56) },
    { type: 'signature', ...box(0, 8, 64, 36, 9) },
    { type: 'checkbox', label: '개인정보 수집·이용 동의', required: true, ...box(1, 8, 30, 3, 2) },
    { type: 'checkbox', label: '마케팅 SMS', group: 'marketing', max_checked: 2, ...box(1, 20, 30, 3, 2) },
    { type: 'checkbox', label: '마케팅 이메일', group: 'marketing', ...box(1, 32, 30, 3, 2) },
    { type: 'text', label: '특이사항', multiline: true, ...box(1, 8, 38, 80, 8) },
    { type: 'attachment', label: '신분증 사본', required: true, accept: ['png', 'jpeg'], max_bytes: 200_000, ...box(1, 8, 50, 50, 5) },
    { type: 'seal', ...box(1, 62, 58, 14, 8) },
  ];
  const placed = (await call('put', `/v1/documents/${doc.id}/fields`, { fields }, 200)).data as any[];
  if (new Set(placed.map((f) => f.type)).size !== FIELD_TYPES.length) throw new Error('the contract must have every field type');
  const sent = await call('post', `/v1/documents/${doc.id}/send`, {}, 200);
  const token = sent.participants[0].signing_url.split('/sign/')[1] as string;
  return {
    docId: doc.id,
    token,
    link: `${origin}/sign/${token}`,
    fields: placed,
    id: (label, option) => placed.find((f) => f.label === label && (option === undefined || f.option === option)).id,
    parts: [
      { title: '근로계약서 · 똠방', html: CONTRACT },
      { title: '개인정보 수집·이용 동의서', html: CONSENT },
    ],
  };
}

/** Every visible button, link, field and labelled choice: its box, which must be ≥ 44×44. */
export async function smallTargets(page: Page): Promise<string[]> {
  return page.evaluate(() => {
    const out: string[] = [];
    const els = Array.from(document.querySelectorAll('button, a[href], input, select, textarea, label.file-label, label.choice, label.consent'));
    for (const el of els) {
      const h = el as HTMLElement;
      if (h.closest('[hidden]') || !h.offsetParent || h.classList.contains('skip-link')) continue;
      // A checkbox or radio button inside a large label: the label is the target a finger hits.
      const target = (el as HTMLInputElement).type === 'checkbox' || (el as HTMLInputElement).type === 'radio' ? (h.closest('label') ?? h) : h;
      if (target.classList.contains('file-input-hidden') || (h as HTMLInputElement).classList?.contains('file-input-hidden')) continue;
      const r = target.getBoundingClientRect();
      if (r.width < 43.5 || r.height < 43.5) out.push(`${h.id || h.className || h.tagName} ${Math.round(r.width)}×${Math.round(r.height)}`);
    }
    return out;
  });
}

/** Nothing wider than the screen (at 320 px too), and the language buttons whole on it. */
export async function fitsWidth(page: Page): Promise<{ overflow: number; langRight: number; width: number }> {
  return page.evaluate(() => {
    const buttons = Array.from(document.querySelectorAll('.lang-btn')).map((b) => b.getBoundingClientRect().right);
    return { overflow: document.documentElement.scrollWidth - innerWidth, langRight: Math.ceil(Math.max(...buttons)), width: innerWidth };
  });
}

export async function runSheetsScenario(options: { t: TestApp; org: TestOrg; browser: Browser; origin: string; artifacts: string }) {
  const { t, org, browser, origin, artifacts } = options;
  fs.mkdirSync(artifacts, { recursive: true });
  const c = await makeContract(t, org, origin);
  const context = await browser.newContext(PHONE_360);
  const signBodies: any[] = [];
  try {
    // A hang guard on a loaded machine (two cores shared by many runs), not a speed check.
    context.setDefaultTimeout(120_000);
    context.setDefaultNavigationTimeout(120_000);
    const page = await context.newPage();
    const problems: string[] = [];
    page.on('pageerror', (err) => problems.push(`pageerror: ${err.message}`));
    page.on('request', (r: Request) => {
      if (r.method() === 'POST' && r.url().endsWith('/sign')) signBodies.push(r.postDataJSON());
    });
    const shot = (name: string) => page.screenshot({ path: path.join(artifacts, `${name}.png`), fullPage: true });
    const states: Record<string, { axe: unknown[]; small: string[] }> = {};
    const check = async (state: string) => {
      states[state] = { axe: await axeViolations(page), small: await smallTargets(page) };
      await shot(state);
    };
    const sheet = page.locator('#field-dialog');
    const title = () => page.locator('#field-dialog-title').textContent();
    const next = async () => {
      await page.locator('#field-next').tap();
    };
    const saved = () => page.waitForFunction(() => document.getElementById('draft-status')?.getAttribute('data-state') === 'saved');

    await page.goto(c.link, { waitUntil: 'domcontentloaded' });
    await page.locator('#sign-step').waitFor();
    await page.waitForFunction(() => ((document.querySelector('#pages .page-img') as HTMLImageElement | null)?.naturalWidth ?? 0) > 0, undefined, { timeout: 120_000 });
    await check('01-opened');
    const width360 = await fitsWidth(page);

    // 본문 보기: the body as text at the phone's width.
    await page.locator('#body-open').tap();
    await page.locator('#body-view h4').first().waitFor();
    const bodyText = await page.locator('#body-view').textContent();
    await check('02-reading-view');
    await page.locator('#body-open').tap();

    // A pinch on the page images zooms them, not the page (its scale stays 1).
    await page.locator('.pages-scroll').scrollIntoViewIfNeeded();
    const frame = (await page.locator('.pages-scroll').boundingBox())!;
    const cdp = await context.newCDPSession(page);
    const cx = frame.x + frame.width / 2;
    const cy = frame.y + Math.min(150, frame.height / 2);
    const touch = (type: 'touchStart' | 'touchMove' | 'touchEnd', spread: number) =>
      cdp.send('Input.dispatchTouchEvent', { type, touchPoints: type === 'touchEnd' ? [] : [{ x: cx - spread, y: cy, id: 1 }, { x: cx + spread, y: cy, id: 2 }] });
    await touch('touchStart', 30);
    for (const spread of [45, 60, 75, 90]) await touch('touchMove', spread);
    await touch('touchEnd', 0);
    const pinched = await page.evaluate(() => ({ width: (document.getElementById('pages') as HTMLElement).style.width, scale: window.visualViewport?.scale ?? 1, pressed: document.getElementById('zoom')?.getAttribute('aria-pressed') }));
    await check('02b-pinched');
    await page.locator('#zoom').tap();

    // "다음 입력 칸" opens the sheet on the first field; the page marks it.
    const before = await page.locator('#next-field').textContent();
    await page.locator('#next-field').tap();
    await sheet.waitFor();
    const first = { title: await title(), marked: await page.locator('.field-current').getAttribute('data-field-id'), step: await page.locator('#field-step').textContent() };
    await page.locator('#field-input').fill(ADDRESS);
    await check('03-sheet-text');
    await next();
    // An amount as Koreans write it is read by the domain's own rules (bundled into the page):
    // a misplaced comma is refused in Korean, 3,500,000 accepted and recorded as 3500000.
    await page.locator('#field-input').fill('3,5,0');
    await next();
    const numberError = await page.locator('#field-error').textContent();
    await page.locator('#field-input').fill('3,500,000');
    await next();
    const dateType = await page.locator('#field-input').getAttribute('type');
    await page.locator('#field-input').fill('2027-01-02');
    await next();
    await page.locator('#field-input').selectOption('계약직');
    await next();
    await page.locator('label.choice', { hasText: '주급' }).tap();
    await check('04-sheet-radio');
    await next();
    // A wrong value keeps the sheet open with the rule in Korean.
    await page.locator('#field-input').fill('ABCDEFGHIJK');
    await page.locator('#field-input').evaluate((i: HTMLInputElement) => { i.maxLength = 100; i.value = 'ABCDEFGHIJKL'; });
    await next();
    const initialsError = await page.locator('#field-error').textContent();
    await page.locator('#field-input').fill('KDH');
    await page.locator('#field-save').tap();
    await sheet.waitFor({ state: 'hidden' });
    // The attachment: its mark on page 2's image opens its sheet; the camera input uploads.
    const attachmentMark = page.locator(`[data-field-id="${c.id('신분증 사본')}"]`);
    await attachmentMark.scrollIntoViewIfNeeded();
    await attachmentMark.tap();
    await sheet.waitFor();
    await page.locator('#attachment-camera').setInputFiles({ name: '신분증.png', mimeType: 'image/png', buffer: solidPngBytes(40, 30, [10, 120, 200, 255]) });
    await sheet.waitFor({ state: 'hidden' });
    await saved();
    const halfway = await page.locator('#next-field').textContent();

    // Reload half-way: everything confirmed so far is back, the attachment included.
    await page.reload({ waitUntil: 'domcontentloaded' });
    await page.locator('#sign-step').waitFor();
    const afterReload = await page.locator('#next-field').textContent();
    const reviewed = await page.locator('#review-list .review-row').evaluateAll((rows) => rows.map((r) => [r.querySelector('.review-label')?.textContent, r.querySelector('.review-value')?.textContent]));
    await check('05-reloaded');

    // On from the first empty field, to the end, through the sheets.
    await page.locator('#next-field').tap();
    await sheet.waitFor();
    const resumedAt = await title();
    await page.locator('#field-input').check();
    await next();
    await next(); // 마케팅 SMS: left unchecked
    await page.locator('#field-input').check();
    await next();
    await page.locator('#field-input').fill('첫 줄\n둘째 줄');
    await next();
    const attachmentSheet = await page.locator('#attachment-current').textContent();
    await next(); // past the last field: on to the review
    await sheet.waitFor({ state: 'hidden' });
    await saved();

    // The signature: the name typed in the handwriting face.
    await page.locator('#sig-mode-type').tap();
    await page.waitForFunction(() => (document.getElementById('typed-name') as HTMLInputElement).value.length > 0);
    // The seal: emoji are refused with a clear message and no image; then made from the name.
    await page.locator('#seal-text').fill('😀');
    await page.locator('#seal-make').tap();
    await page.locator('#seal-error').waitFor();
    const sealError = { text: await page.locator('#seal-error').textContent(), image: await page.locator('#seal-preview-wrap').isVisible() };
    await page.locator('#seal-text').fill(SIGNER);
    await page.locator('label.choice', { hasText: '사각형' }).tap();
    await page.locator('#seal-make').tap();
    await page.locator('#seal-preview-wrap').waitFor();
    await page.locator('#consent').check();
    const review = await page.locator('#review-list .review-row').evaluateAll((rows) => rows.map((r) => [r.querySelector('.review-label')?.textContent, r.querySelector('.review-value')?.textContent]));
    await check('06-review');
    // At 320 px too, every state so far fits.
    await page.setViewportSize({ width: 320, height: 700 });
    const width320 = await fitsWidth(page);
    await shot('06-review-320');
    await page.setViewportSize({ width: 360, height: 780 });

    const signed = page.waitForResponse((r) => r.url().endsWith('/sign') && r.request().method() === 'POST');
    await page.locator('#sign-btn').tap();
    const res = await signed;
    await page.locator('#notice-title').waitFor();
    await check('07-signed');
    const doc = (await t.http.get(`/v1/documents/${c.docId}`).set(bearer(org.test))).body;
    const result = { c, before, first, dateType, initialsError, numberError, halfway, afterReload, reviewed, resumedAt, attachmentSheet, sealError, review, signStatus: res.status(), signBodies, doc, bodyText, pinched, states, width360, width320, problems };
    // Kept beside the screenshots: what the page showed at each step.
    fs.writeFileSync(path.join(artifacts, 'result.json'), JSON.stringify({ ...result, doc: undefined, signBodies: undefined }, null, 2));
    return result;
  } finally {
    await context.close();
  }
}

/** What the scenario must find, against the real routes or the stand-ins alike. */
export function expectSheetsScenario(r: Awaited<ReturnType<typeof runSheetsScenario>>): void {
  expect(r.problems).toEqual([]);
  // axe (target-size included) and the 44 px targets, in every state.
  for (const [state, found] of Object.entries(r.states)) expect({ state, ...found }).toEqual({ state, axe: [], small: [] });
  expect(r.width360).toEqual({ overflow: 0, langRight: expect.any(Number), width: 360 });
  expect(r.width360.langRight).toBeLessThanOrEqual(360);
  expect(r.width320).toEqual({ overflow: 0, langRight: expect.any(Number), width: 320 });
  expect(r.width320.langRight).toBeLessThanOrEqual(320);
  expect(r.bodyText).toContain('제1조 근무 장소: 서울');
  // Pinched out to about 3× the spread: the images zoomed (200 % and more), the page not.
  expect(r.pinched).toEqual({ width: expect.stringMatching(/^(2\d\d|300)(\.\d+)?%$/), scale: 1, pressed: 'true' });
  expect(r.bodyText).toContain('개인정보 수집·이용 동의서');

  expect(r.before).toBe('다음 입력 칸 (11개 남음)');
  expect(r.first).toEqual({ title: '주소 · 필수', marked: r.c.id('주소'), step: '1 / 11' });
  expect(r.dateType).toBe('date');
  expect(r.numberError).toBe('숫자로 입력해 주세요 (예: 3500000, 3,500,000, 3,500,000원, -12.5).');
  expect(r.initialsError).toBe('10자 이하로 입력해 주세요.');
  expect(r.halfway).toBe('다음 입력 칸 (4개 남음)');
  // After the reload: the same count, every value back (the attachment as attached).
  expect(r.afterReload).toBe(r.halfway);
  expect(r.reviewed.slice(0, 6)).toEqual([
    ['주소', ADDRESS],
    ['월 급여', '3500000'],
    ['입사일', '2027년 1월 2일'],
    ['근무 형태', '계약직'],
    ['임금 형태', '주급'],
    ['이니셜', 'KDH'],
  ]);
  expect(r.reviewed[10]).toEqual(['신분증 사본', '첨부됨']);
  expect(r.resumedAt).toBe('개인정보 수집·이용 동의 · 필수');
  expect(r.attachmentSheet).toBe('첨부됨');
  expect(r.sealError).toEqual({ text: expect.stringContaining('한글·영문·한자 1~10자'), image: false });
  expect(r.review).toEqual([
    ['주소', ADDRESS],
    ['월 급여', '3500000'],
    ['입사일', '2027년 1월 2일'],
    ['근무 형태', '계약직'],
    ['임금 형태', '주급'],
    ['이니셜', 'KDH'],
    ['개인정보 수집·이용 동의', '체크함'],
    ['마케팅 SMS', '입력 안 함'],
    ['마케팅 이메일', '체크함'],
    ['특이사항', '첫 줄\n둘째 줄'],
    ['신분증 사본', '첨부됨'],
    ['서명', '입력됨'],
    ['도장', '이름으로 만든 도장'],
  ]);

  // What Sign carried: the seal's source with its shape and text, and every value.
  expect(r.signStatus).toBe(200);
  expect(r.signBodies).toHaveLength(1);
  const body = r.signBodies[0];
  expect(body).toMatchObject({ consent: true, seal_source: 'made', seal_shape: 'square', seal_text: SIGNER, seal_image: expect.stringMatching(/^data:image\/png;base64,/) });
  expect(body.signature).toMatch(/^data:image\/png;base64,/);
  const value = (fid: string) => r.doc.fields.find((f: any) => f.id === fid)?.value;
  expect(r.doc.status).toBe('completed');
  expect(value(r.c.id('주소'))).toBe(ADDRESS);
  expect(value(r.c.id('입사일'))).toBe('2027-01-02');
  expect([value(r.c.id('임금 형태', '월급')), value(r.c.id('임금 형태', '주급'))]).toEqual([false, true]);
  expect(value(r.c.id('이니셜'))).toBe('KDH');
  expect([value(r.c.id('개인정보 수집·이용 동의')), value(r.c.id('마케팅 SMS')), value(r.c.id('마케팅 이메일'))]).toEqual([true, false, true]);
  expect(value(r.c.id('특이사항'))).toBe('첫 줄\n둘째 줄');
  expect(body.values[r.c.id('신분증 사본')]).toEqual(expect.any(String));
}
