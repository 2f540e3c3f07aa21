#!/usr/bin/env node
// Builds apps/api/assets/signing-page/fonts/: Noto Sans KR (the font the PDFs embed) cut into
// unicode-range slices, the way large CJK web fonts are served, plus fonts.css with one @font-face
// per slice. The browser fetches only the slices whose characters are on screen, so a device
// without a Korean system font draws every modern Hangul syllable (names, titles, organizations)
// without downloading the 6 MB font.
//
// Slices (disjoint, so exactly one face claims each character):
//   000  base: ASCII, Latin-1, common punctuation, and every character the page itself writes, so
//        the page's own text needs this one file;
//   001  symbols: CJK symbols and punctuation, enclosed (㈜ ①), units (㎡), fullwidth forms;
//   002  jamo: Hangul Jamo, compatibility jamo and the extended jamo blocks;
//   003… the 11,172 modern syllables U+AC00–U+D7A3 not in base, in runs of consecutive code points.
// File names carry a content hash, so the server caches them for a year ("immutable").
//
// The outputs are committed (about 1 MB in all): building needs no network and nothing runs at
// request time. Run `node scripts/build-signing-font.js` after changing the page's strings; a test
// fails until then. It takes a minute or two (one harfbuzz subset per slice).
const crypto = require('crypto');
const fs = require('fs');
const path = require('path');

const root = path.join(__dirname, '..');
const pageDir = path.join(root, 'apps/api/assets/signing-page');
const OUTPUT_DIR = path.join(pageDir, 'fonts');
const CSS = path.join(OUTPUT_DIR, 'fonts.css');
const FAMILY = 'Dojang Noto Sans KR';
/**
 * The pages' own sources whose characters go in the base slice: the signing page, and the public
 * verification page and the field-placement editor, which use the same fonts.css.
 */
const SOURCE_DIRS = [pageDir, path.join(pageDir, 'src'), path.join(root, 'apps/api/assets/verify-page'), path.join(root, 'apps/api/assets/editor-page')];
const SOURCE_EXT = /\.(html|js)$/;
// Punctuation Korean text commonly mixes in (names, dates, amounts), beyond Latin-1.
const EXTRA = '·…‘’“”–—•₩€×→←↑↓○●※「」『』〈〉《》【】';
const SYLLABLES = [0xac00, 0xd7a3];
const SYMBOL_RANGES = [[0x3000, 0x303f], [0x3200, 0x32ff], [0x3380, 0x33ff], [0xff01, 0xff60], [0xffe0, 0xffe6], [0x2460, 0x24ff], [0x2500, 0x257f], [0x25a0, 0x25ff], [0x2600, 0x26ff], [0x2010, 0x205e], [0x20a0, 0x20bf], [0x2100, 0x215f], [0x2190, 0x21ff], [0x2200, 0x22ff]];
const JAMO_RANGES = [[0x1100, 0x11ff], [0x3131, 0x318e], [0xa960, 0xa97c], [0xd7b0, 0xd7fb]];
/** Syllables per slice: about 100 slices in all, each a few kilobytes. */
const SYLLABLES_PER_SLICE = 112;
const PEN_FAMILY = 'Dojang Pen';
const PEN_CSS = path.join(OUTPUT_DIR, 'pen.css');
/** Handwriting glyphs are larger: fewer per slice keeps each fetch small. */
const PEN_SYLLABLES_PER_SLICE = 100;

function sourceFiles() {
  return SOURCE_DIRS.filter((d) => fs.existsSync(d)).flatMap((d) =>
    fs.readdirSync(d).filter((f) => SOURCE_EXT.test(f)).map((f) => path.join(d, f)),
  );
}

const range = (a, b) => Array.from({ length: b - a + 1 }, (_, i) => a + i);

/** Every code point the page's own files write, plus printable ASCII, Latin-1 and EXTRA. */
function pageCodePoints() {
  const cps = new Set([...range(0x20, 0x7e), ...range(0xa0, 0xff), ...[...EXTRA].map((c) => c.codePointAt(0))]);
  for (const file of sourceFiles()) {
    for (const ch of fs.readFileSync(file, 'utf8')) {
      const cp = ch.codePointAt(0);
      if (cp > 0x7e && !/\s/.test(ch)) cps.add(cp);
    }
  }
  return cps;
}

/** The same as a string, for tests. */
function pageCharacters() {
  return String.fromCodePoint(...[...pageCodePoints()].sort((a, b) => a - b));
}

function sourceFont() {
  return path.join(path.dirname(require.resolve('@expo-google-fonts/noto-sans-kr/package.json')), '400Regular/NotoSansKR_400Regular.ttf');
}

/**
 * The slices as lists of code points, each only what the font has a glyph for (a unicode-range
 * must not claim characters the file cannot draw, or the browser would stop looking there).
 */
function plan(hasGlyph) {
  const taken = new Set();
  const take = (cps) => {
    const out = [...new Set(cps)].filter((cp) => hasGlyph(cp) && !taken.has(cp)).sort((a, b) => a - b);
    out.forEach((cp) => taken.add(cp));
    return out;
  };
  const slices = [take([...pageCodePoints()]), take(SYMBOL_RANGES.flatMap(([a, b]) => range(a, b))), take(JAMO_RANGES.flatMap(([a, b]) => range(a, b)))];
  const rest = take(range(SYLLABLES[0], SYLLABLES[1]));
  for (let i = 0; i < rest.length; i += SYLLABLES_PER_SLICE) slices.push(rest.slice(i, i + SYLLABLES_PER_SLICE));
  return slices;
}

