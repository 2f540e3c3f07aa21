import * as fs from 'fs';
import * as path from 'path';
import { BenchRow, BenchScenario } from '../harness';

type LibraryBench = () => Promise<{ rows: BenchRow[]; markdown: string }>;

/** A `bench/<file>` module exporting `exportName(): Promise<{rows, markdown}>`, when it is there. */
function load(file: string, exportName: string): LibraryBench | null {
  const dir = path.join(__dirname, '..');
  if (![`${file}.ts`, `${file}.js`].some((f) => fs.existsSync(path.join(dir, f)))) return null;
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const mod = require(path.join(dir, file));
  return typeof mod[exportName] === 'function' ? mod[exportName] : null;
}

/**
 * Wraps a benchmark written as a library function (in this process, no HTTP): its markdown goes
 * into the report as it is. A missing file is a note, not a failure, so the runner works while
 * those benchmarks are being written.
 */
export function libraryBenchScenario(spec: { id: string; title: string; file: string; exportName: string; budgetMs: number }): BenchScenario {
  return {
    id: spec.id,
    title: spec.title,
    async run(ctx) {
      const bench = load(spec.file, spec.exportName);
      if (!bench) return { notes: [`bench/${spec.file}.ts is not present (or exports no ${spec.exportName}); no numbers.`] };
      ctx.ensureTime(spec.budgetMs, spec.title);
      ctx.log(`${spec.title} (bench/${spec.file}.ts)`);
      const { rows, markdown } = await bench();
      return { rows, markdown };
    },
  };
}
