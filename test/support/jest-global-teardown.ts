import { removeCompiledPdfWorkers } from './compiled-pdf-workers';

/** Once per jest run, after every worker has stopped: the run's compiled PDF workers go. */
export default async function jestGlobalTeardown(): Promise<void> {
  removeCompiledPdfWorkers(process.env.DOJANG_PDF_WORKERS_COMPILED);
}
