import AxeBuilder from '@axe-core/playwright';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import type { AddressInfo } from 'net';
import { Browser, BrowserContext, BrowserContextOptions, chromium, Frame, Page } from 'playwright-core';
import { startTestApp, TestApp } from './test-app';

/** Debian's Chromium in a container: no sandbox, no GPU, nothing phoning home. */
export const CHROMIUM_ARGS = ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'];

/** The phone most Korean signers hold: Android Chrome at 390×844. */
export const ANDROID_PHONE: BrowserContextOptions = {
  viewport: { width: 390, height: 844 },
  deviceScaleFactor: 3,
  isMobile: true,
  hasTouch: true,
  locale: 'ko-KR',
  userAgent: 'Mozilla/5.0 (Linux; Android 14; SM-S921N) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/130.0.0.0 Mobile Safari/537.36',
};

/**
 * A fontconfig listing only DejaVu (Latin), whatever this machine has installed: Chromium then has
 * no system font with Hangul, like a phone without Korean fonts, and the page's web font is the
 * only way it can draw Korean. Pass it as FONTCONFIG_FILE to chromium.launch.
 */
export function latinOnlyFontconfig(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'dojang-latin-fonts-'));
  const file = path.join(dir, 'fonts.conf');
  fs.writeFileSync(
    file,
    `<?xml version="1.0"?><!DOCTYPE fontconfig SYSTEM "fonts.dtd"><fontconfig><dir>/usr/share/fonts/truetype/dejavu</dir><cachedir>${path.join(dir, 'cache')}</cachedir></fontconfig>`,
  );
  return file;
}

/**
 * Debian's Chromium, whose contexts wait up to 120 s for an element or a navigation: Playwright's
 * 30 s default is a hang guard a loaded CI can reach (two CPU hogs beside the suite), and every
 * wait in these specs is for a state, never a speed check. `env` is the browser's environment.
 */
export async function launchChromium(env?: NodeJS.ProcessEnv): Promise<Browser> {
  const browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: CHROMIUM_ARGS, ...(env ? { env } : {}) });
  const newContext = browser.newContext.bind(browser);
  // newPage() makes its context through this.newContext, so pages opened directly get it too.
  browser.newContext = async (options?: BrowserContextOptions) => {
    const context = await newContext(options);
    context.setDefaultTimeout(120_000);
    context.setDefaultNavigationTimeout(120_000);
    return context;
  };
  return browser;
}

/**
 * A spec file's in-process app (the test app: embedded store, real PDF pool) listening on
 * 127.0.0.1, and one Debian Chromium, started side by side. `latinOnlyFonts`: Chromium sees no
 * system font with Hangul (latinOnlyFontconfig), as on a phone without Korean fonts.
 */
export async function startBrowserApp(options: { app?: Parameters<typeof startTestApp>[0]; latinOnlyFonts?: boolean } = {}): Promise<{ t: TestApp; browser: Browser; origin: string }> {
  const [t, browser] = await Promise.all([
    startTestApp(options.app),
    launchChromium(options.latinOnlyFonts ? { ...process.env, FONTCONFIG_FILE: latinOnlyFontconfig() } : undefined),
  ]);
  await t.app.listen(0, '127.0.0.1');
  return { t, browser, origin: `http://127.0.0.1:${(t.app.getHttpServer().address() as AddressInfo).port}` };
}

/** Closes the browser contexts a test opened (and empties the list for the next test). */
export async function closeContexts(contexts: BrowserContext[]): Promise<void> {
  await Promise.all(contexts.splice(0).map((c) => c.close()));
}

export interface AxeViolation {
  id: string;
  impact: string | null;
  help: string;
  nodes: string[];
}

/**
 * WCAG 2.x A and AA violations axe-core finds in the page as it is now, through @axe-core/playwright
 * (it evaluates axe in the page through the DevTools protocol, not as a <script>, which the page's
 * CSP would refuse).
 */
