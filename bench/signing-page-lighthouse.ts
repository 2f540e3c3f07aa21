/**
 * Lighthouse on the signing page (issue 22 §6), run by hand:
 *
 *   CHROME_PATH=/usr/bin/chromium npx ts-node --transpile-only -r tsconfig-paths/register bench/signing-page-lighthouse.ts
 *
 * Starts the app in process (the test app: embedded store, real PDF pool), sends a three-page
 * contract to a signer with a signature field, and runs the pinned lighthouse@12.2.3 CLI with its
 * default mobile settings (Moto G Power viewport, simulated slow 4G: 150 ms RTT, 1.6 Mbps, 4× CPU
 * slowdown) against the signing link. Prints performance and accessibility scores, FCP, LCP, TBT,
 * CLS, what the LCP element is (the first page image, when the page shows it first) and the
 * bytes transferred; results go in docs/BENCHMARKS.md. Goals: performance ≥ 90, accessibility
 * ≥ 95, the first page image visible (LCP) within 2 s.
 */
import { execFile } from 'child_process';
import { promisify } from 'util';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { AddressInfo } from 'net';
import { denseContractHtml } from '../test/support/dense-contract';
import { bearer, startTestApp } from '../test/support/test-app';

async function main() {
  const chrome = process.env.CHROME_PATH || '/usr/bin/chromium';
  console.error('starting the app…');
  const t = await startTestApp();
  try {
    const org = await t.createOrg();
    const h = bearer(org.test);
    await t.app.listen(0, '127.0.0.1');
    const origin = `http://127.0.0.1:${(t.app.getHttpServer().address() as AddressInfo).port}`;
    const paragraphs = denseContractHtml();
    const doc = (await t.http.post('/v1/documents').set(h).send({ title: '근로계약서 (표준)', content: paragraphs })).body;
    const p = (await t.http.post(`/v1/documents/${doc.id}/participants`).set(h).send({ name: '홍길동', email: 'gildong@example.com', auth: 'none' })).body;
    await t.http.put(`/v1/documents/${doc.id}/fields`).set(h).send({
      fields: [
        { participant_id: p.id, type: 'text', label: '주소', page: 1, x: 10, y: 80, width: 40, height: 4 },
        { participant_id: p.id, type: 'signature', page: 1, x: 55, y: 85, width: 30, height: 8 },
      ],
    });
    const sent = (await t.http.post(`/v1/documents/${doc.id}/send`).set(h).send({})).body;
    const url = `${origin}/sign/${sent.participants[0].signing_url.split('/sign/')[1]}`;
    // Warm the page images once (rendered once per document version, then cached), as a real
    // signer opening a link some time after the send would find them.
    const view = (await t.http.get(`/v1/signing/${url.split('/sign/')[1]}`)).body;
    for (const w of [480, 720, 960]) await t.http.get(`/v1/signing/${url.split('/sign/')[1]}/pages/1.png?w=${w}&v=${view.document.pages_version}`);

    console.error(`lighthouse on ${origin}/sign/…`);
    const out = process.env.LH_OUT ?? path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'dojang-lh-')), 'report.json');
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
    const lcpItem = a['largest-contentful-paint-element']?.details?.items?.[0]?.items?.[0]?.node;
    const bytes = a['total-byte-weight'].numericValue;
    console.log(
      JSON.stringify(
        {
          lighthouse: lhr.lighthouseVersion,
          form_factor: lhr.configSettings.formFactor,
          throttling: lhr.configSettings.throttling,
          performance: Math.round(lhr.categories.performance.score * 100),
          accessibility: Math.round(lhr.categories.accessibility.score * 100),
          fcp_ms: ms('first-contentful-paint'),
          lcp_ms: ms('largest-contentful-paint'),
          tbt_ms: ms('total-blocking-time'),
          cls: a['cumulative-layout-shift'].numericValue,
          speed_index_ms: ms('speed-index'),
          // With Chromium 156, lighthouse 12.2.3's TraceElements gatherer fails ("frame_sequence"),
          // so this is often null: the error says so.
          lcp_element: lcpItem ? lcpItem.snippet : a['largest-contentful-paint-element']?.errorMessage ?? null,
          total_bytes: Math.round(bytes),
          failed_accessibility_audits: Object.values(lhr.categories.accessibility.auditRefs as Array<{ id: string }>)
            .filter((r) => a[r.id].score !== null && a[r.id].score < 1)
            .map((r) => r.id),
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
