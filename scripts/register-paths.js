// Compiled code keeps the `@dojang/*` import specifiers; map them onto dist/ at run time, both
// the library roots and their subpaths (`@dojang/event-store/postgres`: one entry per backend).
const fs = require('fs');
const path = require('path');
const tsConfigPaths = require('tsconfig-paths');
const dist = path.join(__dirname, '..', 'dist');
const libs = fs.existsSync(path.join(dist, 'libs')) ? fs.readdirSync(path.join(dist, 'libs')) : [];
const paths = {};
for (const lib of libs) {
  paths[`@dojang/${lib}`] = [`libs/${lib}/src`];
  paths[`@dojang/${lib}/*`] = [`libs/${lib}/src/*`];
}
tsConfigPaths.register({ baseUrl: dist, paths });
