#!/usr/bin/env node
// `npm start` builds through here: tsc runs only when a source is newer than the last successful
// build (dist/.build-stamp), like make. Even a no-change incremental `tsc -b`-style build reads and
// checks every file (about a minute on a small machine); comparing modification times takes
// milliseconds. `npm run build` still always compiles.
//
//   node scripts/build-if-stale.js [--root DIR]     exit code: tsc's, or 0 when up to date
const { spawnSync } = require('child_process');
const fs = require('fs');
const path = require('path');

/** What the build reads: the compiled folders and the files that configure the compilation. */
const SOURCE_DIRS = ['apps', 'libs', 'examples', 'bench'];
const SOURCE_FILES = ['tsconfig.json', 'tsconfig.build.json', 'package.json', 'package-lock.json'];
const SKIP_DIRS = new Set(['node_modules', 'dist', 'data', 'coverage', '.tmp']);
const STAMP = path.join('dist', '.build-stamp');
const ENTRY = path.join('dist', 'apps', 'api', 'src', 'main.js');

/** The newest modification time (ms) among the sources under `root`, and the file that has it. */
function newestSource(root) {
  let newest = { mtimeMs: 0, file: null };
  const consider = (file) => {
    const stat = fs.statSync(file, { throwIfNoEntry: false });
    if (stat && stat.mtimeMs > newest.mtimeMs) newest = { mtimeMs: stat.mtimeMs, file };
  };
  const walk = (dir) => {
    for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
      if (entry.isDirectory()) {
        if (!SKIP_DIRS.has(entry.name)) walk(path.join(dir, entry.name));
      } else if (/\.(ts|js|json)$/.test(entry.name)) {
        consider(path.join(dir, entry.name));
      }
    }
  };
  for (const dir of SOURCE_DIRS) if (fs.existsSync(path.join(root, dir))) walk(path.join(root, dir));
  for (const file of SOURCE_FILES) consider(path.join(root, file));
  return newest;
}

/** Why a build is needed, or null when dist/ is at least as new as every source. */
function staleReason(root) {
  const stamp = fs.statSync(path.join(root, STAMP), { throwIfNoEntry: false });
  if (!stamp || !fs.existsSync(path.join(root, ENTRY))) return 'no previous build';
  const newest = newestSource(root);
  return newest.mtimeMs > stamp.mtimeMs ? `${path.relative(root, newest.file)} changed since the last build` : null;
}

function main(argv) {
  const at = argv.indexOf('--root');
  const root = at >= 0 ? path.resolve(argv[at + 1]) : path.join(__dirname, '..');
  const reason = staleReason(root);
  if (!reason) {
    process.stdout.write('build: dist/ is up to date (no source changed since the last build)\n');
    return 0;
  }
  process.stdout.write(`build: ${reason}; compiling (tsc -p tsconfig.build.json)\n`);
  const started = Date.now();
  const tsc = spawnSync(process.execPath, [require.resolve('typescript/bin/tsc'), '-p', path.join(root, 'tsconfig.build.json')], { cwd: root, stdio: 'inherit' });
  if (tsc.status !== 0) return tsc.status ?? 1;
  // Stamped with the time the build started: a source saved during the build makes the next start build again.
  fs.mkdirSync(path.join(root, 'dist'), { recursive: true });
  fs.writeFileSync(path.join(root, STAMP), `${new Date(started).toISOString()}\n`);
  fs.utimesSync(path.join(root, STAMP), new Date(started), new Date(started));
  return 0;
}

module.exports = { newestSource, staleReason };

if (require.main === module) process.exitCode = main(process.argv.slice(2));
