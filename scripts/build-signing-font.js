#!/usr/bin/env node
// Builds apps/api/assets/signing-page/noto-sans-kr-subset.woff2: Noto Sans KR (the font the PDFs
// already embed) cut down to the characters the signing page itself writes, so a device without a
// Korean system font shows Hangul instead of boxes without downloading 6 MB.
// Run `node scripts/build-signing-font.js` after changing the page's strings; a test fails until then.
const fs = require('fs');
const path = require('path');
const subsetFont = require('subset-font');

const root = path.join(__dirname, '..');
const pageDir = path.join(root, 'apps/api/assets/signing-page');
const SOURCES = ['index.html', 'app.js'];
const OUTPUT = path.join(pageDir, 'noto-sans-kr-subset.woff2');
// Printable ASCII plus the punctuation Korean text commonly mixes in (names, dates, amounts).
const EXTRA = ' ·…‘’“”–—•₩×→←↑↓○●※「」『』〈〉《》【】';

function ascii() {
  let s = '';
  for (let c = 0x20; c < 0x7f; c++) s += String.fromCharCode(c);
  return s;
}

/** Every character the page needs: its own files' non-ASCII characters, ASCII and EXTRA. */
function pageCharacters() {
  const chars = new Set([...ascii(), ...EXTRA]);
  for (const file of SOURCES) {
    for (const ch of fs.readFileSync(path.join(pageDir, file), 'utf8')) {
      if (ch.codePointAt(0) > 0x7e) chars.add(ch);
    }
  }
  return [...chars].filter((ch) => !/\s/.test(ch) || ch === ' ').sort().join('');
}

async function main() {
  const source = path.join(path.dirname(require.resolve('@expo-google-fonts/noto-sans-kr/package.json')), '400Regular/NotoSansKR_400Regular.ttf');
  const text = pageCharacters();
  const woff2 = await subsetFont(fs.readFileSync(source), text, { targetFormat: 'woff2' });
  fs.writeFileSync(OUTPUT, woff2);
  console.log(`${path.relative(root, OUTPUT)}: ${text.length} characters, ${woff2.length} bytes`);
}

module.exports = { pageCharacters, SOURCES, OUTPUT };
if (require.main === module) main().catch((err) => { console.error(err); process.exit(1); });
