import { execFileSync } from 'child_process';
import { createHash } from 'crypto';
import * as fs from 'fs';
import * as path from 'path';
import { AddressInfo } from 'net';
import { Browser, BrowserContext, Page } from 'playwright-core';
import { FIELD_TYPES } from '@dojang/domain';
import { renderPage } from '@dojang/pdf/testing/poppler';
import { ANDROID_PHONE, axeViolations, glyphReport, latinOnlyFontconfig, callApi, launchChromium, settledImageWidth } from '../support/browser';
import { PDFDocument, StandardFonts } from 'pdf-lib';
import { onPdfJob, RENDER_PAGE } from '@dojang/pdf';
import { binary, uploadFile } from '../files/file-helpers';
import { SIGNATURE } from '../support/lifecycle';
import { solidPngBytes } from '../support/png';
import { bearer, startTestApp, TestApp, TestOrg } from '../support/test-app';

/**
 * The signing page on an Android phone, against the real app (one app, one Chromium for both cases).
 *
 * Issue 22's "done when": on an Android phone (390×844, Chrome's user agent, touch) with no Korean
 * system font, a signer opens a two-part contract and fills every field type there is by tapping
 * it on the page images, which the real server renders (no route stubs: page images, the
 * attachment upload and the signature all reach the app). Their signature completes the document;
 * the test then reads the document, form_data and the events through the API and finds every
 * value as it was entered, and the signed PDF's ink where it belongs.
 *
 * And a 100-page PDF: only the pages the signer scrolls to are asked for and rendered.
 *
 * Screenshots are kept in test-artifacts/signing-page-phone/ (git-ignored, like every
 * browser spec's artifacts).
 */

// A hang guard: on two cores shared by many runs the signing alone took over 3 minutes.
jest.setTimeout(420_000);

const ARTIFACTS = path.join(__dirname, '../../test-artifacts/signing-page-phone');
const TITLE = '근로계약서 (표준) · 똠방각하';

