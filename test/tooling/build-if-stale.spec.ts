import { spawnSync } from 'child_process';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';

/**
 * `npm start` compiles only when a source changed since the last build (scripts/build-if-stale.js):
 * on a fixture checkout in the temp folder, a first start builds, a second one does not run tsc,
 * and touching a source (or the tsconfig) builds again.
 */
const SCRIPT = path.join(__dirname, '..', '..', 'scripts', 'build-if-stale.js');
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { staleReason } = require(SCRIPT) as { staleReason: (root: string) => string | null };

describe('npm start builds only when sources changed', () => {
  let root: string;
  const start = () => spawnSync(process.execPath, [SCRIPT, '--root', root], { encoding: 'utf8' });
  const touch = (file: string, at: number) => fs.utimesSync(path.join(root, file), at / 1000, at / 1000);

  beforeAll(() => {
    root = fs.mkdtempSync(path.join(os.tmpdir(), 'dojang-build-if-stale-'));
    fs.mkdirSync(path.join(root, 'apps', 'api', 'src'), { recursive: true });
    fs.writeFileSync(path.join(root, 'apps', 'api', 'src', 'main.ts'), 'export const answer: number = 42;\n');
    fs.writeFileSync(
      path.join(root, 'tsconfig.build.json'),
      JSON.stringify({ compilerOptions: { module: 'commonjs', target: 'ES2022', outDir: 'dist', rootDir: '.', strict: true, types: [] }, include: ['apps/**/*.ts'] }),
    );
  });
  afterAll(() => fs.rmSync(root, { recursive: true, force: true }));

  it('builds the first time, then skips tsc until a source or the configuration is newer than the build', () => {
    expect(staleReason(root)).toBe('no previous build');
    const first = start();
    expect(first.status).toBe(0);
    expect(first.stdout).toContain('build: no previous build; compiling');
    expect(fs.readFileSync(path.join(root, 'dist', 'apps', 'api', 'src', 'main.js'), 'utf8')).toContain('answer = 42');

    const second = start();
    expect(second.status).toBe(0);
    expect(second.stdout).toBe('build: dist/ is up to date (no source changed since the last build)\n');

    // A source saved after the build: the next start compiles it. The build is moved into the past
    // rather than the source into the future, so the rebuild's own stamp (its start) is newer.
    touch('dist/.build-stamp', fs.statSync(path.join(root, 'dist', '.build-stamp')).mtimeMs - 10_000);
    fs.writeFileSync(path.join(root, 'apps', 'api', 'src', 'main.ts'), 'export const answer: number = 43;\n');
    expect(staleReason(root)).toBe(`${path.join('apps', 'api', 'src', 'main.ts')} changed since the last build`);
    const third = start();
    expect(third.stdout).toContain('changed since the last build; compiling');
    expect(fs.readFileSync(path.join(root, 'dist', 'apps', 'api', 'src', 'main.js'), 'utf8')).toContain('answer = 43');
    expect(start().stdout).toContain('up to date');

    touch('tsconfig.build.json', fs.statSync(path.join(root, 'dist', '.build-stamp')).mtimeMs + 5_000);
    expect(staleReason(root)).toBe('tsconfig.build.json changed since the last build');
  });

  it('a failed compilation leaves no stamp: the next start tries again', () => {
    fs.writeFileSync(path.join(root, 'apps', 'api', 'src', 'main.ts'), 'export const answer: number = "x";\n');
    touch('apps/api/src/main.ts', fs.statSync(path.join(root, 'dist', '.build-stamp')).mtimeMs + 10_000);
    const failed = start();
    expect(failed.status).not.toBe(0);
    expect(staleReason(root)).toMatch(/changed since the last build/);
  });
});
