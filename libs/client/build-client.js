#!/usr/bin/env node
// Builds the package (`npm run build`, and `npm pack` through prepack): tsc compiles src/ into
// dist/ with declarations, then the generated schema.d.ts goes beside them (tsc never copies a
// .d.ts input). Plain Node so it runs with nothing but the TypeScript compiler on the PATH.
const { execFileSync } = require('child_process');
const fs = require('fs');
const path = require('path');

const here = __dirname;
fs.rmSync(path.join(here, 'dist'), { recursive: true, force: true });
execFileSync(process.execPath, [require.resolve('typescript/bin/tsc'), '-p', path.join(here, 'tsconfig.build.json')], { stdio: 'inherit' });
fs.copyFileSync(path.join(here, 'src', 'schema.d.ts'), path.join(here, 'dist', 'schema.d.ts'));