describe('signing page on an Android phone (browser, real server, no Korean system font)', () => {
  let t: TestApp;
  let org: TestOrg;
  let browser: Browser;
  let context: BrowserContext;
  let origin: string;
  const fontconfig = latinOnlyFontconfig();

  const api = <T = any>(method: 'get' | 'post' | 'put', p: string, body?: unknown, status = 200): Promise<T> => callApi<T>(t, bearer(org.test), method, p, body, status);

  const shot = (page: Page, name: string) => page.screenshot({ path: path.join(ARTIFACTS, `${name}.png`), fullPage: true });

  beforeAll(async () => {
    fs.mkdirSync(ARTIFACTS, { recursive: true });
    [t, browser] = await Promise.all([
      startTestApp(),
      launchChromium({ ...process.env, FONTCONFIG_FILE: fontconfig }),
    ]);
    org = await t.createOrg('쀍괆 주식회사');
    await t.app.listen(0, '127.0.0.1');
    origin = `http://127.0.0.1:${(t.app.getHttpServer().address() as AddressInfo).port}`;
  });

  afterAll(async () => {
    await context?.close();
    await browser?.close();
    await t?.close();
  });

  it('the browser has no system font with Hangul: only the page’s own fonts can draw Korean', () => {
    expect(execFileSync('fc-list', [':lang=ko', 'family'], { env: { ...process.env, FONTCONFIG_FILE: fontconfig }, encoding: 'utf8' }).trim()).toBe('');
  });

  it('a two-part contract: every field type filled by tapping it on the page images, signed, every value recorded', async () => {
    const CONTRACT = '<h2>근로계약서</h2><p>쀍괆 주식회사(이하 "회사")와 근로자는 다음과 같이 근로계약을 체결한다.</p><p>제1조 근무 장소: 서울</p><p>제2조 임금: 월급 또는 주급</p>';
    const CONSENT = '<h2>개인정보 수집·이용 동의서</h2><p>회사는 근로계약의 이행을 위하여 근로자의 개인정보를 수집·이용합니다.</p><p>신분증 사본을 첨부하고 도장을 찍어 주세요.</p>';
    const doc = await api('post', '/v1/documents', { title: TITLE, parts: [{ content: CONTRACT }, { title: '개인정보 수집·이용 동의서', content: CONSENT }] }, 201);
    // The representative signs first (through the API); the employee signs last, on the phone, and completes it.
    const boss = await api('post', `/v1/documents/${doc.id}/participants`, { name: '쀍괆 대표', email: 'ceo@example.com', auth: 'none', signing_order: 1 }, 201);
    const me = await api('post', `/v1/documents/${doc.id}/participants`, { name: '뷁똠햏', email: 'hong@example.com', phone: '01012345678', auth: 'none', signing_order: 2 }, 201);
    // Each part is one page, and the API numbers pages across the whole document: part n is page n + 1.
    const box = (part: number, x: number, y: number, width = 36, height = 4) => ({ part, page: part + 1, x, y, width, height });
    const mine = (f: object) => ({ participant_id: me.id, ...f });
    const fields = [
      // Part 0: the contract.
      mine({ type: 'text', label: '주소', required: true, max_length: 60, ...box(0, 8, 30) }),
      mine({ type: 'number', label: '월 급여', min: 0, max: 100_000_000, required: true, ...box(0, 52, 30) }),
      mine({ type: 'date', label: '입사일', required: true, ...box(0, 8, 36) }),
      mine({ type: 'dropdown', label: '근무 형태', options: ['정규직', '계약직'], required: true, ...box(0, 52, 36) }),
      mine({ type: 'radio', label: '임금 형태', group: 'pay', option: '월급', required: true, ...box(0, 8, 42, 6, 4) }),
      mine({ type: 'radio', label: '임금 형태', group: 'pay', option: '주급', required: true, ...box(0, 18, 42, 6, 4) }),
      mine({ type: 'initials', label: '이니셜', required: true, ...box(0, 52, 42, 14) }),
      mine({ type: 'name', ...box(0, 8, 50) }),
      mine({ type: 'email', ...box(0, 52, 50) }),
      mine({ type: 'phone', ...box(0, 8, 56) }),
      mine({ type: 'signing_date', ...box(0, 52, 56) }),
      mine({ type: 'signature', ...box(0, 8, 64, 36, 9) }),
      { participant_id: boss.id, type: 'signature', ...box(0, 52, 64, 36, 9) },
      // Part 1: the consent.
      mine({ type: 'checkbox', label: '개인정보 수집·이용 동의', required: true, ...box(1, 8, 30, 6, 4) }),
      mine({ type: 'checkbox', label: '마케팅 SMS', group: 'marketing', max_checked: 2, ...box(1, 20, 30, 6, 4) }),
      mine({ type: 'checkbox', label: '마케팅 이메일', group: 'marketing', ...box(1, 32, 30, 6, 4) }),
      mine({ type: 'text', label: '특이사항', multiline: true, ...box(1, 8, 38, 80, 8) }),
      mine({ type: 'attachment', label: '신분증 사본', required: true, accept: ['png', 'jpeg'], max_bytes: 200_000, ...box(1, 8, 50, 50, 5) }),
      mine({ type: 'seal', ...box(1, 62, 58, 14, 8) }),
      { participant_id: boss.id, type: 'text', label: '회사 확인', value: '확인함', read_only: true, ...box(1, 8, 70) },
    ];
    const placed = (await api('put', `/v1/documents/${doc.id}/fields`, { fields })).data as any[];
    // Every type the domain knows is on this contract, for this signer.
    expect(new Set(placed.filter((f) => f.participant_id === me.id).map((f) => f.type))).toEqual(new Set(FIELD_TYPES));
    const sent = await api('post', `/v1/documents/${doc.id}/send`, {});
    expect(sent.parts.map((p: any) => p.index)).toEqual([0, 1]);
    const link = (id: string) => `${origin}/sign/${sent.participants.find((p: any) => p.id === id).signing_url.split('/sign/')[1]}`;
    const token = link(me.id).split('/sign/')[1];
    const bossToken = link(boss.id).split('/sign/')[1];
    const id = (label: string, option?: string) => placed.find((f) => f.label === label && (option === undefined || f.option === option)).id as string;
    const bossRes = await t.http.post(`/v1/signing/${bossToken}/sign`).send({ consent: true, signature: SIGNATURE });
    expect(bossRes.status).toBe(200);

    context = await browser.newContext(ANDROID_PHONE);
    const page = await context.newPage();
    expect(await page.evaluate(() => navigator.userAgent)).toMatch(/Android .* Mobile/);
    const problems: string[] = [];
    const images: string[] = [];
    const uploads: number[] = [];
    page.on('pageerror', (err) => problems.push(`pageerror: ${err.message}`));
    page.on('console', (msg) => {
      if (msg.type() === 'error' && !/status of 400/.test(msg.text())) problems.push(`console: ${msg.text()}`);
    });
    page.on('response', (r) => {
      const m = /\/pages\/(\d+)\.png/.exec(r.url());
      if (m) images.push(`${m[1]} ${r.status()} ${r.headers()['content-type']}`);
      if (/\/attachments$/.test(r.url())) uploads.push(r.status());
    });
    // The strict CSP holds throughout (the signature in its field is a data: image, which img-src allows).
    await page.addInitScript(() => {
      const w = window as unknown as { __csp: string[] };
      w.__csp = [];
      document.addEventListener('securitypolicyviolation', (e) => w.__csp.push(`${e.violatedDirective} ${e.blockedURI}`));
    });
    const cspViolations = () => page.evaluate(() => (window as unknown as { __csp: string[] }).__csp);
    await page.goto(link(me.id), { waitUntil: 'networkidle' });
    await page.locator('#sign-step').waitFor();
    // The title, the signer and the sender, rare syllables included, in the page's own font.
    for (const sel of ['#doc-title', '#doc-participant', '#doc-sender']) expect({ sel, missing: await missingGlyphs(page, sel) }).toEqual({ sel, missing: [] });
    // The page's own viewport meta lays it out at the phone's 390 CSS pixels.
    expect(await page.evaluate(() => ({ w: innerWidth, touch: navigator.maxTouchPoints > 0 }))).toEqual({ w: 390, touch: true });
    const pagesShown = await page.locator('#pages .page').count();
    expect(pagesShown).toBe(sent.page_count);
    expect(pagesShown).toBeGreaterThanOrEqual(2);

    // The pages are the real server's images (rendered by the PDF pool), the overlays sit on them.
    async function imageShown(n: number) {
      const img = page.locator('#pages .page-img').nth(n - 1);
      await img.scrollIntoViewIfNeeded();
      expect(await settledImageWidth(page, '#pages .page-img', n - 1)).toBeGreaterThan(0);
    }
    await imageShown(1);
    const partPage = (part: number) => sent.parts[part].first_page as number;
    // Each part's title stands above its first page, drawn by the page's own font.
    const heads = await page.locator('#pages .part-head').evaluateAll((els) =>
      els.map((e) => {
        const items = Array.from(e.parentElement!.children);
        // The page that follows the heading: pages before it, plus one.
        return { text: e.textContent, page: items.slice(0, items.indexOf(e)).filter((c) => c.classList.contains('page')).length + 1 };
      }),
    );
    expect(heads).toEqual([
      { text: `문서 1/2 · ${TITLE}`, page: partPage(0) },
      { text: '문서 2/2 · 개인정보 수집·이용 동의서', page: partPage(1) },
    ]);
    await expect(missingGlyphs(page, '#pages .part-head h3')).resolves.toEqual([]);
    // The other participant's fields: drawn, in their colour, nothing to press or type in.
    await expect(page.locator('.field-other').count()).resolves.toBe(2);
    await expect(page.locator('.field-other button, .field-other input, .field-other select, .field-other textarea').count()).resolves.toBe(0);
    // A finger on one reaches the page image under it: nothing opens, nothing takes the focus.
    const other = (await page.locator('.field-other').first().boundingBox())!;
    await page.touchscreen.tap(other.x + other.width / 2, other.y + other.height / 2);
    await expect(page.locator('#field-dialog').isVisible()).resolves.toBe(false);
    await expect(page.evaluate(() => document.activeElement?.closest('.field-other') ?? null)).resolves.toBeNull();
    await expect(page.locator('.field-name .field-value').textContent()).resolves.toBe('뷁똠햏');
    await expect(page.locator('.field-phone .field-value').textContent()).resolves.toBe('010-****-5678');
    await shot(page, '01-opened');

    const named = (p: number, label: string) => page.locator(`.field-own[data-label^="${p}쪽 ${label} ("]`);
    const dialog = page.locator('#field-dialog');
    async function edit(p: number, label: string, fill: (input: ReturnType<Page['locator']>) => Promise<unknown>) {
      await named(p, label).tap();
      await dialog.waitFor();
      await fill(page.locator('#field-input'));
      await page.locator('#field-save').tap();
      await dialog.waitFor({ state: 'hidden' });
    }
    const p0 = partPage(0);
    const p1 = partPage(1);
    expect(p1).toBeGreaterThan(p0);

    // Part 0, by tapping each field on the page image.
    await edit(p0, '주소', (i) => i.fill('서울시 종로구 똠방길 1'));
    await edit(p0, '월 급여', (i) => i.fill('3500000'));
    await named(p0, '입사일').tap();
    await expect(page.locator('#field-input').getAttribute('type')).resolves.toBe('date');
    await page.locator('#field-input').fill('2027-01-02');
    await page.locator('#field-save').tap();
    await dialog.waitFor({ state: 'hidden' });
    await expect(named(p0, '입사일').locator('.field-value').textContent()).resolves.toBe('2027년 1월 2일');
    await edit(p0, '근무 형태', (i) => i.selectOption('계약직'));
    // A radio button's mark opens the group's sheet: its options as large radio buttons.
    await named(p0, '임금 형태: 주급').tap();
    await dialog.waitFor();
    await page.locator('label.choice', { hasText: '주급' }).tap();
    await page.locator('#field-save').tap();
    await dialog.waitFor({ state: 'hidden' });
    await expect(named(p0, '임금 형태: 월급').locator('.field-value').textContent()).resolves.toBe('');
    await expect(named(p0, '임금 형태: 주급').locator('.field-value').textContent()).resolves.toBe('✓');
    await edit(p0, '이니셜', (i) => i.fill('BDH'));
    // A Hangul value on the page image is drawn by the page's own font, never a missing glyph.
    await expect(missingGlyphs(page, `.field-own[data-label^="${p0}쪽 주소 ("] .field-value`)).resolves.toEqual([]);

    // The signature: tapping its field takes the signer to the pad; drawn there with a finger.
    await page.locator('.field-own.field-signature').tap();
    await expect(page.evaluate(() => document.activeElement?.id)).resolves.toBe('signature-canvas');
    await drawWithFinger(page, '#signature-canvas');
    // The finger leaves the pad still moving, as most signatures end; the signer's very next tap,
    // on part 2's consent box, still opens its sheet (no fling from the stroke swallows it).
    const consentBox = named(p1, '개인정보 수집·이용 동의');
    await consentBox.tap();
    await dialog.waitFor();
    await page.locator('#field-input').check();
    await page.locator('#field-save').tap();
    await dialog.waitFor({ state: 'hidden' });
    await expect(consentBox.locator('.field-value').textContent()).resolves.toBe('✓');
    await expect(page.locator('#signature-placeholder').isHidden()).resolves.toBe(true);
    // The drawing shows in the signature field on the page image, as the signed PDF will have it.
    const pictured = (type: string) =>
      page.locator(`.field-own.field-${type} img.field-image`).evaluate((img: HTMLImageElement) => img.decode().then(() => ({ data: img.src.startsWith('data:image/png;base64,'), drawn: img.naturalWidth > 0 })));
    await expect(pictured('signature')).resolves.toEqual({ data: true, drawn: true });
    await shot(page, '02-part-one-filled');

    // Part 1: the consent, on the second part's page image.
    await imageShown(p1);
    await named(p1, '마케팅 이메일').tap();
    await dialog.waitFor();
    await page.locator('#field-input').check();
    await page.locator('#field-save').tap();
    await dialog.waitFor({ state: 'hidden' });
    await edit(p1, '특이사항', (i) => i.fill('첫 줄\n둘째 줄'));
    // The attachment goes to the real POST /v1/signing/{token}/attachments.
    const photo = solidPngBytes(40, 30, [10, 120, 200, 255]);
    await named(p1, '신분증 사본').tap();
    await dialog.waitFor();
    await expect(page.locator('#attachment-camera').getAttribute('capture')).resolves.toBe('environment');
    await page.locator('#attachment-camera').setInputFiles({ name: '신분증.png', mimeType: 'image/png', buffer: photo });
    await dialog.waitFor({ state: 'hidden' });
    expect(uploads).toEqual([201]);
    await expect(named(p1, '신분증 사본').locator('.field-value').textContent()).resolves.toBe('신분증.png');
    // The seal: tapping its field leads to the seal's choices; here an uploaded image.
    await page.locator('.field-own.field-seal').tap();
    await expect(page.evaluate(() => document.activeElement?.id)).resolves.toBe('seal-mode-made');
    await page.locator('#seal-mode-uploaded').tap();
    await page.locator('#seal-file').setInputFiles({ name: 'seal.png', mimeType: 'image/png', buffer: solidPngBytes(48, 48, [200, 30, 30, 255]) });
    await page.locator('#seal-preview-wrap').waitFor();
    await expect(pictured('seal')).resolves.toEqual({ data: true, drawn: true });

    // Every field of this signer's is answered (the unchecked optional SMS box counts as one).
    await expect(page.locator('.field-own:not(.field-static):not(.field-filled)').evaluateAll((els) => els.map((e) => e.getAttribute('data-label')))).resolves.toEqual([`${p1}쪽 마케팅 SMS (체크박스) 칸`]);
    await page.locator('#consent').tap();
    await expect(page.locator('#sign-btn').isEnabled()).resolves.toBe(true);
    await shot(page, '03-all-filled');
    expect(await axeViolations(page)).toEqual([]);

    // The server checks again what the page sends: a value for the other participant's field or
    // an option the dropdown lacks is refused, naming the field, and nothing is recorded.
    const bossField = placed.find((f) => f.participant_id === boss.id && f.type === 'text').id as string;
    // The body the page would send, built by its own modules (the instances it runs, in the one
    // script the server makes of them: a string, so TypeScript leaves the dynamic import alone),
    // with one value altered each time.
    const refusals = (await page.evaluate(`(async () => {
      const { signValues, signatureDataUrl, S } = await import('/sign/assets/bundle.js');
      const body = { consent: true, signature: signatureDataUrl(), seal_image: S.sign.seal, values: signValues() };
      const post = (values) => fetch('/v1/signing/${token}/sign', { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ ...body, values: { ...body.values, ...values } }) });
      const a = await post({ ${JSON.stringify(bossField)}: '내가 씀' });
      const b = await post({ ${JSON.stringify(id('근무 형태'))}: '인턴' });
      // A file for the other participant's field is refused too.
      const form = new FormData();
      form.append('field_id', ${JSON.stringify(bossField)});
      form.append('file', new Blob([new Uint8Array(${JSON.stringify([...photo])})], { type: 'image/png' }), 'x.png');
      const c = await fetch('/v1/signing/${token}/attachments', { method: 'POST', body: form });
      return [a.status, (await a.json()).error.param, b.status, (await b.json()).error, c.status, (await c.json()).error.param];
    })()`)) as [number, string, number, { code: string; param: string }, number, string];
    expect(refusals.slice(0, 3)).toEqual([400, `values.${bossField}`, 400]);
    expect(refusals[3]).toMatchObject({ code: 'field_value_invalid', param: `values.${id('근무 형태')}` });
    expect(refusals.slice(4)).toEqual([400, 'field_id']);
    expect(uploads).toEqual([201, 400]);
    expect((await api('get', `/v1/documents/${doc.id}`)).status).toBe('sent');

    const signed = page.waitForResponse((r) => r.url().endsWith('/sign') && r.request().method() === 'POST' && r.request().postDataJSON()?.signature);
    await page.locator('#sign-btn').tap();
    const res = await signed;
    expect(res.status()).toBe(200);
    const sentBody = res.request().postDataJSON();
    expect(sentBody.signature).toMatch(/^data:image\/png;base64,/);
    expect(sentBody.seal_image).toMatch(/^data:image\/png;base64,/);
    await page.locator('#notice-title').waitFor();
    // The signer's signature completed it: the page says so, and shows the signed PDF's pages.
    await expect(page.locator('#notice-title').textContent()).resolves.toMatch(/완료/);
    await expect(page.locator('#read-hint').textContent()).resolves.not.toContain('서명하기 전에');
    await expect(page.locator('#download-final').isVisible()).resolves.toBe(true);
    await imageShown(1);
    // The signed PDF's pages carry the values drawn in: no overlay repeats them over the image.
    await expect(page.locator('#pages .field').count()).resolves.toBe(0);
    await shot(page, '04-completed');
    expect(await axeViolations(page)).toEqual([]);

    // Server side: completed, and every value recorded as entered.
    const done = await api('get', `/v1/documents/${doc.id}`);
    expect(done.status).toBe('completed');
    const value = (fid: string) => done.fields.find((f: any) => f.id === fid)?.value;
    expect(value(id('주소'))).toBe('서울시 종로구 똠방길 1');
    expect(value(id('월 급여'))).toBe('3500000');
    expect(value(id('입사일'))).toBe('2027-01-02');
    expect(value(id('근무 형태'))).toBe('계약직');
    expect([value(id('임금 형태', '월급')), value(id('임금 형태', '주급'))]).toEqual([false, true]);
    expect(value(id('이니셜'))).toBe('BDH');
    expect(value(id('개인정보 수집·이용 동의'))).toBe(true);
    expect([value(id('마케팅 SMS')), value(id('마케팅 이메일'))]).toEqual([false, true]);
    expect(value(id('특이사항'))).toBe('첫 줄\n둘째 줄');
    expect(value(bossField)).toBe('확인함');
    const ofType = (type: string) => done.fields.find((f: any) => f.type === type && f.participant_id === me.id).value;
    expect([ofType('name'), ofType('email'), ofType('phone')]).toEqual(['뷁똠햏', 'hong@example.com', expect.stringMatching(/1234.?5678$/)]);
    expect(ofType('signing_date')).toMatch(/^\d{4}-\d{2}-\d{2}$/);

    // The signed PDF too, next to the screenshots.
    const final = await t.http.get(`/v1/documents/${doc.id}/file`).set(bearer(org.test)).buffer(true).parse(binary);
    expect(final.status).toBe(200);
    fs.writeFileSync(path.join(ARTIFACTS, 'signed.pdf'), final.body as Buffer);
    // The seal is stamped in the seal field and nowhere else (the value fields show their values).
    // A field's page is the document's page (every part counted once), as the final PDF numbers them.
    const red = (f: any) => inkIn(final.body as Buffer, f, ([r, g, b]) => r > 150 && g < 90 && b < 90);
    const mineOnPdf = done.fields.filter((f: any) => f.participant_id === me.id);
    expect(mineOnPdf.filter((f: any) => red(f) > 0).map((f: any) => f.type)).toEqual(['seal']);

    const form = await api('get', `/v1/documents/${doc.id}/form_data`);
    expect(form).toMatchObject({ status: 'completed', complete: true });
    const events = (await api('get', `/v1/events?document_id=${doc.id}&limit=100`)).data as any[];
    const mySigning = events.find((e) => e.type === 'participant.signed' && e.data.participant_id === me.id);
    const attachment = mySigning.data.values.find((v: any) => v.field_id === id('신분증 사본'));
    // The file the phone sent is the file recorded, by its hash.
    expect(attachment.attachment).toMatchObject({ filename: '신분증.png', content_type: 'image/png', sha256: createHash('sha256').update(photo).digest('hex'), byte_size: photo.length });
    expect(mySigning.data.values.map((v: any) => v.type).sort()).toEqual(expect.arrayContaining(['text', 'number', 'date', 'dropdown', 'radio', 'initials', 'checkbox', 'attachment', 'name', 'email', 'phone', 'signing_date']));
    expect(events.some((e) => e.type === 'document.completed')).toBe(true);

    // The page images were the server's: lossless WebP (Chromium's Accept names it) for both
    // parts' pages, nothing stubbed, and no page asked for that does not exist.
    expect(images.length).toBeGreaterThanOrEqual(2);
    expect(images.every((s) => / 200 image\/webp$/.test(s))).toBe(true);
    expect(new Set(images.map((s) => Number(s.split(' ')[0])))).toEqual(new Set(Array.from({ length: sent.page_count }, (_, i) => i + 1)));
    expect(problems).toEqual([]);
    expect(await cspViolations()).toEqual([]);
  });

  it('a 100-page PDF is rendered page by page as the signer scrolls, never all at once', async () => {
    const upload = await uploadFile(t, org.test, await numberedPdf(100), { filename: 'rules.pdf' });
    expect(upload.status).toBe(201);
    const doc = await api('post', '/v1/documents', { title: '취업규칙 (100쪽)', file_url: upload.body.url }, 201);
    const me = await api('post', `/v1/documents/${doc.id}/participants`, { name: '뷁똠햏', auth: 'none' }, 201);
    await api('put', `/v1/documents/${doc.id}/fields`, { fields: [{ participant_id: me.id, type: 'signature', page: 100, x: 10, y: 80, width: 30, height: 8 }] });
    const sent = await api('post', `/v1/documents/${doc.id}/send`, {});
    expect(sent.page_count).toBe(100);
    const renders: string[] = [];
    const stop = onPdfJob((job, outcome) => {
      if (job === RENDER_PAGE.id) renders.push(outcome);
    });
    const phone = await browser.newContext(ANDROID_PHONE);
    try {
      const page = await phone.newPage();
      const asked = new Set<string>();
      const answered: number[] = [];
      page.on('request', (r) => {
        const m = /\/pages\/(\d+)\.png\?w=(\d+)/.exec(r.url());
        if (m) asked.add(`${m[1]}@${m[2]}`);
      });
      page.on('response', (r) => {
        if (/\/pages\/\d+\.png/.test(r.url())) answered.push(r.status());
      });
      // Every image asked for has its answer (so each render asked for has finished).
      const settled = async () => {
        for (let i = 0; i < 600 && answered.length < asked.size; i++) await page.waitForTimeout(100);
        expect(answered).toEqual([...asked].map(() => 200));
      };
      await page.goto(`${origin}/sign/${sent.participants[0].signing_url.split('/sign/')[1]}`, { waitUntil: 'networkidle' });
      await page.locator('#sign-step').waitFor();
      await expect(page.locator('#pages .page').count()).resolves.toBe(100);
      const pagesAsked = () => new Set([...asked].map((k) => Number(k.split('@')[0])));
      // Opened: the first pages only (the browser's lazy-loading margin), each rendered once.
      await settled();
      const opened = pagesAsked();
      expect(opened.has(1)).toBe(true);
      expect(opened.size).toBeLessThan(10);
      expect(renders).toEqual([...asked].map(() => 'ok'));

      // The signer scrolls to page 50: it is asked for and rendered then; most pages never are.
      await page.locator('#pages .page-img').nth(49).scrollIntoViewIfNeeded();
      expect(await settledImageWidth(page, '#pages .page-img', 49)).toBeGreaterThan(0);
      await settled();
      expect(pagesAsked().has(50)).toBe(true);
      expect(pagesAsked().has(100)).toBe(false);
      expect(pagesAsked().size).toBeLessThan(25);
      expect(renders).toEqual([...asked].map(() => 'ok'));
      // The page images hold the PDF's own pages: page 50's image is not page 1's.
      const shown = await page.evaluate(() => [0, 49].map((i) => (document.querySelectorAll('#pages .page-img')[i] as HTMLImageElement).currentSrc));
      const [first, fiftieth] = await Promise.all(shown.map((u) => fetch(u).then(async (r) => Buffer.from(await r.arrayBuffer()))));
      expect(first.equals(fiftieth)).toBe(false);
    } finally {
      stop();
      await phone.close();
    }
  });
});

