#!/usr/bin/env node
// Runs the compiled CLI, building first when this checkout has never been built.
const fs = require('fs');
const path = require('path');
const { execFileSync } = require('child_process');
const root = path.join(__dirname, '..');
const entry = path.join(root, 'dist', 'apps', 'cli', 'src', 'main.js');
if (!fs.existsSync(entry)) {
  execFileSync(process.execPath, [require.resolve('typescript/bin/tsc'), '-p', path.join(root, 'tsconfig.build.json')], { stdio: 'inherit', cwd: root });
}
require('./register-paths');
require(entry);
