import { buildSync } from 'esbuild';
import * as fs from 'fs';
import * as path from 'path';

/**
 * The signing page's modules as one script, made once per process from the files themselves
 * (nothing written to disk): on a phone's HTTP/1.1 link (six connections per origin, 150 ms round
 * trips) the 15 modules went in waves, one request per connection at a time, before page 1 could
 * show; one file is one request (docs/BENCHMARKS.md, the signing page's LCP).
 *
 * Bundled by esbuild (already the verifier's bundler), which keeps ES module semantics — each
 * module's scope, evaluation order, live bindings — whatever the modules' style. `external`
 * modules stay imports of their own files (early-session.js is its own entry, so that it runs
 * before this script has arrived). Every module's exports are exported again, so that
 * `import('/sign/assets/bundle.js')` reaches the instances the page runs (a module's own URL would
 * load a second, idle copy). Whitespace and syntax are minified, names kept: an error a signer's
 * browser reports still names the function.
 *
 * A page module may import a pure domain module (the field rules) by the name its tsconfig.json
 * `paths` give it; esbuild reads that file, bundles the module in (tree-shaken to what the page
 * uses) and `modules` lists it apart, in `shared`, as a path from the repository root (the
 * production image must carry it: Dockerfile). Only the page's own modules are exported again.
 */
export function bundleModules(dir: string, entry: string, external: readonly string[] = []): { code: string; modules: string[]; shared: string[] } {
  const options = {
    bundle: true,
    write: false,
    format: 'esm' as const,
    charset: 'utf8' as const,
    legalComments: 'none' as const,
    logLevel: 'silent' as const,
    external: external.map((name) => `./${name}`),
  };
  // First which modules the entry reaches, then one entry that runs it and re-exports them all.
  const reached = buildSync({ ...options, entryPoints: [path.join(dir, entry)], metafile: true });
  // metafile inputs are relative to the working directory (esbuild's absWorkingDir).
  const inputs = Object.keys(reached.metafile.inputs).map((input) => path.resolve(input));
  const own = (file: string) => path.dirname(file) === path.resolve(dir);
  const modules = inputs.filter(own).map((input) => path.basename(input));
  const shared = inputs.filter((input) => !own(input)).map((input) => path.relative(repoRootOf(dir), input));
  const contents = [`import './${entry}';`, ...modules.filter((m) => m !== entry).map((m) => `export * from './${m}';`)].join('\n');
  const built = buildSync({ ...options, stdin: { contents, resolveDir: dir, sourcefile: 'bundle.js', loader: 'js' }, minifyWhitespace: true, minifySyntax: true });
  return { code: built.outputFiles?.[0]?.text ?? '', modules, shared };
}

/** The repository (the nearest folder above `dir` with a package.json). */
function repoRootOf(dir: string): string {
  let at = path.resolve(dir);
  while (!fs.existsSync(path.join(at, 'package.json')) && path.dirname(at) !== at) at = path.dirname(at);
  return at;
}
