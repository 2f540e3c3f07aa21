// The directories of the PROJECTIONS plugin modules, parsed as the server and the CLI parse the
// variable (libs/application/src/runtime/config.ts: comma-separated, trimmed, resolved from the working
// directory). jest.config.js adds them to its roots and scripts/typecheck-plugins.js type-checks
// them, so a plugin's specs outside examples/ (or outside the repository) run and compile with
// the repository's @dojang/* paths. Plain Node: jest reads its config without a TypeScript loader.
const path = require('path');

function projectionPluginDirs(env = process.env, cwd = process.cwd()) {
  const entries = (env.PROJECTIONS ?? '')
    .split(',')
    .map((p) => p.trim())
    .filter(Boolean);
  return [...new Set(entries.map((entry) => path.dirname(path.resolve(cwd, entry))))];
}

module.exports = { projectionPluginDirs };
