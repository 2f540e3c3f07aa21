/**
 * Lighthouse on the signing page (issue 22 §6, issue 30 §7), and a first open at 1.6 Mbps, run by hand:
 *
 *   CHROME_PATH=/usr/bin/chromium npx ts-node --transpile-only -r tsconfig-paths/register bench/signing-page-lighthouse.ts
 *
 * Starts the app in process (the test app: embedded store, real PDF pool, page images rendered at
 * send), sends the three-page contract of test/support/dense-contract.ts to a signer with 17 fields
 * on page 1, and:
 *
 * 1. runs the pinned lighthouse@12.2.3 CLI (package.json pins it exactly) LH_RUNS times (default 3)
 *    with its default mobile settings (Moto G Power viewport, simulated slow 4G: 150 ms RTT,
 *    1.6 Mbps, 4× CPU slowdown) against the signing link: performance and accessibility scores,
 *    FCP, LCP, TBT, CLS, bytes transferred, each run and the median;
 * 2. opens a freshly sent document's link FIRST_OPEN_RUNS times (default 3) in Chromium at 360×780
 *    and 3× with DevTools' network throttling at 1.6 Mbps down, 750 kbps up and 150 ms latency,
 *    nothing cached, and reads in the page when page 1 was painted (Element Timing) — once as browsers ask for images (WebP) and once asking for PNG only (the page image
 *    as it was before WebP), so one run gives both.
 *
 * Goals (issue 30): Lighthouse mobile LCP ≤ 1.5 s, performance ≥ 95, accessibility 100; page 1
 * visible ≤ 2.0 s at 1.6 Mbps / 150 ms on a first open after send. Results go in docs/BENCHMARKS.md.
 */
import { execFile } from 'child_process';
import { promisify } from 'util';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { AddressInfo } from 'net';
import { chromium } from 'playwright-core';
import { CHROMIUM_ARGS } from '../test/support/browser';
import { denseContractFields, denseContractHtml } from '../test/support/dense-contract';
import { bearer, startTestApp, TestApp } from '../test/support/test-app';

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

/** A freshly sent copy of the contract, its page images rendered at send: the link's path. */
async function sendContract(t: TestApp, h: Record<string, string>): Promise<string> {
  const doc = (await t.http.post('/v1/documents').set(h).send({ title: '근로계약서 (표준)', content: denseContractHtml() })).body;
  const p = (await t.http.post(`/v1/documents/${doc.id}/participants`).set(h).send({ name: '홍길동', email: 'gildong@example.com', auth: 'none' })).body;
  // 17 fields on page 1, as in the contract: the session carries every one.
  await t.http.put(`/v1/documents/${doc.id}/fields`).set(h).send({ fields: denseContractFields(p.id) });
  const sent = (await t.http.post(`/v1/documents/${doc.id}/send`).set(h).send({})).body;
  // The worker renders the page images at send (PageImagesReactor), as a signer's link finds them.
  await t.worker!.runner.catchUp();
  return `/sign/${sent.participants[0].signing_url.split('/sign/')[1]}`;
}

async function lighthouseRun(url: string, chrome: string, run: number) {
  const out = process.env.LH_OUT ? `${process.env.LH_OUT}.${run}.json` : path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'dojang-lh-')), 'report.json');
  const bin = path.join(path.dirname(require.resolve('lighthouse/package.json')), 'cli/index.js');
  // Asynchronously: the app answering the page runs in this very process.
  await promisify(execFile)(
    process.execPath,
    [bin, url, '--quiet', '--output=json', `--output-path=${out}`, '--only-categories=performance,accessibility', '--max-wait-for-load=60000', '--chrome-flags=--headless=new --no-sandbox --disable-gpu'],
    { env: { ...process.env, CHROME_PATH: chrome }, maxBuffer: 64 * 1024 * 1024 },
  );
  const lhr = JSON.parse(fs.readFileSync(out, 'utf8'));
  const a = lhr.audits;
  const ms = (id: string) => Math.round(a[id].numericValue);
  return {
    lighthouse: lhr.lighthouseVersion as string,
    performance: Math.round(lhr.categories.performance.score * 100),
    accessibility: Math.round(lhr.categories.accessibility.score * 100),
    fcp_ms: ms('first-contentful-paint'),
    lcp_ms: ms('largest-contentful-paint'),
    tbt_ms: ms('total-blocking-time'),
    cls: Math.round(a['cumulative-layout-shift'].numericValue * 1000) / 1000,
    total_bytes: Math.round(a['total-byte-weight'].numericValue),
    failed_accessibility_audits: Object.values(lhr.categories.accessibility.auditRefs as Array<{ id: string }>)
      .filter((r) => a[r.id].score !== null && a[r.id].score < 1)
      .map((r) => r.id),
    load_average: os.loadavg()[0],
  };
}