/** A CSS unicode-range for sorted code points: runs collapse to U+A-B. */
function unicodeRange(cps) {
  const parts = [];
  for (let i = 0; i < cps.length; ) {
    let j = i;
    while (j + 1 < cps.length && cps[j + 1] === cps[j] + 1) j++;
    const hex = (cp) => cp.toString(16).toUpperCase();
    parts.push(i === j ? `U+${hex(cps[i])}` : `U+${hex(cps[i])}-${hex(cps[j])}`);
    i = j + 1;
  }
  return parts.join(', ');
}

/** Parses fonts.css back into its slices: file name and the code points its unicode-range claims. */
function readSlices(css = fs.readFileSync(CSS, 'utf8')) {
  const out = [];
  for (const m of css.matchAll(/url\('\/sign\/assets\/fonts\/([^']+)'\)[^;]*;[^}]*unicode-range:\s*([^;]+);/g)) {
    const cps = [];
    for (const part of m[2].split(',')) {
      const [a, b] = part.trim().replace(/^U\+/, '').split('-').map((h) => parseInt(h, 16));
      for (let cp = a; cp <= (b ?? a); cp++) cps.push(cp);
    }
    out.push({ file: m[1], codePoints: cps });
  }
  return out;
}

async function main() {
  const subsetFont = require('subset-font');
  const fontkit = require('fontkit');
  const ttf = fs.readFileSync(sourceFont());
  const font = fontkit.create(ttf);
  const slices = plan((cp) => font.hasGlyphForCodePoint(cp));
  fs.rmSync(OUTPUT_DIR, { recursive: true, force: true });
  fs.mkdirSync(OUTPUT_DIR, { recursive: true });
  const rules = [];
  let total = 0;
  for (const [i, cps] of slices.entries()) {
    const woff2 = await subsetFont(ttf, String.fromCodePoint(...cps), { targetFormat: 'woff2' });
    const hash = crypto.createHash('sha256').update(woff2).digest('hex').slice(0, 10);
    const name = `nskr-${String(i).padStart(3, '0')}-${hash}.woff2`;
    fs.writeFileSync(path.join(OUTPUT_DIR, name), woff2);
    total += woff2.length;
    rules.push(
      `@font-face {\n  font-family: '${FAMILY}';\n  src: url('/sign/assets/fonts/${name}') format('woff2');\n  font-weight: 400;\n  font-style: normal;\n  font-display: swap;\n  unicode-range: ${unicodeRange(cps)};\n}`,
    );
  }
  const header =
    '/* Generated by scripts/build-signing-font.js: Noto Sans KR (SIL Open Font License 1.1) in unicode-range slices. Do not edit. */\n';
  fs.writeFileSync(CSS, header + rules.join('\n') + '\n');
  console.log(`${path.relative(root, OUTPUT_DIR)}: ${slices.length} slices, ${slices.reduce((n, s) => n + s.length, 0)} characters, ${total} bytes`);
  await buildPen(subsetFont, fontkit);
}

/**
 * The typed signature's handwriting font, Nanum Pen Script (SIL OFL 1.1), sliced the same way into
 * pen.css. The page links pen.css only when the signer chooses to type, and the browser then
 * fetches the slices of the name's characters alone (a few KB instead of 3 MB).
 */
async function buildPen(subsetFont, fontkit) {
  const ttf = fs.readFileSync(penSourceFont());
  const font = fontkit.create(ttf);
  const has = (cp) => font.hasGlyphForCodePoint(cp);
  const base = [...range(0x20, 0x7e), ...range(0xa0, 0xff)].filter(has);
  const syllables = range(SYLLABLES[0], SYLLABLES[1]).filter(has);
  const slices = [base];
  for (let i = 0; i < syllables.length; i += PEN_SYLLABLES_PER_SLICE) slices.push(syllables.slice(i, i + PEN_SYLLABLES_PER_SLICE));
  const rules = [];
  let total = 0;
  for (const [i, cps] of slices.entries()) {
    const woff2 = await subsetFont(ttf, String.fromCodePoint(...cps), { targetFormat: 'woff2' });
    const hash = crypto.createHash('sha256').update(woff2).digest('hex').slice(0, 10);
    const name = `pen-${String(i).padStart(3, '0')}-${hash}.woff2`;
    fs.writeFileSync(path.join(OUTPUT_DIR, name), woff2);
    total += woff2.length;
    rules.push(
      `@font-face {\n  font-family: '${PEN_FAMILY}';\n  src: url('/sign/assets/fonts/${name}') format('woff2');\n  font-weight: 400;\n  font-style: normal;\n  font-display: block;\n  unicode-range: ${unicodeRange(cps)};\n}`,
    );
  }
  const header = '/* Generated by scripts/build-signing-font.js: Nanum Pen Script (SIL Open Font License 1.1) in unicode-range slices, for typed signatures. Do not edit. */\n';
  fs.writeFileSync(PEN_CSS, header + rules.join('\n') + '\n');
  console.log(`pen.css: ${slices.length} slices, ${total} bytes`);
}

function penSourceFont() {
  return path.join(path.dirname(require.resolve('@expo-google-fonts/nanum-pen-script/package.json')), '400Regular/NanumPenScript_400Regular.ttf');
}

module.exports = { pageCharacters, readSlices, unicodeRange, OUTPUT_DIR, CSS, PEN_CSS, PEN_FAMILY, FAMILY, SYLLABLES, JAMO_RANGES, sourceFont };
if (require.main === module) main().catch((err) => { console.error(err); process.exit(1); });
