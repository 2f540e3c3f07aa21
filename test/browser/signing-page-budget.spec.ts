import * as fs from 'fs';
import * as path from 'path';
import * as zlib from 'zlib';
import { BUNDLE, SIGNING_FONT_DIR, SIGNING_PAGE_DIR } from '../../apps/api/src/signing/signing-page.http.controller';
import { bundleModules } from '../../apps/api/src/signing/signing-page.bundler';

/**
 * Issue 22's weight budget: what the signing page needs before its page images — its HTML, every
 * module, the style sheets, signature_pad and the first font slice (the page's own characters) —
 * stays within 150 KB compressed, by gzip and by brotli (the woff2 slice is compressed already and
 * counts as it is). A size check, not a timing: speed is in bench/signing-page-lighthouse.js.
 */
const BUDGET = 150 * 1024;

describe('signing page weight', () => {
  // The modules as served: early-session.js, and the one bundle of the others with the domain's
  // field rules bundled in (signing-page.bundler.ts).
  const bundle = path.join(SIGNING_PAGE_DIR, BUNDLE);
  const files = [
    ...fs.readdirSync(SIGNING_PAGE_DIR).filter((f) => /\.(html|css)$/.test(f) || f === 'early-session.js').map((f) => path.join(SIGNING_PAGE_DIR, f)),
    bundle,
    path.join(SIGNING_FONT_DIR, 'fonts.css'),
    path.join(__dirname, '../../node_modules/signature_pad/dist/signature_pad.umd.min.js'),
  ];
  const firstSlice = fs.readdirSync(SIGNING_FONT_DIR).find((f) => /^nskr-000-[0-9a-f]+\.woff2$/.test(f));

  it('is at most 150 KB compressed (own JS + CSS + HTML + first font slice)', () => {
    expect(firstSlice).toBeDefined();
    const slice = fs.statSync(path.join(SIGNING_FONT_DIR, firstSlice as string)).size;
    let gzip = slice;
    let brotli = slice;
    let raw = slice;
    for (const file of files) {
      const bytes = file === bundle ? Buffer.from(bundleModules(SIGNING_PAGE_DIR, 'main.js', ['early-session.js']).code) : fs.readFileSync(file);
      raw += bytes.length;
      gzip += zlib.gzipSync(bytes, { level: 9 }).length;
      brotli += zlib.brotliCompressSync(bytes, { params: { [zlib.constants.BROTLI_PARAM_QUALITY]: 11 } }).length;
    }
    // Printed for docs/BENCHMARKS.md: the budget's headroom.
    console.log(`signing page: ${files.length} files + ${firstSlice}: raw ${raw} B, gzip ${gzip} B, brotli ${brotli} B (budget ${BUDGET} B)`);
    expect(files.length).toBeGreaterThan(5);
    expect(gzip).toBeLessThanOrEqual(BUDGET);
    expect(brotli).toBeLessThanOrEqual(BUDGET);
    expect(brotli).toBeLessThan(gzip);
  });
});
