#!/usr/bin/env node
// `PROJECTIONS=../reports/signing-times.ts npm run typecheck:plugins`: type-checks the folders of
// the PROJECTIONS plugin modules (their specs included) against the repository's @dojang/* paths
// and types, wherever the folders are, inside the checkout or outside it. The repository's own
// `npm run typecheck` covers examples/; this covers a plugin's own folder. Exit code = tsc's.
const { spawnSync } = require('child_process');
const fs = require('fs');
const os = require('os');
const path = require('path');
const { projectionPluginDirs } = require('./projection-plugin-dirs');

const root = path.join(__dirname, '..');
const dirs = projectionPluginDirs();
if (dirs.length === 0) {
  process.stderr.write('typecheck:plugins: set PROJECTIONS to the plugin modules (comma-separated), as for the server.\n');
  process.exit(2);
}
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'dojang-plugins-tsc-'));
try {
  const config = path.join(tmp, 'tsconfig.json');
  fs.writeFileSync(
    config,
    JSON.stringify({
      extends: path.join(root, 'tsconfig.json'),
      // Types (jest's globals, node) come from the checkout wherever the plugin lives.
      compilerOptions: { noEmit: true, incremental: false, rootDir: '/', typeRoots: [path.join(root, 'node_modules', '@types')] },
      include: dirs.map((d) => path.join(d, '**', '*.ts')),
      exclude: dirs.map((d) => path.join(d, '**', 'node_modules')),
    }),
  );
  process.stdout.write(`typecheck:plugins: ${dirs.join(', ')}\n`);
  const tsc = spawnSync(process.execPath, [require.resolve('typescript/bin/tsc'), '-p', config], { stdio: 'inherit' });
  process.exitCode = tsc.status ?? 1;
} finally {
  fs.rmSync(tmp, { recursive: true, force: true });
}
