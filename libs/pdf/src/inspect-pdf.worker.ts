import { parentPort } from 'worker_threads';
import { inspectPdf } from './inspect-pdf';

/** One inspection at a time, on bytes moved here from the event loop (see isolated-inspect.ts). */
parentPort?.on('message', (bytes: Uint8Array) => {
  inspectPdf(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength)).then(
    (result) => parentPort?.postMessage({ result }),
    (err: unknown) => parentPort?.postMessage({ error: String((err as Error)?.message ?? err) }),
  );
});
// Loaded: from here on, time spent is time spent reading files.
parentPort?.postMessage('ready');
