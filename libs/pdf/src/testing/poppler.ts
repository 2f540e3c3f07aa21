import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { decodePng, DecodedImage } from './png';

/**
 * Poppler is an independent PDF reader: checking our output with it proves
 * more than reading it back with the library that wrote it.
 */

function withTempPdf<T>(pdf: Buffer, fn: (file: string, dir: string) => T): T {
  const dir = mkdtempSync(join(tmpdir(), 'dojang-pdf-'));
  try {
    const file = join(dir, 'doc.pdf');
    writeFileSync(file, pdf);
    return fn(file, dir);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

export function pdftotext(pdf: Buffer, layout = false): string {
  return withTempPdf(pdf, (file) =>
    execFileSync('pdftotext', [...(layout ? ['-layout'] : []), '-enc', 'UTF-8', file, '-'], { encoding: 'utf8' }),
  );
}

export function pdffonts(pdf: Buffer): string {
  return withTempPdf(pdf, (file) => execFileSync('pdffonts', [file], { encoding: 'utf8' }));
}

/** `pdfimages -list`: one line per embedded image, with its width and height. */
export function pdfimages(pdf: Buffer): string {
  return withTempPdf(pdf, (file) => execFileSync('pdfimages', ['-list', file], { encoding: 'utf8' }));
}

export function pdfinfo(pdf: Buffer): string {
  return withTempPdf(pdf, (file) => execFileSync('pdfinfo', [file], { encoding: 'utf8' }));
}

/** pdfsig exits non-zero for invalid signatures; we want its report either way. */
export function pdfsig(pdf: Buffer): string {
  return withTempPdf(pdf, (file) => {
    try {
      return execFileSync('pdfsig', [file], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
    } catch (error) {
      const e = error as { stdout?: string; stderr?: string };
      return `${e.stdout ?? ''}${e.stderr ?? ''}`;
    }
  });
}

/** Renders one page as viewers display it: the CropBox, with /Rotate applied. */
export function renderPage(pdf: Buffer, page: number, dpi = 30): DecodedImage {
  return withTempPdf(pdf, (file, dir) => {
    const prefix = join(dir, 'page');
    execFileSync('pdftoppm', ['-r', String(dpi), '-png', '-cropbox', '-f', String(page), '-l', String(page), '-singlefile', file, prefix]);
    return decodePng(readFileSync(`${prefix}.png`));
  });
}
