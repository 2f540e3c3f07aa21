// Compiled code keeps the `@dojang/*` import specifiers; map them onto dist/ at run time.
const path = require('path');
const tsConfigPaths = require('tsconfig-paths');
const dist = path.join(__dirname, '..', 'dist');
tsConfigPaths.register({
  baseUrl: dist,
  paths: { '@dojang/*': ['libs/*/src'] },
});
