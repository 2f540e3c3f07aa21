/**
 * What the page images rendered at send (PageImagesReactor) cost per sent document, in full: the
 * documents' originals rendered through a one-thread PDF pool, then the same with page 1's images at
 * each width as the send renders them, and every thread of the process measured (the pool's
 * thread, V8's helper threads, whose garbage collection of the worker's heap the renders set off,
 * and libuv's, where sharp encodes the WebP). The lifecycle bench counts the same work among
 * everything else; this names it. Linux only (per-thread CPU from /proc).
 *
 *   npx ts-node --transpile-only -r tsconfig-paths/register bench/page-images.profile.ts [documents]
 *
 * PAGE_IMAGES_WIDTHS=480,720,960 renders the three widths, as the send did before issue 35 item 5.
 */
import * as fs from 'fs';
import * as os from 'os';
import { lifecycleDocumentInput } from './lifecycle-document';
import { DOCUMENT_BUDGETS, PdfPool, RENDER_DOCUMENT, RENDER_PAGE, taskCpuMs } from '../libs/pdf/src';

// The widths the send renders (PAGE_IMAGE_WIDTHS_AT_SEND, written out: this bench loads the pool
// alone, not the application); PAGE_IMAGES_WIDTHS=480,720,960 gives all three, as before issue 35.
const WIDTHS = (process.env.PAGE_IMAGES_WIDTHS ?? '720,960').split(',').map(Number);

function threadCpu(): Map<number, number> {
  const out = new Map<number, number>();
  for (const tid of fs.readdirSync('/proc/self/task')) {
    const ms = taskCpuMs(Number(tid));
    if (ms !== null) out.set(Number(tid), ms);
  }
  return out;
}

async function main() {
  const documents = Number(process.argv[2] ?? 60);
  // V8's platform threads start with the process, before any script (see lifecycle.bench.ts).
  const v8 = [...threadCpu().keys()]
    .filter((tid) => tid > process.pid)
    .sort((a, b) => a - b)
    .slice(0, 6);
  const pool = new PdfPool({ threads: 1 });
  // PAGE_IMAGES_FORMATS=png,webp: both formats, as the send rendered them before issue 35 item 5.
  const png = process.env.PAGE_IMAGES_FORMATS === 'png,webp';
  const send = async (i: number, images: boolean) => {
    const out = (await pool.run(RENDER_DOCUMENT, lifecycleDocumentInput(i))) as { pdf: Uint8Array };
    if (!images) return;
    const pdf = Buffer.from(out.pdf);
    for (const width of WIDTHS) await pool.run(RENDER_PAGE, { pdf, pdf_sha256: `send-${i}`, page: 1, width, png, webp: true });
  };
  const measure = async (images: boolean, from: number) => {
    const t0 = threadCpu();
    for (let i = 0; i < documents; i++) await send(from + i, images);
    const t1 = threadCpu();
    const d = (tid: number) => ((t1.get(tid) ?? 0) - (t0.get(tid) ?? 0)) / documents;
    const all = [...t1.keys()].reduce((sum, tid) => sum + d(tid), 0);
    const poolMs = pool.threadIds().reduce((sum, tid) => sum + d(tid), 0);
    const v8Ms = v8.reduce((sum, tid) => sum + d(tid), 0);
    return { all, main: d(process.pid), pool: poolMs, v8: v8Ms, rest: all - d(process.pid) - poolMs - v8Ms };
  };
  // Warm-up: fonts, PDFium's WebAssembly compiled up to speed.
  for (let i = 0; i < 30; i++) await send(-1 - i, true);
  const rows: Array<[string, Awaited<ReturnType<typeof measure>>]> = [];
  rows.push(['original only', await measure(false, 0)]);
  rows.push([`original + page 1 at ${WIDTHS.join(', ')} (${png ? 'PNG + WebP' : 'WebP'})`, await measure(true, documents)]);
  const [a, b] = [rows[0][1], rows[1][1]];
  rows.push(['the page images (difference)', { all: b.all - a.all, main: b.main - a.main, pool: b.pool - a.pool, v8: b.v8 - a.v8, rest: b.rest - a.rest }]);
  console.log(`ms of CPU per sent document, ${documents} documents, load average ${os.loadavg()[0].toFixed(2)}`);
  console.log('| | all threads | main | pool thread | V8 helper threads | libuv and the rest |\n|---|---:|---:|---:|---:|---:|');
  for (const [name, r] of rows) console.log(`| ${name} | ${r.all.toFixed(1)} | ${r.main.toFixed(1)} | ${r.pool.toFixed(1)} | ${r.v8.toFixed(1)} | ${r.rest.toFixed(1)} |`);
  await pool.close();
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
