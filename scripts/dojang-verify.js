#!/usr/bin/env node
// `npx dojang-verify bundle.zip`: the offline verifier of an evidence bundle (libs/verifier). It
// reads only the ZIP: no server, database or secret. Runs the compiled verifier; when this
// checkout has no build of it, or one older than its sources, transpiles just its files (the
// verifier, the hash-chain function it shares with the event store and the one masking rule for
// personal data it shares with the server) into dist/ first, and resolves the @dojang/* entries the
// verifier imports them by onto those files.
const fs = require('fs');
const path = require('path');
const root = path.join(__dirname, '..');
const verifierDir = path.join('libs', 'verifier', 'src');
const sources = [
  ...fs.readdirSync(path.join(root, verifierDir)).filter((f) => f.endsWith('.ts') && !f.endsWith('.spec.ts')).map((f) => path.join(verifierDir, f)),
  path.join('libs', 'event-store', 'src', 'hash-chain.ts'),
  path.join('libs', 'domain', 'src', 'shared', 'personal-data.ts'),
];
const outOf = (source) => path.join(root, 'dist', source.replace(/\.ts$/, '.js'));
const stale = sources.some((s) => !fs.existsSync(outOf(s)) || fs.statSync(outOf(s)).mtimeMs < fs.statSync(path.join(root, s)).mtimeMs);
if (stale) {
  const ts = require('typescript');
  for (const source of sources) {
    const { outputText } = ts.transpileModule(fs.readFileSync(path.join(root, source), 'utf8'), {
      fileName: source,
      compilerOptions: { module: ts.ModuleKind.CommonJS, target: ts.ScriptTarget.ES2022, esModuleInterop: true },
    });
    const out = outOf(source);
    fs.mkdirSync(path.dirname(out), { recursive: true });
    // Several verifiers may start at once: each publishes its file whole, by rename.
    const tmp = `${out}.${process.pid}.tmp`;
    fs.writeFileSync(tmp, outputText);
    fs.renameSync(tmp, out);
  }
}
// The verifier names the code it shares by package entry (@dojang/event-store/hash-chain,
// @dojang/domain/shared/personal-data): map those onto the files just transpiled into dist/.
require('./register-paths');
require(outOf(path.join(verifierDir, 'main.ts')))
  .main(process.argv.slice(2))
  .then((code) => process.exit(code))
  .catch((error) => {
    process.stderr.write(`dojang-verify: ${String((error && error.message) || error).replace(/\s*\n\s*/g, " ")}\n`);
    process.exit(2);
  });
