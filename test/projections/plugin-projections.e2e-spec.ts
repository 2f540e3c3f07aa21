import { execFile } from 'child_process';
import { randomUUID } from 'crypto';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { ManualClock, formatProjectionStatus, projectionStatus, readPluginRows } from '@dojang/application';
import { POSTGRES_SKIP_MESSAGE, createTestDatabase, dropTestDatabase, postgresTestServer } from '@dojang/postgres/testing/postgres-test-database';
import { Client, client, expectStatus } from '../support/api-helpers';
import { sentWith, signer } from '../support/lifecycle';
import { startTestApp, TestApp, useTestApp } from '../support/test-app';
import { RELATIVE_ERROR, percentile, record } from '../../examples/projections/signing-times';

const histogramOf = (seconds: number[]) => seconds.reduce(record, {} as Record<string, number>);

/**
 * The example plugin (examples/projections/signing-times.ts) as an operator registers it:
 * PROJECTIONS for the server and the CLI, real signing lifecycles, the report read back, just
 * that projection rebuilt, and its status in `cli projections status` and GET /v1/admin/projections.
 */

const ROOT = path.join(__dirname, '..', '..');
const PLUGIN = 'examples/projections/signing-times.ts';
const ADMIN_TOKEN = 'adm_test_0123456789abcdefghij';
const MINUTE = 60_000;

interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
}

/** The CLI from its sources (ts-node, transpile only): no build step for the test. */
function cli(args: string[], env: NodeJS.ProcessEnv): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    execFile(
      process.execPath,
      ['-r', 'ts-node/register', '-r', 'tsconfig-paths/register', path.join(ROOT, 'apps/cli/src/main.ts'), ...args],
      {
        cwd: ROOT,
        env: { ...process.env, TS_NODE_TRANSPILE_ONLY: '1', TS_NODE_PROJECT: path.join(ROOT, 'tsconfig.json'), NODE_ENV: 'test', ...env },
        timeout: 120_000,
        encoding: 'utf8',
      },
      (err, stdout, stderr) => {
        if (err && typeof (err as { code?: unknown }).code !== 'number') return reject(new Error(`${args.join(' ')}: ${err.message}\n${stderr}`));
        resolve({ code: err ? Number((err as { code?: number }).code) : 0, stdout, stderr });
      },
    );
  });
}

const json = (r: CliResult) => {
  if (r.code !== 0) throw new Error(`cli exited ${r.code}: ${r.stderr}`);
  return JSON.parse(r.stdout);
};

const server = postgresTestServer();
if (!server) console.warn(POSTGRES_SKIP_MESSAGE);

describe.each([
  ['SQLite', false],
  ['PostgreSQL', true],
] as const)('the signing-times example plugin on %s', (_name, postgres) => {
  const run = postgres && !server ? describe.skip : describe;
  run('', () => pluginLifecycle(postgres));
});

