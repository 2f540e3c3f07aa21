/**
 * A pool job whose module takes a while to load, like the real handlers loading pdfmake, pdf-lib
 * and the fonts: a worker that starts cold pays this once, at require time.
 */
const LOAD_MS = 800;
const loadedUntil = Date.now() + LOAD_MS;
while (Date.now() < loadedUntil) {
  /* loading */
}

export default async function slowStartJob(input: { kind: 'echo' | 'spin'; value?: number } | null): Promise<number | string> {
  // null: the pool's warm-up call.
  if (!input) return 'ready';
  if (input.kind === 'spin') {
    for (;;) {
      /* a parser stuck in a loop */
    }
  }
  return input.value ?? 0;
}
