import * as fs from 'fs';
import * as path from 'path';
import { BenchScenario, BenchRow } from '../harness';

/** bench/pdf.bench.ts (owned by the PDF work) when it is there; compiled or run from source. */
function loadPdfBench(): null | { runPdfBench: () => Promise<{ rows: BenchRow[]; markdown: string }> } {
  const dir = path.join(__dirname, '..');
  if (!['pdf.bench.ts', 'pdf.bench.js'].some((f) => fs.existsSync(path.join(dir, f)))) return null;
  // eslint-disable-next-line @typescript-eslint/no-var-requires
  const mod = require(path.join(dir, 'pdf.bench'));
  return typeof mod.runPdfBench === 'function' ? mod : null;
}

/** Rendering and final-PDF build times, in this process (no HTTP). */
export const pdfScenario: BenchScenario = {
  id: 'pdf',
  title: 'PDF',
  async run(ctx) {
    const bench = loadPdfBench();
    if (!bench) return { notes: ['bench/pdf.bench.ts is not present (or exports no runPdfBench); no PDF numbers.'] };
    ctx.ensureTime(120_000, 'the PDF benchmark');
    ctx.log('PDF benchmark (bench/pdf.bench.ts)');
    const { rows, markdown } = await bench.runPdfBench();
    return { rows, markdown };
  },
};
