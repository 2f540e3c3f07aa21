import { compilePdfWorkers } from './compiled-pdf-workers';
import postgresGlobalSetup from './postgres-global-setup';

/** Once per jest run, before any worker: the PostgreSQL suites' server, and the PDF workers' JavaScript. */
export default async function jestGlobalSetup(): Promise<void> {
  process.env.DOJANG_PDF_WORKERS_COMPILED = compilePdfWorkers();
  await postgresGlobalSetup();
}
