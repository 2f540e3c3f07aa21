/**
 * PDF benchmarks.
 *
 * (a) What our HTML pipeline (sanitize + convert) costs on top of pdfmake:
 *     renderDocumentPdf vs raw pdfmake on the very same document definition,
 *     for a 10-page Korean contract. Goal: ratio ≤ 1.5×.
 * (b) Building a final PDF for a 10-page, 3-signer contract: stamp three
 *     signature images, then the PAdES signature.
 *
 * Run: npx ts-node --transpile-only -r tsconfig-paths/register bench/pdf.bench.ts
 * PDF_BENCH_RUNS sets the number of measured runs per case (default 7).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PDFDocument } from 'pdf-lib';
import { RenderDocumentInput } from '../libs/pdf/src';
import { buildDocDefinition, renderDocDefinition, renderDocumentPdf, stampPdf } from '../libs/pdf/src/rendering';
import { loadOrCreateSigningIdentity, signPdf } from '../libs/evidence/src';
import { signatureLikePng } from '../libs/pdf/src/testing/png';

export interface BenchRow {
  name: string;
  value: number;
  unit: string;
}

const RATIO_GOAL = 1.5;

/** A 10-page employment contract in the HTML an editor would produce. */
export function koreanContractHtml(articles = 29): string {
  const parts: string[] = ['<p style="text-align:center"><b>주식회사 도장</b>(이하 "갑")과 <b>홍길동</b>(이하 "을")은 다음과 같이 근로계약을 체결한다.</p>'];
  for (let i = 1; i <= articles; i++) {
    parts.push(`<h3>제${i}조 (근로조건 ${i})</h3>`);
    parts.push(
      `<p>갑과 을은 다음과 같이 계약한다. 을은 갑의 취업규칙과 제반 규정을 성실히 준수하여야 하며, 갑은 근로기준법이 정하는 바에 따라 을의 근로조건을 보장한다. 본 조항은 <u>계약 기간 동안</u> 유효하며 <i>당사자 간 서면 합의</i>로만 변경할 수 있다.</p>`,
    );
    parts.push('<ol><li>근로 장소: 서울특별시 중구 세종대로 110</li><li>업무 내용: 전자계약 서비스 운영 및 고객 지원</li><li>근로 시간: 09:00부터 18:00까지 (휴게 12:00~13:00)</li></ol>');
    if (i % 3 === 0) {
      parts.push(
        '<table><thead><tr><th>구분</th><th>금액</th><th>지급일</th></tr></thead><tbody>' +
          '<tr><td>기본급</td><td>월 3,000,000원</td><td>매월 25일</td></tr>' +
          '<tr><td>식대</td><td>월 200,000원</td><td>매월 25일</td></tr>' +
          '<tr><td colspan="2">합계</td><td>월 3,200,000원</td></tr></tbody></table>',
      );
    }
    parts.push('<p>위 내용에 대하여 갑과 을은 이의 없음을 확인하며, 본 계약서 2부를 작성하여 각 1부씩 보관한다.</p>');
  }
  return parts.join('\n');
}

const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
};

const round = (n: number, digits = 1) => Math.round(n * 10 ** digits) / 10 ** digits;

interface Timing {
  wallMs: number;
  cpuMs: number;
}

/**
 * Wall time and this process's CPU time. The machine running the benchmark
 * may be shared (CI, other test suites); CPU time is what we compare, since
 * it does not count time spent waiting for someone else's process.
 */
async function timed<T>(fn: () => Promise<T>): Promise<[Timing, T]> {
  const cpu = process.cpuUsage();
  const start = process.hrtime.bigint();
  const result = await fn();
  const wallMs = Number(process.hrtime.bigint() - start) / 1e6;
  const used = process.cpuUsage(cpu);
  return [{ wallMs, cpuMs: (used.user + used.system) / 1000 }, result];
}