export async function axeViolations(page: Page): Promise<AxeViolation[]> {
  const result = await new AxeBuilder({ page }).withTags(['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'wcag22aa']).analyze();
  return result.violations.map((v) => ({ id: v.id, impact: v.impact ?? null, help: v.help, nodes: v.nodes.map((n) => `${n.target.join(' ')}: ${n.failureSummary}`) }));
}

export interface GlyphReport {
  /** The element's computed font-family stack. */
  stack: string;
  /** Each non-ASCII character of its text: drawn exactly as the slice font alone draws it, or as the missing-glyph box. */
  chars: Array<{ ch: string; bySliceFont: boolean; box: boolean }>;
}

/**
 * How the page draws the non-ASCII characters of `selector`'s text, on a canvas: with the element's
 * own font stack, compared with the page's slice font ("Dojang Noto Sans KR") alone and with a code
 * point no font has (the missing-glyph box). Waits for the page's fonts first.
 */
export async function glyphReport(page: Page, selector: string): Promise<GlyphReport> {
  await page.evaluate(() => document.fonts.ready);
  return page.evaluate((sel) => {
    const el = document.querySelector(sel) as HTMLElement;
    const stack = getComputedStyle(el).fontFamily;
    const canvas = document.createElement('canvas');
    canvas.width = 64;
    canvas.height = 64;
    const ctx = canvas.getContext('2d', { willReadFrequently: true })!;
    const draw = (ch: string, family: string) => {
      ctx.clearRect(0, 0, 64, 64);
      ctx.font = `40px ${family}`;
      ctx.fillText(ch, 4, 48);
      return Array.from(ctx.getImageData(0, 0, 64, 64).data).join(',');
    };
    const tofu = draw('\uE000', stack);
    const chars = [...new Set([...(el.textContent ?? '')].filter((c) => c.codePointAt(0)! > 0x7f && c.trim()))];
    return {
      stack,
      chars: chars.map((ch) => {
        const drawn = draw(ch, stack);
        return { ch, bySliceFont: drawn === draw(ch, '"Dojang Noto Sans KR"'), box: drawn === tofu };
      }),
    };
  }, selector);
}

export type ApiMethod = 'get' | 'post' | 'put' | 'patch' | 'delete';

/**
 * One call to the test app's API with `headers` (a key's bearer, an Idempotency-Key), failing with
 * what came back unless it answers `status`; the body it answered. The browser specs set up their
 * documents through this before a page opens.
 */
export async function callApi<T = any>(t: TestApp, headers: Record<string, string>, method: ApiMethod, url: string, body?: unknown, status = 200): Promise<T> {
  let req = t.http[method](url).set(headers);
  if (body !== undefined) req = req.send(body as object);
  const res = await req;
  if (res.status !== status) throw new Error(`${method.toUpperCase()} ${url}: expected ${status}, got ${res.status}: ${JSON.stringify(res.body)}`);
  return res.body as T;
}

/**
 * Waits until every image `selector` matches in `where` has settled, loaded or broken, and returns
 * the addresses of the broken ones (none is the answer a test asserts). Waiting for each to be
 * loaded instead would wait for ever on one whose request failed, and a busy run's test would end
 * at its time limit with nothing said about which image or why.
 */
export async function brokenImages(where: Page | Frame, selector: string): Promise<string[]> {
  // An <img> given no address yet also counts as complete: it has not settled until it has one.
  await where.waitForFunction((s) => Array.from(document.querySelectorAll<HTMLImageElement>(s)).every((img) => (img.getAttribute('src') || img.getAttribute('srcset')) && img.complete), selector);
  return where.evaluate((s) => Array.from(document.querySelectorAll<HTMLImageElement>(s)).filter((img) => !(img.naturalWidth > 0)).map((img) => img.currentSrc || img.src), selector);
}

/**
 * The text the editor's `#status` settles on after a save was pressed (which sets it to "saving"
 * at once): its success, or any refusal, so a refused save fails its test with the editor's own
 * message instead of a wait for "saved" that never ends.
 */
export async function settledStatus(where: Page | Frame): Promise<string> {
  const text = await where.waitForFunction(() => {
    const t = document.querySelector('#status')?.textContent?.trim() ?? '';
    return t && !/^(저장하는 중…|Saving…)$/.test(t) ? t : null;
  });
  return (await text.jsonValue()) as string;
}

/**
 * The natural width of the `index`-th image `selector` matches once it has settled, loaded or
 * broken: 0 for a broken one, which its test then fails on at once (see `brokenImages`).
 */
export async function settledImageWidth(where: Page | Frame, selector: string, index = 0): Promise<number> {
  await where.waitForFunction(
    ([s, i]) => {
      const img = document.querySelectorAll<HTMLImageElement>(s as string)[i as number];
      return !!img && !!(img.getAttribute('src') || img.getAttribute('srcset')) && img.complete;
    },
    [selector, index] as const,
  );
  return where.evaluate(([s, i]) => document.querySelectorAll<HTMLImageElement>(s as string)[i as number].naturalWidth, [selector, index] as const);
}
