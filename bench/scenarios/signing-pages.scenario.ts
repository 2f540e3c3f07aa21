import * as fs from 'fs';
import { startServer, tempDataDir } from '../../test/support/built-server';
import { BenchContext, BenchRow, BenchScenario, HttpResult } from '../harness';
import { rssSampler } from './isolation.scenario';

/** A contract of about 20 pages of Korean text; `n` makes each signer's document its own PDF. */
function twentyPageContract(n: number): string {
  const clause = (i: number) =>
    `<h3>제${i}조 (조항 ${i})</h3><p>갑(${n}번 회사)과 을은 본 조항에 따라 성실하게 의무를 이행하며, 이를 위반한 경우 상대방에게 발생한 손해를 배상한다. ` +
    '본 조항의 해석에 관하여 이견이 있는 경우 당사자는 상호 협의하여 해결한다.</p>'.repeat(3);
  return Array.from({ length: 110 }, (_, i) => clause(i + 1)).join('');
}

/** The render-page job's duration histogram (seconds) from GET /metrics: count and sum. */
async function renderPageMetrics(url: string): Promise<{ count: number; sum: number }> {
  const text = await (await fetch(url + '/metrics')).text();
  const value = (suffix: string) => Number(new RegExp(`^dojang_pdf_job_duration_seconds_${suffix}\\{kind="render-page"\\} (\\S+)$`, 'm').exec(text)?.[1] ?? 0);
  return { count: value('count'), sum: value('sum') };
}

/**
 * Issue 22's isolation goal: 16 signers open their own 20-page contracts on the signing page at
 * once — the session, then every page image in the order the page asks for them (page 1 first,
 * the rest as the signer scrolls, two at a time, at the 960 px a phone's screen picks) — while
 * GET /v1/health at 16 connections keeps p99 ≤ 50 ms. Every page image is rendered in the PDF pool
 * (once per PDF, page and width); its cost per page is read from the pool's job metrics.
 */
export const signingPagesScenario: BenchScenario = {
  id: 'signing-pages',
  title: 'Signing pages (16 signers opening 20-page contracts next to GET /v1/health)',
  async run(ctx) {
    const server = await startServer({ dataDir: tempDataDir('dojang-bench-signing-pages-'), env: { RATE_LIMIT_PER_MINUTE: '100000000', LOG_LEVEL: 'silent' }, readyTimeoutMs: 120_000 });
    const sampler = rssSampler(server.child.pid);
    const http: HttpResult[] = [];
    const opened: Array<{ ms: number; pages: number; failed: number; firstPageMs: number }> = [];
    let rendered = { count: 0, sum: 0 };
    let stop = false;
    try {
      const org = await ctx.createOrg(server.dataDir);
      const auth = { Authorization: `Bearer ${org.test}`, 'Content-Type': 'application/json' };
      const post = async (path: string, body: unknown, method = 'POST') => {
        const res = await fetch(server.url + path, { method, headers: auth, body: JSON.stringify(body) });
        const json = await res.json();
        if (res.status >= 300) throw new Error(`${path}: ${res.status} ${json?.error?.code}`);
        return json;
      };
      // The documents are made and sent first (their PDFs rendered then): what is measured next
      // is only what signers opening their links cost.
      ctx.log('signing-pages: sending 16 twenty-page contracts');
      const tokens: string[] = [];
      for (let n = 0; n < 16; n++) {
        const doc = await post('/v1/documents', { title: `20쪽 계약서 ${n + 1}`, content: twentyPageContract(n + 1) });
        const p = await post(`/v1/documents/${doc.id}/participants`, { name: '김철수', email: `kim${n}@example.com`, auth: 'none' });
        await post(`/v1/documents/${doc.id}/fields`, { fields: [{ participant_id: p.id, type: 'signature', page: 20, x: 60, y: 80, width: 25, height: 8 }] }, 'PUT');
        const sent = await post(`/v1/documents/${doc.id}/send`, {});
        tokens.push(String(sent.participants[0].signing_url).split('/sign/')[1]);
      }
      const before = await renderPageMetrics(server.url);
      const signer = async (token: string) => {
        const t0 = Date.now();
        const view = await (await fetch(`${server.url}/v1/signing/${token}`)).json();
        const count: number = view.document.page_count;
        const url = (n: number) => `${server.url}/v1/signing/${token}/pages/${n}.png?w=960&v=${view.document.pages_version}`;
        let failed = 0;
        const get = async (n: number) => {
          const res = await fetch(url(n));
          await res.arrayBuffer();
          if (res.status !== 200) failed++;
        };
        await get(1);
        const firstPageMs = Date.now() - t0;
        // Lazy-loading as the signer scrolls: the next two pages at a time.
        for (let n = 2; n <= count && !stop; n += 2) await Promise.all([get(n), ...(n + 1 <= count ? [get(n + 1)] : [])]);
        opened.push({ ms: Date.now() - t0, pages: count, failed, firstPageMs });
      };
      const ctx16 = new BenchContext({ ...ctx.options, connections: 16 });
      http.push(await ctx16.measure({ name: 'GET /v1/health alone (reference)', target: server, method: 'GET', path: '/v1/health' }));
      const signers = Promise.all(tokens.map((token) => signer(token)));
      http.push(await ctx16.measure({ name: 'GET /v1/health next to 16 signers opening 20-page contracts', target: server, method: 'GET', path: '/v1/health', goal: { maxP99Ms: 50 } }));
      stop = true;
      await signers;
      const after = await renderPageMetrics(server.url);
      rendered = { count: after.count - before.count, sum: after.sum - before.sum };
    } finally {
      stop = true;
      await ctx.stop(server);
      fs.rmSync(server.dataDir, { recursive: true, force: true });
    }
    const rss = sampler.stop();
    const perPageMs = rendered.count ? Math.round((rendered.sum * 1000) / rendered.count) : 0;
    const firsts = opened.map((o) => o.firstPageMs).sort((a, b) => a - b);
    const rows: BenchRow[] = [
      { name: 'page images rendered in the PDF pool during the run (960 px)', value: rendered.count, unit: 'pages' },
      { name: 'page-image rendering cost per page (pool job time, mean)', value: perPageMs, unit: 'ms' },
      { name: 'signers: session to page 1 image, median', value: firsts.length ? firsts[Math.floor(firsts.length / 2)] : 0, unit: 'ms' },
      { name: 'signers: session to page 1 image, slowest', value: firsts.length ? firsts[firsts.length - 1] : 0, unit: 'ms' },
      { name: 'page images answered other than 200', value: opened.reduce((s, o) => s + o.failed, 0), unit: 'requests' },
      { name: 'server RSS peak during the run', value: rss.peakMb, unit: 'MB' },
    ];
    const markdown = [
      '### Signing pages: 16 signers opening 20-page contracts next to GET /v1/health (16 connections)',
      '',
      `${opened.length} signers opened their links during the measured window; ${rendered.count} page images were rendered in the PDF pool, ${perPageMs} ms each on average (pool job time: PDFium render and PNG encoding). Server RSS median ${rss.medianMb} MB, peak ${rss.peakMb} MB.`,
      '',
    ].join('\n');
    return { http, rows, markdown };
  },
};
