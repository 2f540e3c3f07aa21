import { libraryBenchScenario } from './library-bench.scenario';

/** Rendering and final-PDF build times (bench/pdf.bench.ts, owned by the PDF work). */
export const pdfScenario = libraryBenchScenario({ id: 'pdf', title: 'PDF', file: 'pdf.bench', exportName: 'runPdfBench', budgetMs: 180_000 });
