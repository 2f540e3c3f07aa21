import * as path from 'path';
import { Worker } from 'worker_threads';
import type { PdfInspection } from './inspect-pdf';

export interface IsolatedInspectOptions {
  /** How long one file may take to read before it is refused (ms). */
  timeoutMs?: number;
  /** Heap a reading may use before it is refused (MB). */
  maxHeapMb?: number;
}

const DEFAULT_TIMEOUT_MS = 5_000;
const DEFAULT_MAX_HEAP_MB = 512;
/** Uploads read at once; the rest wait their turn, and the wait does not count against them. */
const POOL_SIZE = 2;

// Compiled, the worker is a .js file beside this one; under ts-jest and ts-node it is the .ts
// source, which a worker thread can only load through ts-node.
const WORKER_FILE = path.join(__dirname, `inspect-pdf.worker${path.extname(__filename)}`);
const WORKER_EXEC_ARGV = path.extname(__filename) === '.ts' ? ['-r', 'ts-node/register/transpile-only'] : [];

const idle: Worker[] = [];
let busy = 0;
const waiting: Array<() => void> = [];

/** A worker that has loaded the parser, so that a time limit measures reading, not starting up. */
function spawn(maxHeapMb: number): Promise<Worker> {
  const worker = new Worker(WORKER_FILE, { execArgv: WORKER_EXEC_ARGV, resourceLimits: { maxOldGenerationSizeMb: maxHeapMb } });
  worker.unref();
  return new Promise((resolve, reject) => {
    const failed = (err: unknown) => {
      worker.off('message', ready);
      reject(err instanceof Error ? err : new Error(`the PDF reader thread stopped while starting (exit ${String(err)})`));
    };
    const ready = (m: unknown) => {
      if (m !== 'ready') return;
      worker.off('message', ready);
      worker.off('error', failed);
      worker.off('exit', failed);
      // A worker that exits while idle leaves the pool.
      worker.once('exit', () => {
        const at = idle.indexOf(worker);
        if (at >= 0) idle.splice(at, 1);
      });
      resolve(worker);
    };
    worker.on('message', ready);
    worker.once('error', failed);
    worker.once('exit', failed);
  });
}

/** An idle worker, else a new one. */
async function take(maxHeapMb: number): Promise<Worker> {
  if (maxHeapMb === DEFAULT_MAX_HEAP_MB) {
    const worker = idle.pop();
    if (worker) return worker;
  }
  return spawn(maxHeapMb);
}

async function acquire(): Promise<void> {
  if (busy < POOL_SIZE) {
    busy++;
    return;
  }
  await new Promise<void>((resolve) => waiting.push(resolve));
}

function release(): void {
  const next = waiting.shift();
  if (next) next();
  else busy--;
}

/**
 * Reads an uploaded PDF in a worker thread, so that a file built to make the parser spin or
 * swell costs its uploader a refusal instead of stalling every other request: past `timeoutMs`
 * or `maxHeapMb` the worker is terminated and the file is refused as unreadable. Workers are
 * reused between files and started on demand.
 */
export async function inspectPdfIsolated(bytes: Buffer, options: IsolatedInspectOptions = {}): Promise<PdfInspection> {
  const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const maxHeapMb = options.maxHeapMb ?? DEFAULT_MAX_HEAP_MB;
  await acquire();
  try {
    const worker = await take(maxHeapMb);
    type Outcome = { result?: PdfInspection; error?: string; failure?: 'timeout' | 'crashed' };
    const outcome = await new Promise<Outcome>((resolve) => {
      const settle = (value: Outcome) => {
        clearTimeout(timer);
        worker.off('message', settle);
        worker.off('error', crashed);
        worker.off('exit', crashed);
        resolve(value);
      };
      const crashed = () => settle({ failure: 'crashed' });
      const timer = setTimeout(() => settle({ failure: 'timeout' }), timeoutMs);
      worker.on('message', settle);
      worker.on('error', crashed);
      worker.on('exit', crashed);
      // A copy: the caller keeps its buffer (it is stored next).
      const copy = new Uint8Array(bytes);
      worker.postMessage(copy, [copy.buffer]);
    });
    if (outcome.failure) {
      void worker.terminate();
      const why = outcome.failure === 'timeout' ? `it took longer than ${timeoutMs / 1000} s to read` : 'reading it needed more memory than a PDF of its size should';
      return { ok: false, reason: 'not_pdf', message: `File is not a readable PDF: ${why}.` };
    }
    if (maxHeapMb === DEFAULT_MAX_HEAP_MB && idle.length < POOL_SIZE) idle.push(worker);
    else void worker.terminate();
    if (outcome.error !== undefined) return { ok: false, reason: 'not_pdf', message: `File is not a readable PDF: ${outcome.error}` };
    return outcome.result as PdfInspection;
  } finally {
    release();
  }
}
