import AxeBuilder from '@axe-core/playwright';
import * as fs from 'fs';
import * as path from 'path';
import { Browser, BrowserContext, Page } from 'playwright-core';
import { ANDROID_PHONE, closeContexts, startBrowserApp, callApi } from '../support/browser';
import { solidPngBytes } from '../support/png';
import { bearer, TestApp, TestOrg } from '../support/test-app';
import { SIGNING_PAGE_DIR } from '../../apps/api/src/signing/signing-page.http.controller';

/**
 * Every field type on the page images, filled by tapping, on an Android phone (390×844) without
 * a Korean system font; then signed against the real app. Screenshots go to test-artifacts/
 * (git-ignored). The attachment case here uses route stubs (page.route) to make the server refuse
 * on demand; the real upload to POST /v1/signing/{token}/attachments is in
 * signing-page-phone.browser-spec.ts.
 */

// A hang guard, not a speed check: on two cores shared by many runs one signing took over 2 minutes.
jest.setTimeout(300_000);

const ARTIFACTS = path.join(__dirname, '../../test-artifacts/signing-page-fields');
const WCAG = ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'wcag22aa'];

describe('signing page: every field type (browser)', () => {
  let t: TestApp;
  let org: TestOrg;
  let browser: Browser;
  let origin: string;
  const contexts: BrowserContext[] = [];

  const api = <T = any>(method: 'get' | 'post' | 'put' | 'patch', p: string, body?: unknown, status = 200): Promise<T> => callApi<T>(t, bearer(org.test), method, p, body, status);

  async function open(url: string): Promise<{ page: Page; problems: string[] }> {
    const context = await browser.newContext(ANDROID_PHONE);
    contexts.push(context);
    // Blank page images: the PDF pool's rendering is tested elsewhere; here the overlays matter.
    await context.route(/\/v1\/signing\/[^/]+\/pages\//, (route) => route.fulfill({ status: 200, contentType: 'image/png', body: solidPngBytes(60, 85, [255, 255, 255, 255]) }));
    const page = await context.newPage();
    const problems: string[] = [];
    page.on('pageerror', (err) => problems.push(`pageerror: ${err.message}`));
    page.on('console', (msg) => {
      if (msg.type() === 'error' && !/status of 4\d\d/.test(msg.text())) problems.push(`console: ${msg.text()}`);
    });
    return { page, problems };
  }

  async function axe(page: Page) {
    const result = await new AxeBuilder({ page }).withTags(WCAG).analyze();
    return result.violations.map((v) => `${v.id}: ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`);
  }

  const shot = (page: Page, name: string) => page.screenshot({ path: path.join(ARTIFACTS, `${name}.png`), fullPage: true });

  beforeAll(async () => {
    fs.mkdirSync(ARTIFACTS, { recursive: true });
    ({ t, browser, origin } = await startBrowserApp({ latinOnlyFonts: true }));
    org = await t.createOrg();
  });

  afterEach(() => closeContexts(contexts));

  afterAll(async () => {
    await browser?.close();
    await t?.close();
  });

  const box = (page: number, x: number, y: number, width = 30, height = 4) => ({ page, x, y, width, height });

  it('fills every field type by tapping it on the page images, with a typed signature, and signs', async () => {
    const doc = await api('post', '/v1/documents', { title: '근로계약서 (표준) 똠방각하', content: '<p>갑과 을은 다음과 같이 계약한다.</p><p>제1조 …</p>' }, 201);
    const me = await api('post', `/v1/documents/${doc.id}/participants`, { name: '홍길동', email: 'gildong@example.com', phone: '01012345678', auth: 'none' }, 201);
    const boss = await api('post', `/v1/documents/${doc.id}/participants`, { name: 'Acme 주식회사', email: 'ceo@example.com', auth: 'none' }, 201);
    const mine = (f: object) => ({ participant_id: me.id, ...f });
    await api('put', `/v1/documents/${doc.id}/fields`, {
      fields: [
        mine({ type: 'text', label: '주소', required: true, max_length: 40, ...box(1, 10, 10) }),
        mine({ type: 'text', label: '특이사항', multiline: true, required: false, ...box(1, 10, 16, 60, 8) }),
        mine({ type: 'text', label: '사번', pattern: '[A-Z]{2}-[0-9]{4}', pattern_message: 'AB-1234 형식', required: true, ...box(1, 50, 10, 30) }),
        mine({ type: 'number', label: '월 급여', min: 0, max: 100000000, required: true, ...box(1, 10, 26) }),
        mine({ type: 'date', label: '입사일', required: true, ...box(1, 50, 26) }),
        mine({ type: 'signing_date', ...box(1, 10, 32) }),
        mine({ type: 'dropdown', label: '근무 형태', options: ['정규직', '계약직'], required: true, ...box(1, 50, 32) }),
        mine({ type: 'checkbox', label: '개인정보 동의', required: true, ...box(1, 10, 38, 4, 3) }),
        mine({ type: 'checkbox', label: '야간', group: 'shift', max_checked: 1, ...box(1, 20, 38, 4, 3) }),
        mine({ type: 'checkbox', label: '주말', group: 'shift', ...box(1, 30, 38, 4, 3) }),
        mine({ type: 'radio', group: 'pay', option: '월급', required: true, ...box(1, 10, 44, 4, 3) }),
        mine({ type: 'radio', group: 'pay', option: '주급', required: true, ...box(1, 20, 44, 4, 3) }),
        mine({ type: 'name', ...box(1, 10, 50) }),
        mine({ type: 'email', ...box(1, 50, 50) }),
        mine({ type: 'phone', ...box(1, 10, 56) }),
        mine({ type: 'initials', label: '이니셜', required: true, ...box(1, 50, 56, 10) }),
        mine({ type: 'signature', ...box(1, 10, 64, 30, 8) }),
        { participant_id: boss.id, type: 'signature', ...box(1, 55, 64, 30, 8) },
      ],
    });
    const sent = await api('post', `/v1/documents/${doc.id}/send`, {});
    const url = `${origin}/sign/${sent.participants.find((p: any) => p.id === me.id).signing_url.split('/sign/')[1]}`;

    const { page, problems } = await open(url);
    await page.goto(url, { waitUntil: 'networkidle' });
    await page.locator('#sign-step').waitFor();
    // The other participant's field is drawn, in its colour, and is nothing this signer can press.
    await expect(page.locator('.field-other').count()).resolves.toBe(1);
    await expect(page.locator('.field-other button, .field-other input').count()).resolves.toBe(0);
    // What the service fills is shown, not editable: the name, the masked phone and e-mail.
    await expect(page.locator('.field-name .field-value').textContent()).resolves.toBe('홍길동');
    await expect(page.locator('.field-phone .field-value').textContent()).resolves.toBe('010-****-5678');
    await expect(page.locator('.field-email .field-value').textContent()).resolves.toBe('g******@example.com');
    await shot(page, '01-opened');

    const field = (type: string, nth = 0) => page.locator(`.field-own.field-${type}`).nth(nth);
    // Fields by their marks' labels: "1쪽 사번 (텍스트) 칸". A mark opens its bottom sheet.
    const named = (label: string) => page.locator(`.field-own[data-label^="1쪽 ${label} ("]`);
    const dialog = page.locator('#field-dialog');
    async function fill(label: string, value: string) {
      await named(label).tap();
      await dialog.waitFor();
      await page.locator('#field-input').fill(value);
      await page.locator('#field-save').tap();
      await dialog.waitFor({ state: 'hidden' });
    }

    // A rule the server also holds: the pattern's own message shows in the editor, nothing is kept.
    await named('사번').tap();
    await page.locator('#field-input').fill('ab1234');
    await page.locator('#field-save').tap();
    await expect(page.locator('#field-error').textContent()).resolves.toContain('AB-1234 형식');
    await shot(page, '02-pattern-refused');
    expect(await axe(page)).toEqual([]);
    await page.locator('#field-input').fill('AB-1234');
    await page.locator('#field-save').tap();
    await dialog.waitFor({ state: 'hidden' });

    await fill('주소', '서울시 종로구 똠방길 1');
    // The value shows on the page in the page's Korean font (buttons do not inherit it by default).
    await expect(named('주소').locator('.field-value').textContent()).resolves.toBe('서울시 종로구 똠방길 1');
    await expect(named('주소').locator('.field-value').evaluate((e) => getComputedStyle(e).fontFamily)).resolves.toContain('Dojang Noto Sans KR');
    await fill('특이사항', '첫 줄\n둘째 줄');
    await fill('월 급여', '3500000');
    // The date picker is a native <input type=date>.
    await field('date').tap();
    await expect(page.locator('#field-input').getAttribute('type')).resolves.toBe('date');
    await page.locator('#field-input').fill('2027-01-02');
    await page.locator('#field-save').tap();
    await dialog.waitFor({ state: 'hidden' });
    await expect(field('date').locator('.field-value').textContent()).resolves.toBe('2027년 1월 2일');
    await field('dropdown').tap();
    await page.locator('#field-input').selectOption('계약직');
    await page.locator('#field-save').tap();
    await dialog.waitFor({ state: 'hidden' });
    await fill('이니셜', 'HGD');

    // Checkboxes and radio buttons: the mark opens a sheet with a large native checkbox or the
    // group's options as large radio buttons.
    async function check(label: string) {
      await named(label).tap();
      await dialog.waitFor();
      await page.locator('#field-input').check();
      await page.locator('#field-save').tap();
    }
    await check('개인정보 동의');
    await dialog.waitFor({ state: 'hidden' });
    await check('야간');
    await dialog.waitFor({ state: 'hidden' });
    // The group takes one box at most: the second is refused in the sheet.
    await check('주말');
    await expect(page.locator('#field-error').textContent()).resolves.toContain('1개까지만');
    await page.locator('#field-cancel').tap();
    await dialog.waitFor({ state: 'hidden' });
    await expect(named('주말').getAttribute('data-state')).resolves.toBe('filled'); // optional, unchecked
    await expect(named('주말').locator('.field-value').textContent()).resolves.toBe('');
    await named('월급').tap();
    await page.locator('label.choice', { hasText: '월급' }).tap();
    await page.locator('label.choice', { hasText: '주급' }).tap();
    await page.locator('#field-save').tap();
    await dialog.waitFor({ state: 'hidden' });
    await expect(named('주급').locator('.field-value').textContent()).resolves.toBe('✓');
    await expect(named('월급').locator('.field-value').textContent()).resolves.toBe('');

    // A typed signature: the name in the handwriting font, sent as the drawn one would be.
    await field('signature').tap();
    await page.locator('#sig-mode-type').tap();
    await expect(page.locator('#typed-name').inputValue()).resolves.toBe('홍길동');
    await page.waitForFunction(() => document.fonts.check('96px "Dojang Pen"', '홍길동'));
    await page.locator('#consent').check();
    await expect(page.locator('#sign-btn').isEnabled()).resolves.toBe(true);
    await expect(page.locator('.field-own:not(.field-static):not(.field-filled)').count()).resolves.toBe(1); // the unchecked optional box
    await shot(page, '03-filled');
    expect(await axe(page)).toEqual([]);

    const signed = page.waitForResponse((r) => r.url().endsWith('/sign') && r.request().method() === 'POST');
    await page.locator('#sign-btn').tap();
    const res = await signed;
    expect(res.status()).toBe(200);
    const body = res.request().postDataJSON();
    expect(body.signature).toMatch(/^data:image\/png;base64,/);
    await page.locator('#notice-title').waitFor();
    await shot(page, '04-signed');

    const after = await api('get', `/v1/documents/${doc.id}`);
    const value = (label: string) => after.fields.find((f: any) => f.label === label && f.participant_id === me.id)?.value;
    expect(value('주소')).toBe('서울시 종로구 똠방길 1');
    expect(value('특이사항')).toBe('첫 줄\n둘째 줄');
    expect(value('사번')).toBe('AB-1234');
    expect(value('월 급여')).toBe('3500000');
    expect(value('입사일')).toBe('2027-01-02');
    expect(value('근무 형태')).toBe('계약직');
    expect(value('개인정보 동의')).toBe(true);
    expect(value('야간')).toBe(true);
    expect(value('이니셜')).toBe('HGD');
    const radios = after.fields.filter((f: any) => f.group === 'pay').map((f: any) => [f.option, f.value]);
    expect(radios).toEqual([['월급', false], ['주급', true]]);
    expect(after.fields.find((f: any) => f.type === 'name' && f.participant_id === me.id).value).toBe('홍길동');
    expect(problems).toEqual([]);
  });

  it('uploads an attachment from the file input (stubbed endpoint), shows the server refusal on a field, and sends the attachment id at Sign', async () => {
    const doc = await api('post', '/v1/documents', { title: '첨부 서류', content: '<p>신분증 사본을 첨부해 주세요.</p>' }, 201);
    const me = await api('post', `/v1/documents/${doc.id}/participants`, { name: '김첨부', email: 'a@example.com', auth: 'none' }, 201);
    await api('put', `/v1/documents/${doc.id}/fields`, { fields: [{ participant_id: me.id, type: 'signature', ...box(1, 10, 70, 30, 8) }] });
    const sent = await api('post', `/v1/documents/${doc.id}/send`, {});
    const url = `${origin}/sign/${sent.participants[0].signing_url.split('/sign/')[1]}`;
    const attachmentField = { id: '6f1c1e1a-0000-4000-8000-000000000001', type: 'attachment', page: 1, x: 10, y: 20, width: 40, height: 6, required: true, upload_only: false, label: '신분증 사본', accept: ['pdf', 'jpeg', 'png'], max_bytes: 1_000_000 };

    const { page, problems } = await open(url);
    // Stubs for what the signer branch serves: the session lists an attachment field, the upload answers 201.
    await page.route(/\/v1\/signing\/[^/]+$/, async (route) => {
      const real = await route.fetch();
      const view = await real.json();
      view.fields.push(attachmentField);
      await route.fulfill({ response: real, json: view });
    });
    const uploads: string[] = [];
    await page.route(/\/v1\/signing\/[^/]+\/attachments$/, async (route) => {
      const req = route.request();
      uploads.push(`${req.method()} ${req.headers()['content-type']?.split(';')[0]} ${/name="field_id"\r\n\r\n([^\r]+)/.exec(req.postData() ?? '')?.[1]}`);
      await route.fulfill({ status: 201, json: { attachment_id: 'att_0123456789', field_id: attachmentField.id, filename: 'id-card.png', content_type: 'image/png', size: 120, sha256: 'a'.repeat(64) } });
    });
    let signBody: any = null;
    let signCalls = 0;
    await page.route(/\/v1\/signing\/[^/]+\/sign$/, async (route) => {
      signBody = route.request().postDataJSON();
      signCalls++;
      // First the refusal the server gives for a bad value, naming the field; then the real answer.
      if (signCalls === 1) {
        await route.fulfill({ status: 400, json: { error: { type: 'invalid_request_error', code: 'field_value_invalid', message: `"신분증 사본" (${attachmentField.id}) names no attachment uploaded for this field.`, param: `values.${attachmentField.id}`, request_id: 'req_stub' } } });
        return;
      }
      await route.continue({ postData: JSON.stringify({ ...signBody, values: undefined }) });
    });
    await page.goto(url, { waitUntil: 'networkidle' });
    await page.locator('#sign-step').waitFor();

    const field = page.locator('.field-own.field-attachment');
    await field.tap();
    // A file input for files, and one that offers the camera (capture).
    await expect(page.locator('#attachment-file').getAttribute('accept')).resolves.toBe('application/pdf,image/jpeg,image/png');
    await expect(page.locator('#attachment-camera').getAttribute('capture')).resolves.toBe('environment');
    expect(await axe(page)).toEqual([]);
    // A file the field does not accept is refused in the page, without an upload.
    await page.locator('#attachment-file').setInputFiles({ name: 'notes.txt', mimeType: 'text/plain', buffer: Buffer.from('hello') });
    await expect(page.locator('#field-error').textContent()).resolves.toContain('허용되지 않는 파일 형식');
    expect(uploads).toEqual([]);
    await page.locator('#attachment-camera').setInputFiles({ name: 'id-card.png', mimeType: 'image/png', buffer: solidPngBytes(10, 10, [0, 0, 0, 255]) });
    await page.locator('#field-dialog').waitFor({ state: 'hidden' });
    expect(uploads).toEqual([`POST multipart/form-data ${attachmentField.id}`]);
    await expect(field.locator('.field-value').textContent()).resolves.toBe('id-card.png');

    // Draw nothing: type the signature, consent, sign → the stubbed refusal marks the field.
    await page.locator('#sig-mode-type').tap();
    await page.locator('#consent').check();
    await page.locator('#sign-btn').tap();
    await page.locator('#sign-error').waitFor();
    expect(signBody.values).toEqual({ [attachmentField.id]: 'att_0123456789' });
    // In the page's words, not the server's English; the field is marked on the page.
    await expect(page.locator('#sign-error .error-main').textContent()).resolves.toBe('입력한 값이 올바르지 않습니다. 표시된 칸을 확인해 주세요.');
    await expect(page.locator('#sign-error').textContent()).resolves.not.toContain('names no attachment');
    await expect(field.getAttribute('class')).resolves.toContain('field-invalid');
    await shot(page, '05-attachment-refused');
    expect(await axe(page)).toEqual([]);
    // Tapping the marked field again replaces the file; the second Sign goes through.
    await page.locator('#sign-btn').tap();
    await page.locator('#notice-title').waitFor();
    expect(signCalls).toBe(2);
    expect(problems.filter((p) => !p.includes('400'))).toEqual([]);
  });

  it('says the link was replaced when a correction gave the participant a new one', async () => {
    const doc = await api('post', '/v1/documents', { title: '정정된 링크', content: '<p>본문</p>' }, 201);
    const me = await api('post', `/v1/documents/${doc.id}/participants`, { name: '이정정', email: 'old@example.com', auth: 'none' }, 201);
    await api('put', `/v1/documents/${doc.id}/fields`, { fields: [{ participant_id: me.id, type: 'signature', ...box(1, 10, 70, 30, 8) }] });
    const sent = await api('post', `/v1/documents/${doc.id}/send`, {});
    const oldUrl = `${origin}/sign/${sent.participants[0].signing_url.split('/sign/')[1]}`;
    await api('patch', `/v1/documents/${doc.id}/participants/${me.id}`, { email: 'new@example.com' });

    const { page } = await open(oldUrl);
    const answer = page.waitForResponse((r) => /\/v1\/signing\/[^/]+$/.test(r.url()));
    await page.goto(oldUrl, { waitUntil: 'networkidle' });
    const res = await answer;
    expect(res.status()).toBe(404);
    expect((await res.json()).error.code).toBe('signing_link_replaced');
    await page.locator('#fatal').waitFor();
    await expect(page.locator('#fatal-title').textContent()).resolves.toMatch(/새 링크|replaced/i);
    await shot(page, '06-replaced');
    expect(await axe(page)).toEqual([]);
  });

  it('serves its text files compressed (brotli, else gzip) and the same bytes uncompressed', async () => {
    for (const file of ['main.js', 'i18n.js', 'styles.css', 'page.css', 'fonts/fonts.css']) {
      const plain = await t.http.get(`/sign/assets/${file}`).set('Accept-Encoding', 'identity');
      expect(plain.headers['content-encoding']).toBeUndefined();
      const br = await fetch(`${origin}/sign/assets/${file}`, { headers: { 'Accept-Encoding': 'br' } });
      expect({ file, encoding: br.headers.get('content-encoding'), vary: br.headers.get('vary') }).toEqual({ file, encoding: 'br', vary: 'Accept-Encoding' });
      expect(await br.text()).toBe(plain.text);
      const gz = await fetch(`${origin}/sign/assets/${file}`, { headers: { 'Accept-Encoding': 'gzip' } });
      expect(gz.headers.get('content-encoding')).toBe('gzip');
      expect(await gz.text()).toBe(plain.text);
    }
    // page.css is styles.css then brand.css, as one render-blocking request (the HTML links it alone).
    const css = await t.http.get('/sign/assets/page.css').set('Accept-Encoding', 'identity');
    expect(css.headers['content-type']).toBe('text/css; charset=utf-8');
    expect(css.text).toBe(['styles.css', 'brand.css'].map((f) => `${fs.readFileSync(path.join(SIGNING_PAGE_DIR, f), 'utf8')}\n`).join(''));
  });
});