/**
 * Characters of the element's text that its font stack does not draw as the page's own Noto Sans
 * KR does, or draws as the missing-glyph box (the check signing-page-font.browser-spec.ts makes).
 */
async function missingGlyphs(page: Page, selector: string): Promise<string[]> {
  const { chars } = await glyphReport(page, selector);
  if (!chars.length) return ['(no Korean text)'];
  return chars.filter((c) => c.box || !c.bySliceFont).map((c) => c.ch);
}

const rendered = new Map<string, ReturnType<typeof renderPage>>();

/** Pixels inside a field's box (percent of its page) on the page rendered at 72 dpi that `ink` picks. */
function inkIn(pdf: Buffer, f: { page: number; x: number; y: number; width: number; height: number }, ink: (rgb: number[]) => boolean): number {
  const key = `${f.page}`;
  const page = rendered.get(key) ?? renderPage(pdf, f.page, 72);
  rendered.set(key, page);
  let n = 0;
  for (let y = Math.floor((f.y / 100) * page.height); y < ((f.y + f.height) / 100) * page.height; y++) {
    for (let x = Math.floor((f.x / 100) * page.width); x < ((f.x + f.width) / 100) * page.width; x++) if (ink(page.rgb(x, y))) n++;
  }
  return n;
}

/** A PDF of `pages` A4 pages, each printing its number large (pages tell apart in their images). */
async function numberedPdf(pages: number): Promise<Buffer> {
  const pdf = await PDFDocument.create();
  const font = await pdf.embedFont(StandardFonts.Helvetica);
  for (let n = 1; n <= pages; n++) pdf.addPage([595, 842]).drawText(`Page ${n}`, { x: 60, y: 700, size: 48, font });
  return Buffer.from(await pdf.save());
}

/** A stroke drawn with a finger: touch events through the DevTools protocol, as a phone sends them. */
async function drawWithFinger(page: Page, selector: string) {
  // Tapping the signature field scrolls the pad into view smoothly: draw once it has stopped.
  let box = (await page.locator(selector).boundingBox())!;
  for (let settled = 0; settled < 3; ) {
    await page.waitForTimeout(100);
    const now = (await page.locator(selector).boundingBox())!;
    settled = now.y === box.y ? settled + 1 : 0;
    box = now;
  }
  const cdp = await page.context().newCDPSession(page);
  const at = (fx: number, fy: number) => [{ x: box.x + box.width * fx, y: box.y + box.height * fy, id: 1 }];
  await cdp.send('Input.dispatchTouchEvent', { type: 'touchStart', touchPoints: at(0.15, 0.6) });
  for (let i = 1; i <= 12; i++) {
    await cdp.send('Input.dispatchTouchEvent', { type: 'touchMove', touchPoints: at(0.15 + i * 0.05, 0.6 - Math.sin(i / 2) * 0.3) });
  }
  await cdp.send('Input.dispatchTouchEvent', { type: 'touchEnd', touchPoints: [] });
  await cdp.detach();
}