function pluginLifecycle(postgres: boolean) {
  let t: TestApp;
  let clock: ManualClock;
  let c: Client;
  let orgId: string;
  let otherOrgId: string;
  let databaseUrl: string | null = null;
  let cliEnv: NodeJS.ProcessEnv;

  beforeAll(async () => {
    if (postgres) databaseUrl = await createTestDatabase(server!);
    t = await startTestApp({
      manualClock: true,
      env: { PROJECTIONS: PLUGIN },
      config: { adminToken: ADMIN_TOKEN, rateLimitPerMinute: 1_000_000, ...(databaseUrl ? { databaseUrl, databasePoolSize: 4 } : {}) },
    });
    expect(t.infra.storeKind).toBe(postgres ? 'postgres' : 'sqlite');
    clock = t.clock!;
    const org = await t.createOrg();
    orgId = org.id;
    c = client(t, org.test);
    otherOrgId = (await t.createOrg('Other')).id;
    cliEnv = { DATA_DIR: t.dataDir, PROJECTIONS: PLUGIN, ...(databaseUrl ? { DATABASE_URL: databaseUrl, DATABASE_POOL_SIZE: '2' } : {}) };
  }, 120_000);
  afterAll(async () => {
    await t?.close();
    if (databaseUrl) await dropTestDatabase(server!, databaseUrl);
  });

  /** Sends a document, lets `minutes` pass, and has its one signer sign it to completion. */
  async function signedAfter(who: Client, minutes: number) {
    const d = await sentWith(who, [{ name: '김철수', auth: 'none' }]);
    clock.advance(minutes * MINUTE);
    const signed = expectStatus(await signer(t, d.p['김철수'].token).sign(), 200).body;
    expect(signed.document.status).toBe('completed');
  }

  it('loads the plugin next to the built-ins', () => {
    expect(t.infra.runner.projections.map((p) => p.name)).toContain('signing_times');
  });

  it('reports the time to sign (p50, p95) per organization and month from real lifecycles', async () => {
    await signedAfter(c, 10);
    await signedAfter(c, 30);
    await signedAfter(c, 120);
    await signedAfter(client(t, (await t.createOrg('Third')).test), 5);
    await t.infra.runner.catchUp();
    const rows = await readPluginRows(t.infra.reads, t.infra.runner.projections, 'report_signing_times', orgId);
    expect(rows).toEqual([
      {
        id: `${orgId}:test:2026-03`,
        organization_id: orgId,
        livemode: false,
        month: '2026-03',
        documents: 3,
        p50_seconds: percentile(histogramOf([600, 1800, 7200]), 0.5),
        p95_seconds: percentile(histogramOf([600, 1800, 7200]), 0.95),
        histogram: histogramOf([600, 1800, 7200]),
      },
    ]);
    // The histogram's estimates are within its bound of the exact p50 (1800 s) and p95 (7200 s).
    expect(Math.abs((rows[0].p50_seconds as number) - 1800)).toBeLessThanOrEqual(1800 * RELATIVE_ERROR);
    expect(Math.abs((rows[0].p95_seconds as number) - 7200)).toBeLessThanOrEqual(7200 * RELATIVE_ERROR);
    expect(await readPluginRows(t.infra.reads, t.infra.runner.projections, 'report_signing_times', otherOrgId)).toEqual([]);
  }, 240_000);

  // The CLI runs from its sources in a child process (slow to start), so the embedded store runs
  // it and PostgreSQL calls the same application functions in process (the CLI's code path).
  const cliOrInProcess = {
    report: async (org: string) =>
      postgres ? await readPluginRows(t.infra.reads, t.infra.runner.projections, 'report_signing_times', org) : json(await cli(['report', 'report_signing_times', '--org', org], cliEnv)),
    rebuild: async (name: string) => (postgres ? { rebuilt: await t.admin.rebuildProjections([name]) } : json(await cli(['projections', 'rebuild', name], cliEnv))),
    status: async () =>
      postgres ? { projections: await projectionStatus(t.infra.events, t.infra.reads, t.infra.runner.projections) } : json(await cli(['projections', 'status', '--json'], cliEnv)),
  };

  it(`${postgres ? 'the rebuild' : 'cli report shows it; cli projections rebuild'} signing_times rebuilds just it to the same rows`, async () => {
    const before = await cliOrInProcess.report(orgId);
    expect(before).toHaveLength(1);
    expect(before[0]).toMatchObject({ organization_id: orgId, documents: 3, p50_seconds: percentile(histogramOf([600, 1800, 7200]), 0.5) });

    const rebuilt = await cliOrInProcess.rebuild('signing_times');
    expect(rebuilt.rebuilt).toEqual(['signing_times']);
    const generations = await t.infra.reads.getGenerations(['signing_times', 'documents', 'audit_trail']);
    expect(generations).toEqual({ signing_times: 1, documents: 0, audit_trail: 0 });
    expect(await readPluginRows(t.infra.reads, t.infra.runner.projections, 'report_signing_times', orgId)).toEqual(before);

    // The running server's runner, fenced by the new generation, follows on from the rebuild.
    await signedAfter(c, 60);
    await t.infra.runner.catchUp();
    const after = await readPluginRows(t.infra.reads, t.infra.runner.projections, 'report_signing_times', orgId);
    expect(after[0]).toMatchObject({ documents: 4, histogram: histogramOf([600, 1800, 3600, 7200]) });
  }, 240_000);

  it('the report refuses a built-in or unknown collection', async () => {
    await expect(readPluginRows(t.infra.reads, t.infra.runner.projections, 'api_keys')).rejects.toThrow(
      'no plugin collection named api_keys; loaded: report_signing_sent, report_signing_times',
    );
  });

  it(`${postgres ? 'status' : 'cli projections status --json'} and GET /v1/admin/projections report the same positions, lag and generations`, async () => {
    // The worker certifies each concluded document just after it (DocumentCertified): wait for the log to be quiet.
    for (let seen = null, now = await t.infra.events.headPosition(); now !== seen; now = await t.infra.events.headPosition()) {
      seen = now;
      await new Promise((resolve) => setTimeout(resolve, 750));
    }
    await t.infra.runner.catchUp();
    const head = await t.infra.events.headPosition();
    const fromCli = (await cliOrInProcess.status()).projections;
    const res = await t.http.get('/v1/admin/projections').set('Authorization', `Bearer ${ADMIN_TOKEN}`);
    expectStatus(res, 200);
    const fromApi = res.body.projections;
    expect(fromApi).toEqual(fromCli);
    const names = fromApi.map((p: { name: string }) => p.name);
    expect(names).toEqual(t.infra.runner.projections.map((p) => p.name));
    for (const p of fromApi) {
      expect(p).toEqual({
        name: p.name,
        // Each at the version its code declares (the example at 2, its histogram).
        version: t.infra.runner.projections.find((q) => q.name === p.name)!.version ?? 1,
        checkpoint: head,
        lag_events: 0,
        lag_seconds: 0,
        generation: p.name === 'signing_times' ? 1 : 0,
        last_error: null,
        last_error_at: null,
      });
    }
    // The CLI's table (without --json) is this text.
    const lines = formatProjectionStatus(fromApi).split('\n');
    expect(lines[0]).toMatch(/^PROJECTION\s+VERSION\s+CHECKPOINT\s+LAG EVENTS\s+LAG SECONDS\s+GENERATION\s+LAST ERROR$/);
    expect(lines.find((l) => l.startsWith('signing_times'))).toMatch(new RegExp(`^signing_times\\s+2\\s+${head}\\s+0\\s+0\\s+1\\s+-$`));
  }, 240_000);

  it('status shows lag behind the log in events and seconds', async () => {
    await t.infra.runner.catchUp();
    // Appends no runner follows (stopped, as when projections fall behind): three events behind.
    await t.infra.runner.stop();
    try {
      const occurred = clock.now();
      await t.infra.events.append(
        `lag-probe-${orgId}`,
        [1, 2, 3].map((n) => ({ event_id: randomUUID(), type: 'LagProbe', data: { n }, metadata: { occurred_at: occurred.toISOString(), actor: 'test', schema_version: 1 } })),
        'no_stream',
      );
      const status = await projectionStatus(t.infra.events, t.infra.reads, t.infra.runner.projections, new Date(occurred.getTime() + 90_000));
      for (const s of status) expect(s).toMatchObject({ lag_events: 3, lag_seconds: 90 });
    } finally {
      await t.infra.runner.start();
    }
    const caughtUp = await projectionStatus(t.infra.events, t.infra.reads, t.infra.runner.projections);
    expect(caughtUp.every((s) => s.lag_events === 0 && s.lag_seconds === 0)).toBe(true);
  });
}

