import { execFile } from 'child_process';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { Writable } from 'stream';
import { AdminService, createLogger, Infrastructure, loadConfig, openInfrastructure, unloadedProjections } from '@dojang/application';

/**
 * PROJECTIONS read the same way by every process, and said out loud: the server logs the plugins
 * it loads and the replay it starts; a process without the plugin (the CLI run without
 * PROJECTIONS) shows it as not loaded, and a rebuild of it points at PROJECTIONS.
 */
const ROOT = path.join(__dirname, '..', '..');
const PLUGIN = 'examples/projections/signing-times.ts';

function capture(): { lines: Array<Record<string, unknown>>; logger: ReturnType<typeof createLogger> } {
  const lines: Array<Record<string, unknown>> = [];
  const sink = new Writable({
    write(chunk, _encoding, done) {
      for (const line of String(chunk).split('\n').filter(Boolean)) lines.push(JSON.parse(line));
      done();
    },
  });
  return { lines, logger: createLogger({ level: 'info', destination: sink }) };
}

describe('loading PROJECTIONS plugins', () => {
  let dataDir: string;
  const open = (env: Record<string, string>, logger?: ReturnType<typeof createLogger>): Promise<Infrastructure> =>
    openInfrastructure({ ...loadConfig({ ...env, DATA_DIR: dataDir, NODE_ENV: 'test' }), logLevel: 'silent' }, undefined, logger ? { logger } : {});

  beforeAll(async () => {
    dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'dojang-plugin-loading-'));
    // History before the plugin exists: an organization.
    const before = await open({});
    await new AdminService(before).createOrganization({ name: 'Acme', kind: 'personal' });
    await before.close();
  });
  afterAll(() => fs.rmSync(dataDir, { recursive: true, force: true }));

  it('logs the plugin it loads and the replay of the log into it, then that it is loaded', async () => {
    const first = capture();
    const infra = await open({ PROJECTIONS: PLUGIN }, first.logger);
    await infra.runner.catchUp();
    await infra.close();
    expect(first.lines).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ projection: 'signing_times', checkpoint: 0, msg: 'projection plugin signing_times: new on this store; replaying the log into it from the start' }),
        expect.objectContaining({ projections: ['signing_times'], modules: [PLUGIN], msg: 'PROJECTIONS: 1 plugin projection(s) loaded' }),
      ]),
    );
    const again = capture();
    await (await open({ PROJECTIONS: PLUGIN }, again.logger)).close();
    expect(again.lines.map((l) => l.msg)).toContain('projection plugin signing_times loaded');
  });

  it('a process without PROJECTIONS sees the plugin as not loaded, and a rebuild of it points at PROJECTIONS', async () => {
    const infra = await open({});
    try {
      expect(await unloadedProjections(infra.reads, infra.runner.projections)).toEqual(['signing_times']);
      await expect(new AdminService(infra).rebuildProjections(['signing_times'])).rejects.toThrow(
        /unknown projection\(s\): signing_times \(recorded on this store: a plugin this process has not loaded\)\. Loaded here: .*Plugins are loaded from PROJECTIONS \(unset in this process\): set it to the same modules as the server's\./,
      );
      await expect(new AdminService(infra).rebuildProjections(['nope'])).rejects.toThrow(/unknown projection\(s\): nope\. .*PROJECTIONS/);
    } finally {
      await infra.close();
    }
  });

  it('cli projections status without PROJECTIONS says which recorded projection it has not loaded', async () => {
    const out = await new Promise<{ code: number; stdout: string; stderr: string }>((resolve) => {
      execFile(
        process.execPath,
        ['-r', 'ts-node/register', '-r', 'tsconfig-paths/register', path.join(ROOT, 'apps/cli/src/main.ts'), 'projections', 'status'],
        {
          cwd: ROOT,
          env: { ...process.env, PROJECTIONS: '', DATA_DIR: dataDir, TS_NODE_TRANSPILE_ONLY: '1', TS_NODE_PROJECT: path.join(ROOT, 'tsconfig.json'), NODE_ENV: 'test' },
          timeout: 120_000,
          encoding: 'utf8',
        },
        (err, stdout, stderr) => resolve({ code: err ? Number((err as { code?: number }).code ?? 1) : 0, stdout, stderr }),
      );
    });
    expect(out.stderr).toBe('');
    expect(out.code).toBe(0);
    expect(out.stdout).toContain('Not loaded by this process, though recorded on this store: signing_times. Plugins are loaded from PROJECTIONS (unset in this process)');
  }, 120_000);
});
