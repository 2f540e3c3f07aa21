import { closeSharedPdfPools } from '@dojang/pdf';
import { execFile } from 'child_process';
import * as fs from 'fs';
import { AddressInfo } from 'net';
import * as os from 'os';
import * as path from 'path';
import { promisify } from 'util';
import { startTestApp, TestApp, TestOrg } from '../support/test-app';

/**
 * @dojang/client as an integrator outside this repository gets it: `npm pack` of libs/client (its
 * prepack builds JavaScript and declarations), the tarball installed into a project in the
 * system's temp directory (openapi-fetch comes from the registry, as its dependency), the
 * integrator examples compiled there with tsc `--strict`, exactOptionalPropertyTypes and more (no
 * path mapping, no repository tsconfig), and the compiled JavaScript run against a real server.
 */
const run = promisify(execFile);
const REPO = path.resolve(__dirname, '..', '..');
const CLIENT = path.join(REPO, 'libs', 'client');
const TSC = require.resolve('typescript/bin/tsc');

describe('@dojang/client installed from its packed tarball', () => {
  let t: TestApp;
  let org: TestOrg;
  let baseUrl: string;
  let work: string;
  let project: string;

  beforeAll(async () => {
    work = fs.mkdtempSync(path.join(os.tmpdir(), 'dojang-client-package-'));
    project = path.join(work, 'integrator');
    fs.mkdirSync(path.join(project, 'src'), { recursive: true });
    // The examples' webhook receiver listens on a loopback port: allowed for this server only.
    t = await startTestApp({ config: { webhookAllowPrivateNetworks: true } });
    org = await t.createOrg();
    await t.app.listen(0, '127.0.0.1');
    baseUrl = `http://127.0.0.1:${(t.app.getHttpServer().address() as AddressInfo).port}/v1`;
  });

  afterAll(async () => {
    await t?.close();
    await closeSharedPdfPools();
    if (work) fs.rmSync(work, { recursive: true, force: true });
  });

  it('packs with its package.json, installs outside the repository, compiles the examples strictly and runs them', async () => {
    // 1. The tarball: built output and declarations, no TypeScript sources, no tests.
    const packed = await run('npm', ['pack', '--json', '--pack-destination', work], { cwd: CLIENT, maxBuffer: 16 * 1024 * 1024 });
    const [info] = JSON.parse(packed.stdout) as Array<{ name: string; filename: string; files: Array<{ path: string }> }>;
    expect(info.name).toBe('@dojang/client');
    const files = info.files.map((f) => f.path).sort();
    expect(files).toEqual(expect.arrayContaining(['package.json', 'dist/index.js', 'dist/index.d.ts', 'dist/schema.d.ts', 'dist/webhooks.js', 'dist/webhooks.d.ts']));
    expect(files.filter((f) => f.endsWith('.ts') && !f.endsWith('.d.ts'))).toEqual([]);
    const manifest = JSON.parse(fs.readFileSync(path.join(CLIENT, 'package.json'), 'utf8'));
    expect(manifest.dependencies['openapi-fetch']).toMatch(/^\^\d+\.\d+\.\d+$/);

    // 2. An outside project: nothing but the tarball and what it depends on.
    expect(path.relative(REPO, project).startsWith('..')).toBe(true);
    fs.writeFileSync(path.join(project, 'package.json'), JSON.stringify({ name: 'integrator', private: true }));
    await run('npm', ['install', '--no-audit', '--no-fund', '--prefer-offline', path.join(work, info.filename)], { cwd: project });
    expect(fs.existsSync(path.join(project, 'node_modules', 'openapi-fetch', 'package.json'))).toBe(true);
    for (const file of ['full-flow.ts', 'api-examples.ts', 'env-key.ts']) fs.copyFileSync(path.join(REPO, 'examples', 'integrator', file), path.join(project, 'src', file));

    // 3. Compiled as an integrator's project would be: strict, the package's declarations checked
    // too (skipLibCheck off), Node's resolution of the package's `exports`.
    fs.writeFileSync(
      path.join(project, 'tsconfig.json'),
      JSON.stringify({
        compilerOptions: {
          module: 'node16',
          moduleResolution: 'node16',
          target: 'ES2022',
          lib: ['ES2022', 'DOM'],
          strict: true,
          noImplicitReturns: true,
          noUncheckedIndexedAccess: true,
          useUnknownInCatchVariables: true,
          // As the integrator compiled (issue 32 item 7): `apiKey: process.env.KEY`
          // (env-key.ts) and the packed declarations must hold under it too.
          exactOptionalPropertyTypes: true,
          skipLibCheck: false,
          outDir: 'out',
          rootDir: 'src',
          // @types/node is the integrator's own dev dependency; borrowed here to stay offline.
          typeRoots: [path.join(REPO, 'node_modules', '@types')],
          types: ['node'],
        },
        include: ['src'],
      }),
    );
    await run(process.execPath, [TSC, '-p', project, '--strict'], { cwd: project }).catch((err: { stdout?: string }) => {
      throw new Error(`the examples do not compile against the installed package:\n${err.stdout ?? String(err)}`);
    });

    // 4. Run against the server, as plain Node programs.
    const env = { ...process.env, DOJANG_API: baseUrl, DOJANG_KEY: org.test, DOJANG_OUT: work };
    const flow = await run(process.execPath, [path.join(project, 'out', 'full-flow.js')], { cwd: project, env });
    expect(flow.stdout).toMatch(/^PIN verified: true$/m);
    expect(flow.stdout).toMatch(/^events: document\.sent, document\.viewed, participant\.signed, document\.completed$/m);

    const examples = await run(process.execPath, [path.join(project, 'out', 'api-examples.js')], { cwd: project, env });
    const result = JSON.parse(examples.stdout.trim().split('\n').at(-1) ?? '{}');
    expect(result.idempotentIds[0]).toBe(result.idempotentIds[1]);
    expect(result.templateVariables).toEqual(['employee_name', 'company']);
    // The docs' seal without type and restricted gets the defaults.
    expect(result.seals.map((s: { type: string; restricted: boolean }) => [s.type, s.restricted])).toEqual([
      ['corporate', false],
      ['usage', true],
    ]);
    expect(result.signatureRequestStatus).toBe('sent');
    // Both test deliveries verified by the client's helper; the second, during the rotation's grace, carried two signatures.
    expect(result.webhooks.accepted.map((e: { type: string }) => e.type)).toEqual(['webhook.test', 'webhook.test']);
    expect(result.webhooks.refused).toBe(0);
    expect(result.webhooks.signaturesOnRotation).toBe(2);
  }, 300_000);
});
