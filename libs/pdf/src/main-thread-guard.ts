import { AsyncLocalStorage } from 'async_hooks';
import { isMainThread } from 'worker_threads';

/**
 * The rule "PDF layout, parsing and image decoding never run on the API's event loop", checked at
 * run time. A process that serves requests calls forbidPdfWorkOnMainThread() once (createApp does);
 * from then on every costly step of this library (pdfmake layout, HTML conversion, pdf-lib parsing,
 * stamping, signing, image decoding, zipping) throws when it is called on the main thread instead
 * of in a PDF pool worker. A forgotten step then fails every test that reaches it, instead of
 * freezing every request while one document is laid out (issue 24, item 15).
 *
 * Tools (the CLI) and unit tests never call forbid…, so they may run the steps in-process; a test
 * that runs an app and also wants to make a PDF itself opts in for that call only, with
 * runPdfWorkOnThisThread.
 */
let forbidden = false;
const refused: string[] = [];
const optedIn = new AsyncLocalStorage<true>();

export class MainThreadPdfWorkError extends Error {
  constructor(readonly step: string) {
    super(`pdf: ${step} ran on the main thread of a process that serves requests; it belongs in the PDF pool`);
    this.name = 'MainThreadPdfWorkError';
  }
}

/** From now on, costly PDF steps on this process's main thread throw (no effect inside a worker). */
export function forbidPdfWorkOnMainThread(): void {
  if (isMainThread) forbidden = true;
}

/** Called first by every costly step: throws on a guarded main thread. */
export function assertOffMainThread(step: string): void {
  if (!forbidden || !isMainThread || optedIn.getStore()) return;
  // Remembered too, so a test sees a violation even when the caller swallowed the error.
  refused.push(step);
  throw new MainThreadPdfWorkError(step);
}

/** The steps refused so far on this thread (tests assert it stays empty). */
export function pdfWorkRefusedOnMainThread(): readonly string[] {
  return [...refused];
}

/** Runs `fn` (and what it awaits) with the guard lifted: a test making its own fixture PDF. */
export function runPdfWorkOnThisThread<T>(fn: () => T): T {
  return optedIn.run(true, fn);
}
