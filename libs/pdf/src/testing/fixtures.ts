import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';

/** /work/shared sits beside the repository checkout. */
export const repoRoot = resolve(__dirname, '..', '..', '..', '..');
export const pdfFixturesDir = resolve(repoRoot, '..', 'shared', 'fixtures', 'pdf');

export function pdfFixture(name: string): Buffer {
  return readFileSync(resolve(pdfFixturesDir, name));
}
