#!/usr/bin/env node
// `npm run build:verifier`: the offline verifier (libs/verifier) as one self-contained file,
// dist/dojang-verify/dojang-verify.js, with everything it uses (fflate, pkijs, asn1js and their
// own dependencies, and the frozen hash-chain function) bundled in by esbuild, so it runs with a
// plain `node dojang-verify.js bundle.zip` on a machine that has Node 20 and nothing else: no
// checkout, no npm install, no TypeScript. Beside it a package.json (bin `dojang-verify`, no
// dependencies) and a README, so `--pack` makes a tarball that `npx --package=./dojang-verify-<v>.tgz
// dojang-verify bundle.zip` runs anywhere, offline. Not minified: an auditor can read what it checks.
const fs = require('fs');
const path = require('path');
const { execFileSync } = require('child_process');

const root = path.join(__dirname, '..');
const OUT_DIR = path.join(root, 'dist', 'dojang-verify');
const OUT_FILE = path.join(OUT_DIR, 'dojang-verify.js');

/** The CLI entry: libs/verifier's main, with the exit codes it documents (0 pass, 1 fail, 2 unreadable). */
const ENTRY = `
import { main } from './main';
main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (error) => {
    // main answers every bad input itself; anything left is still one line, never a stack trace.
    process.stderr.write('dojang-verify: ' + String((error && error.message) || error).replace(/\\s*\\n\\s*/g, ' ') + '\\n');
    process.exit(2);
  },
);
`;

function build() {
  const esbuild = require('esbuild');
  const version = require(path.join(root, 'package.json')).version;
  fs.rmSync(OUT_DIR, { recursive: true, force: true });
  fs.mkdirSync(OUT_DIR, { recursive: true });
  esbuild.buildSync({
    stdin: { contents: ENTRY, resolveDir: path.join(root, 'libs', 'verifier', 'src'), sourcefile: 'dojang-verify-cli.ts', loader: 'ts' },
    bundle: true,
    platform: 'node',
    target: 'node20',
    format: 'cjs',
    outfile: OUT_FILE,
    banner: { js: `#!/usr/bin/env node\n// dojang-verify ${version}: the offline verifier of Dojang evidence bundles (docs/EVIDENCE.md), built by scripts/build-verifier.js.` },
    // The bundled packages' licence notices (fflate MIT, pkijs and asn1js BSD-3-Clause, …) stay in the file.
    legalComments: 'eof',
    logLevel: 'warning',
  });
  fs.chmodSync(OUT_FILE, 0o755);
  const pkg = {
    name: 'dojang-verify',
    version,
    description: 'Offline verifier of Dojang evidence bundles: hash chains, sealed heads, PAdES signatures, delivery records. No server, no secret.',
    license: 'UNLICENSED',
    bin: { 'dojang-verify': 'dojang-verify.js' },
    main: 'dojang-verify.js',
    engines: { node: '>=20' },
    files: ['dojang-verify.js', 'README.md'],
  };
  fs.writeFileSync(path.join(OUT_DIR, 'package.json'), `${JSON.stringify(pkg, null, 2)}\n`);
  fs.writeFileSync(
    path.join(OUT_DIR, 'README.md'),
    [
      '# dojang-verify',
      '',
      'Checks a Dojang evidence bundle (the ZIP of `GET /v1/documents/{id}/evidence`) with nothing but Node 20:',
      '',
      '    node dojang-verify.js evidence.zip',
      '    npx --package=./dojang-verify-' + version + '.tgz dojang-verify evidence.zip',
      '',
      'Exit 0: every check passed; 1: a check failed; 2: the file is not a readable bundle.',
      'One file, no dependencies to install: everything it uses is bundled in.',
      '',
    ].join('\n'),
  );
  return OUT_FILE;
}

/** `npm pack` of the built directory into `destination`; returns the tarball's path. */
function pack(destination) {
  const name = execFileSync('npm', ['pack', '--silent', '--pack-destination', destination], { cwd: OUT_DIR, encoding: 'utf8' }).trim().split('\n').pop();
  return path.join(destination, name);
}

module.exports = { build, pack, OUT_DIR, OUT_FILE };
if (require.main === module) {
  const at = process.argv.indexOf('--pack');
  const destination = at >= 0 ? path.resolve(process.argv[at + 1] ?? OUT_DIR) : null;
  // A destination that is not a writable directory: said in one line before anything is built.
  if (destination && destination !== OUT_DIR) {
    let problem = null;
    try {
      if (!fs.statSync(destination).isDirectory()) problem = 'not a directory';
      else fs.accessSync(destination, fs.constants.W_OK);
    } catch (error) {
      problem = error.code === 'ENOENT' ? 'no such directory' : error.code === 'EACCES' ? 'not writable' : error.message;
    }
    if (problem) {
      process.stderr.write(`pack:verifier: cannot pack into ${destination}: ${problem}\n`);
      process.exit(2);
    }
  }
  const file = build();
  console.log(`${path.relative(root, file)}: ${fs.statSync(file).size} bytes`);
  if (destination) console.log(pack(destination));
}