export async function runPdfBench(): Promise<{ rows: BenchRow[]; markdown: string }> {
  const runs = Math.max(1, Number(process.env.PDF_BENCH_RUNS ?? 7));
  const input: RenderDocumentInput = {
    title: '근로계약서',
    format: 'html',
    content: koreanContractHtml(),
    created_at: '2026-03-01T00:00:00Z',
  };

  // Warm-up: font files, fontkit tables and the JIT, so run 1 is not an outlier.
  const contract = await renderDocumentPdf(input);
  await renderDocDefinition(buildDocDefinition(input));
  const pageCount = (await PDFDocument.load(contract)).getPageCount();

  // (a) Alternating order (ABBA) so warm caches, GC debt and load from
  // other processes fall on both sides alike.
  const ours: Timing[] = [];
  const raw: Timing[] = [];
  const build: Timing[] = [];
  const measureOurs = async () => ours.push((await timed(() => renderDocumentPdf(input)))[0]);
  const measureRaw = async () => {
    // pdfmake consumes its definition, so each raw run gets a fresh one, built outside the clock.
    const [buildTiming, def] = await timed(async () => buildDocDefinition(input));
    build.push(buildTiming);
    raw.push((await timed(() => renderDocDefinition(def)))[0]);
  };
  for (let i = 0; i < runs; i++) {
    if (i % 2 === 0) {
      await measureOurs();
      await measureRaw();
    } else {
      await measureRaw();
      await measureOurs();
    }
  }
  const cpu = (t: Timing[]) => median(t.map((x) => x.cpuMs));
  const wall = (t: Timing[]) => median(t.map((x) => x.wallMs));
  const ratio = cpu(ours) / cpu(raw);

  // (b) Final PDF: three signers sign on the last page, then the file is sealed.
  const dataDir = mkdtempSync(join(tmpdir(), 'dojang-pdf-bench-'));
  const final: Timing[] = [];
  const stampOnly: Timing[] = [];
  let finalSize = 0;
  try {
    const identity = await loadOrCreateSigningIdentity({ dataDir });
    const stamps = [1, 2, 3].map((seed, i) => ({
      page: pageCount,
      x: 8 + i * 30,
      y: 80,
      width: 25,
      height: 8,
      image: signatureLikePng(600, 200, seed),
    }));
    const buildFinal = async () =>
      signPdf(await stampPdf(contract, stamps), {
        p12: identity.p12,
        passphrase: identity.passphrase,
        reason: '전자계약 체결',
        name: 'Dojang',
        location: 'Seoul, KR',
      });
    finalSize = (await buildFinal()).length; // warm-up (opens the .p12 once)
    for (let i = 0; i < runs; i++) {
      final.push((await timed(buildFinal))[0]);
      stampOnly.push((await timed(() => stampPdf(contract, stamps)))[0]);
    }
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }

  const rows: BenchRow[] = [
    { name: 'contract pages', value: pageCount, unit: 'pages' },
    { name: 'renderDocumentPdf (sanitize + convert + pdfmake), CPU median', value: round(cpu(ours)), unit: 'ms' },
    { name: 'raw pdfmake on the same definition, CPU median', value: round(cpu(raw)), unit: 'ms' },
    { name: 'renderDocumentPdf / raw pdfmake, CPU (goal ≤ 1.5)', value: round(ratio, 3), unit: '×' },
    { name: 'renderDocumentPdf, wall median', value: round(wall(ours)), unit: 'ms' },
    { name: 'raw pdfmake, wall median', value: round(wall(raw)), unit: 'ms' },
    { name: 'renderDocumentPdf / raw pdfmake, wall', value: round(wall(ours) / wall(raw), 3), unit: '×' },
    { name: 'sanitize + convert only (buildDocDefinition), CPU median', value: round(cpu(build), 2), unit: 'ms' },
    // The only work renderDocumentPdf adds is buildDocDefinition; this ratio is immune to run-to-run noise.
    { name: '(convert + raw pdfmake) / raw pdfmake, CPU', value: round((cpu(build) + cpu(raw)) / cpu(raw), 3), unit: '×' },
    { name: 'rendered contract size', value: round(contract.length / 1024), unit: 'KiB' },
    { name: 'final PDF: stamp 3 signatures + PAdES sign, CPU median', value: round(cpu(final)), unit: 'ms' },
    { name: 'final PDF: stamp 3 signatures + PAdES sign, wall median', value: round(wall(final)), unit: 'ms' },
    { name: 'of which stamping 3 signatures, CPU median', value: round(cpu(stampOnly)), unit: 'ms' },
    { name: 'final PDF size', value: round(finalSize / 1024), unit: 'KiB' },
    { name: 'measured runs per case', value: runs, unit: 'runs' },
  ];
  const markdown = [
    `### PDF (${pageCount}-page Korean contract, median of ${runs} runs, Node ${process.version})`,
    '',
    '| measure | value | unit |',
    '|---|---:|---|',
    ...rows.map((r) => `| ${r.name} | ${r.value} | ${r.unit} |`),
    '',
    ratio <= RATIO_GOAL
      ? `Render overhead goal met: ${round(ratio, 3)}× ≤ ${RATIO_GOAL}×.`
      : `Render overhead goal MISSED: ${round(ratio, 3)}× > ${RATIO_GOAL}×.`,
  ].join('\n');
  return { rows, markdown };
}

if (require.main === module) {
  runPdfBench()
    .then(({ markdown }) => console.log(markdown))
    .catch((error) => {
      console.error(error);
      process.exitCode = 1;
    });
}
