import type { PdfInspection } from './inspect-pdf';
import { INSPECT_PDF } from './pool/pdf-jobs';
import { isPdfLimitError } from './pool/pdf-limit.error';
import { PdfPool, sharedPdfPool } from './pool/pdf-pool';

export interface IsolatedInspectOptions {
  /** How long one file may take to read before it is refused (ms). */
  timeoutMs?: number;
  /** The pool to read in; default: the process's shared PDF pool. */
  pool?: PdfPool;
}

const DEFAULT_TIMEOUT_MS = 5_000;

/**
 * Reads an uploaded PDF in the PDF worker pool, so that a file built to make the parser spin or
 * swell costs its uploader a refusal instead of stalling every other request: past `timeoutMs` or
 * the pool's heap limit the worker is terminated and the file is refused as unreadable (415 at
 * upload). The wait for a free worker does not count against the file.
 */
export async function inspectPdfIsolated(bytes: Buffer, options: IsolatedInspectOptions = {}): Promise<PdfInspection> {
  const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const pool = options.pool ?? sharedPdfPool();
  try {
    return await pool.run(INSPECT_PDF, bytes, { timeoutMs });
  } catch (err) {
    if (!isPdfLimitError(err)) throw err;
    const why = err.limit === 'time' ? `it took longer than ${timeoutMs / 1000} s to read` : 'reading it needed more memory than a PDF of its size should';
    return { ok: false, reason: 'not_pdf', message: `File is not a readable PDF: ${why}.` };
  }
}