/** One first open at 1.6 Mbps / 150 ms: when page 1 was painted, and what it weighed. */
async function firstOpen(browser: import('playwright-core').Browser, url: string, format: 'webp' | 'png', throttled = true) {
  const context = await browser.newContext({
    viewport: { width: 360, height: 780 },
    deviceScaleFactor: 3,
    isMobile: true,
    hasTouch: true,
    locale: 'ko-KR',
    userAgent: 'Mozilla/5.0 (Linux; Android 14; SM-S921N) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/130.0.0.0 Mobile Safari/537.36',
  });
  try {
    const page = await context.newPage();
    const cdp = await context.newCDPSession(page);
    let bytes = 0;
    let imageBytes = 0;
    const urls = new Map<string, string>();
    cdp.on('Network.requestWillBeSent', (e) => urls.set(e.requestId, e.request.url));
    cdp.on('Network.loadingFinished', (e) => {
      bytes += e.encodedDataLength;
      if (/\/pages\/1\.png/.test(urls.get(e.requestId) ?? '')) imageBytes += e.encodedDataLength;
    });
    await cdp.send('Network.enable');
    await cdp.send('Network.setCacheDisabled', { cacheDisabled: true });
    // 1.6 Mbps down, 750 kbps up, 150 ms: Lighthouse's "slow 4G", applied by DevTools per request.
    if (throttled) await cdp.send('Network.emulateNetworkConditions', { offline: false, latency: 150, downloadThroughput: 1_600_000 / 8, uploadThroughput: 750_000 / 8 });
    // The PNG run: every request asks for PNG (the page image as served before WebP).
    if (format === 'png') await cdp.send('Network.setExtraHTTPHeaders', { headers: { Accept: 'image/png,*/*;q=0.8' } });
    await page.goto(url, { waitUntil: 'commit' });
    await page.waitForFunction(() => {
      const img = document.querySelector('.page-img') as HTMLImageElement | null;
      return !!img && img.complete && img.naturalWidth > 0;
    }, undefined, { timeout: 120_000 });
    // Page 1's paint, by Element Timing (pages.js marks it `elementtiming="page-1"`): the page
    // draws other content first, so the largest-contentful-paint entry is not always the image.
    const painted = await page.evaluate(
      () =>
        new Promise<{ paint: number | null; imageEnd: number | null }>((resolve) => {
          const img = document.querySelector('.page-img') as HTMLImageElement;
          const timing = performance.getEntriesByName(img.currentSrc)[0] as PerformanceResourceTiming | undefined;
          new PerformanceObserver((list) => {
            const entry = (list.getEntries() as Array<PerformanceEntry & { identifier?: string; renderTime?: number }>).find((e) => e.identifier === 'page-1');
            if (entry) resolve({ paint: entry.renderTime || entry.startTime, imageEnd: timing ? timing.responseEnd : null });
          }).observe({ type: 'element', buffered: true });
        }),
    );
    return { format, page1_painted_ms: painted.paint === null ? null : Math.round(painted.paint), page1_arrived_ms: painted.imageEnd === null ? null : Math.round(painted.imageEnd), page1_bytes: imageBytes, bytes_so_far: bytes };
  } finally {
    await context.close();
  }
}

async function main() {
  const chrome = process.env.CHROME_PATH || '/usr/bin/chromium';
  const lhRuns = Number(process.env.LH_RUNS ?? 3);
  const openRuns = Number(process.env.FIRST_OPEN_RUNS ?? 3);
  console.error('starting the app…');
  const t = await startTestApp({ config: { pageImagesAtSend: true } });
  try {
    const org = await t.createOrg();
    const h = bearer(org.test);
    await t.app.listen(0, '127.0.0.1');
    const origin = `http://127.0.0.1:${(t.app.getHttpServer().address() as AddressInfo).port}`;

    const lighthouse: Array<Awaited<ReturnType<typeof lighthouseRun>>> = [];
    for (let run = 1; run <= lhRuns; run++) {
      const url = origin + (await sendContract(t, h));
      console.error(`lighthouse ${run}/${lhRuns} on ${origin}/sign/…`);
      lighthouse.push(await lighthouseRun(url, chrome, run));
    }

    const browser = await chromium.launch({ executablePath: chrome, args: CHROMIUM_ARGS });
    const opens: Array<Awaited<ReturnType<typeof firstOpen>> & { load_average: number }> = [];
    try {
      // One open unthrottled first: the server bundles the page's script on its first request.
      if (openRuns > 0) await firstOpen(browser, origin + (await sendContract(t, h)), 'webp', false);
      for (let run = 1; run <= openRuns; run++) {
        // Alternating which goes first, so neither always follows the other's warm-up.
        for (const format of run % 2 ? (['webp', 'png'] as const) : (['png', 'webp'] as const)) {
          const url = origin + (await sendContract(t, h));
          console.error(`first open ${run}/${openRuns} (${format}) at 1.6 Mbps / 150 ms`);
          opens.push({ ...(await firstOpen(browser, url, format)), load_average: os.loadavg()[0] });
        }
      }
    } finally {
      await browser.close();
    }

    const of = <K extends string>(rows: Array<Record<K, number | null>>, key: K) => median(rows.map((r) => r[key] ?? NaN));
    console.log(
      JSON.stringify(
        {
          lighthouse_runs: lighthouse,
          lighthouse_median: { performance: of(lighthouse, 'performance'), accessibility: of(lighthouse, 'accessibility'), fcp_ms: of(lighthouse, 'fcp_ms'), lcp_ms: of(lighthouse, 'lcp_ms'), total_bytes: of(lighthouse, 'total_bytes') },
          first_open_runs: opens,
          first_open_median: Object.fromEntries(
            (['webp', 'png'] as const).map((f) => {
              const rows = opens.filter((o) => o.format === f);
              return [f, { page1_painted_ms: of(rows, 'page1_painted_ms'), page1_bytes: of(rows, 'page1_bytes') }];
            }),
          ),
        },
        null,
        2,
      ),
    );
  } finally {
    await t.close();
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
