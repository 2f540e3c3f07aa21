/**
 * PDF pool workers under jest load plain JavaScript compiled once per run, not TypeScript through
 * ts-node. Every test app starts a pool; each of its workers used to load the TypeScript compiler
 * and transpile libs/ again (about 5 s of CPU per worker, two workers per app, a few hundred apps
 * per run). esbuild transpiles libs/ file by file in about a second; the pool maps each handler
 * onto its compiled twin (libs/pdf/src/pool/pdf-pool.ts, DOJANG_PDF_WORKERS_COMPILED).
 *
 * Only the worker side changes: the tests themselves still run the TypeScript through ts-jest,
 * and `npm run typecheck` checks all of it before the tests run.
 */
import { buildSync } from 'esbuild';
import * as fs from 'fs';
import * as path from 'path';

const ROOT = path.resolve(__dirname, '..', '..');
/**
 * Inside the checkout (git-ignored), so compiled files resolve node_modules as the sources do;
 * one folder per jest run, so a spec run beside a whole-suite run in the same checkout never
 * replaces the files the other's workers are loading.
 */
const COMPILED_WORKERS_ROOT = path.join(ROOT, '.tmp', 'pdf-workers');
/** A run's folder left by a run that was killed is removed by a later run after this long. */
const STALE_MS = 6 * 60 * 60 * 1000;

function sources(dir: string, out: string[] = []): string[] {
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    const file = path.join(dir, entry.name);
    if (entry.isDirectory()) {
      if (entry.name !== 'node_modules' && entry.name !== 'dist') sources(file, out);
    } else if (entry.name.endsWith('.ts') && !entry.name.endsWith('.d.ts') && !/\.(spec|e2e-spec|contract-spec|browser-spec)\.ts$/.test(entry.name)) {
      out.push(file);
    }
  }
  return out;
}

/** Compiles libs/ into COMPILED_WORKERS_DIR and writes the loader workers start with; returns the dir. */
export function compilePdfWorkers(): string {
  fs.mkdirSync(COMPILED_WORKERS_ROOT, { recursive: true });
  for (const old of fs.readdirSync(COMPILED_WORKERS_ROOT)) {
    const dir = path.join(COMPILED_WORKERS_ROOT, old);
    const stat = fs.statSync(dir, { throwIfNoEntry: false });
    if (stat && Date.now() - stat.mtimeMs > STALE_MS) fs.rmSync(dir, { recursive: true, force: true });
  }
  const out = fs.mkdtempSync(path.join(COMPILED_WORKERS_ROOT, 'run-'));
  const libs = path.join(ROOT, 'libs');
  buildSync({
    entryPoints: sources(libs),
    outdir: out,
    outbase: ROOT,
    format: 'cjs',
    platform: 'node',
    target: 'node20',
    tsconfig: path.join(ROOT, 'tsconfig.json'),
    sourcemap: 'inline',
    logLevel: 'error',
  });
  const names = fs.readdirSync(libs).filter((lib) => fs.existsSync(path.join(libs, lib, 'src')));
  const paths: Record<string, string[]> = {};
  for (const lib of names) {
    paths[`@dojang/${lib}`] = [`libs/${lib}/src`];
    paths[`@dojang/${lib}/*`] = [`libs/${lib}/src/*`];
  }
  const register = `// Written by test/support/compiled-pdf-workers.ts for one jest run.
require(${JSON.stringify(require.resolve('tsconfig-paths', { paths: [ROOT] }))}).register({ baseUrl: ${JSON.stringify(out)}, paths: ${JSON.stringify(paths)} });
// A .ts module outside the compiled tree (a test's own handler) still loads, through ts-node, on first use.
require.extensions['.ts'] = function loadTypeScript(module, filename) {
  delete require.extensions['.ts'];
  require(${JSON.stringify(require.resolve('ts-node', { paths: [ROOT] }))}).register({ transpileOnly: true, project: ${JSON.stringify(path.join(ROOT, 'tsconfig.json'))} });
  return require.extensions['.ts'](module, filename);
};
`;
  fs.writeFileSync(path.join(out, 'register.js'), register);
  return out;
}

/** Removes a run's compiled workers (jest's global teardown). */
export function removeCompiledPdfWorkers(dir: string | undefined): void {
  if (dir && path.dirname(dir) === COMPILED_WORKERS_ROOT) fs.rmSync(dir, { recursive: true, force: true });
}