describe('GET /v1/admin/projections access', () => {
  const t = useTestApp({ worker: false, config: { adminToken: ADMIN_TOKEN } });
  let key: string;
  beforeAll(async () => {
    key = (await t.createOrg()).live;
  });

  it('401 without the admin token, with a wrong one, or with an API key', async () => {
    for (const auth of [undefined, 'Bearer nope', `Bearer ${ADMIN_TOKEN}x`, `Bearer ${key}`, ADMIN_TOKEN]) {
      const req = t.http.get('/v1/admin/projections');
      const res = await (auth ? req.set('Authorization', auth) : req);
      expectStatus(res, 401);
      expect(res.body.error).toMatchObject({ type: 'authentication_error', code: 'invalid_admin_token' });
    }
  });

  it('is documented as an operator route needing ADMIN_TOKEN', async () => {
    const doc = (await t.http.get('/v1/openapi.json').expect(200)).body;
    expect(doc.paths['/admin/projections'].get.description).toContain('Authorization: Bearer <ADMIN_TOKEN>');
  });
});

describe('GET /v1/admin/projections without ADMIN_TOKEN', () => {
  const t = useTestApp({ worker: false });

  it('does not exist (404), whatever is sent', async () => {
    for (const auth of [undefined, 'Bearer ', 'Bearer anything']) {
      const req = t.http.get('/v1/admin/projections');
      const res = await (auth ? req.set('Authorization', auth) : req);
      expectStatus(res, 404);
      expect(res.body.error).toMatchObject({ code: 'resource_not_found' });
    }
  });
});

describe('a failing plugin projection', () => {
  let t: TestApp;
  let dir: string;
  beforeAll(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'dojang-plugin-'));
    fs.writeFileSync(
      path.join(dir, 'exploding.js'),
      `module.exports = { projections: [{
        name: 'exploding', version: 1, collections: [{ name: 'report_exploding' }], handles: new Set(['ExplodeProbe']),
        keys: (e) => [{ collection: 'report_exploding', id: e.stream_id }],
        evolve: () => { throw new Error('boom: cannot project ExplodeProbe'); },
      }] };`,
    );
    t = await startTestApp({ worker: false, env: { PROJECTIONS: path.join(dir, 'exploding.js') }, config: { adminToken: ADMIN_TOKEN } });
  });
  afterAll(async () => {
    await t.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('its last error shows in status, against it alone, for every process to see', async () => {
    // The append signals the runner; its pass fails and onError records the error.
    await t.infra.events.append('probe-1', [{ event_id: randomUUID(), type: 'ExplodeProbe', data: {}, metadata: { occurred_at: new Date().toISOString(), actor: 'test', schema_version: 1 } }], 'no_stream');
    let row: Record<string, unknown> | undefined;
    for (let i = 0; i < 50 && !row?.last_error; i++) {
      const res = await t.http.get('/v1/admin/projections').set('Authorization', `Bearer ${ADMIN_TOKEN}`).expect(200);
      row = res.body.projections.find((p: { name: string }) => p.name === 'exploding');
      if (!row?.last_error) await new Promise((r) => setTimeout(r, 20));
    }
    expect(row).toMatchObject({ name: 'exploding', last_error: 'projection exploding failed: boom: cannot project ExplodeProbe' });
    expect(Date.parse(String(row!.last_error_at))).not.toBeNaN();
    const others = (await projectionStatus(t.infra.events, t.infra.reads, t.infra.runner.projections)).filter((p) => p.name !== 'exploding');
    expect(others.every((p) => p.last_error === null)).toBe(true);
  });
});
