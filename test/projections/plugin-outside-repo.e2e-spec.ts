import { execFile } from 'child_process';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';

/**
 * A plugin kept outside the repository, as docs/EXTENDING.md §2 tells its author to work: its spec
 * imports the test kit (`@dojang/projections/testing`), runs under the repository's jest when
 * PROJECTIONS names the plugin, and its folder is type-checked by `npm run typecheck:plugins`.
 */
const ROOT = path.join(__dirname, '..', '..');

function run(command: string, args: string[], env: NodeJS.ProcessEnv): Promise<{ code: number; out: string }> {
  return new Promise((resolve) => {
    execFile(command, args, { cwd: ROOT, env: { ...process.env, ...env }, timeout: 240_000, encoding: 'utf8' }, (err, stdout, stderr) => {
      resolve({ code: err ? Number((err as { code?: number }).code ?? 1) : 0, out: `${stdout}\n${stderr}` });
    });
  });
}

describe('a projection plugin outside the repository', () => {
  let dir: string;
  let plugin: string;

  beforeAll(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'dojang-outside-plugin-'));
    plugin = path.join(dir, 'signing-times.ts');
    fs.copyFileSync(path.join(ROOT, 'examples', 'projections', 'signing-times.ts'), plugin);
    fs.copyFileSync(path.join(ROOT, 'examples', 'projections', 'signing-times.spec.ts'), path.join(dir, 'signing-times.spec.ts'));
  });
  afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('its specs run with the test kit when PROJECTIONS names it, and are not found otherwise', async () => {
    const jest = require.resolve('jest/bin/jest');
    const found = await run(process.execPath, [jest, '--ci', dir], { PROJECTIONS: plugin });
    expect(found.out).toMatch(/Tests:\s+\d+ passed, \d+ total/);
    expect(found.out).toContain('the kit refuses the plugin when the month row is missing from keys');
    expect(found.code).toBe(0);
    const missed = await run(process.execPath, [jest, '--ci', dir], { PROJECTIONS: '' });
    expect(missed.code).not.toBe(0);
    expect(missed.out).toMatch(/No tests found/);
  }, 240_000);

  it('npm run typecheck:plugins checks its folder, and fails on a type error there', async () => {
    const ok = await run('npm', ['run', '--silent', 'typecheck:plugins'], { PROJECTIONS: plugin });
    expect(ok.out).toContain(`typecheck:plugins: ${dir}`);
    expect(ok.code).toBe(0);
    fs.writeFileSync(path.join(dir, 'broken.ts'), "import type { Projection } from '@dojang/projections';\nexport const p: Projection = { name: 'x' };\n");
    const broken = await run('npm', ['run', '--silent', 'typecheck:plugins'], { PROJECTIONS: plugin });
    expect(broken.code).not.toBe(0);
    expect(broken.out).toMatch(/broken\.ts\(2,14\): error TS\d+: .* missing the following properties from type .Projection./);
  }, 240_000);
});
