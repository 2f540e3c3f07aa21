/**
 * What one POST /v1/documents sends to PostgreSQL: every statement counted through a wrapped
 * `pg` client, grouped by its text, per request. Two API instances (ROLE=api, as the
 * `postgres-api` scenario runs them, here in one process) on a throwaway database, the
 * projections started as the API process starts them (one instance is elected to project).
 *
 *   npx ts-node --transpile-only -r tsconfig-paths/register bench/postgres-statements.ts
 *
 * POSTS (3000), CONCURRENCY (32), INSTANCES (2); DOJANG_TEST_POSTGRES_URL picks the server.
 */
import 'reflect-metadata';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { INestApplication } from '@nestjs/common';
import { Client } from 'pg';
import { AdminService, Infrastructure, loadConfig, openInfrastructure } from '@dojang/application';
import { createTestDatabase, dropTestDatabase } from '@dojang/postgres/testing/postgres-test-database';
import { createApp } from '../apps/api/src/create-app';
import { SMALL_DOCUMENT } from './scenarios/documents-api.scenario';
import { PostgresMeter } from './scenarios/postgres-meter';

const SERVER = process.env.DOJANG_TEST_POSTGRES_URL || 'postgres://postgres@127.0.0.1:5432/postgres';
const POSTS = Number(process.env.POSTS ?? 3000);
const CONCURRENCY = Number(process.env.CONCURRENCY ?? 32);
const INSTANCES = Number(process.env.INSTANCES ?? 2);

const counts = new Map<string, number>();
let counting = false;
const query = Client.prototype.query as (...args: unknown[]) => unknown;
Client.prototype.query = function (this: Client, ...args: unknown[]) {
  if (counting) {
    const text = typeof args[0] === 'string' ? args[0] : ((args[0] as { text?: string })?.text ?? '?');
    // Numbers vary (positions, the idle limit): one line per statement shape.
    const shape = text.replace(/\s+/g, ' ').replace(/\d+/g, 'N').slice(0, 110);
    counts.set(shape, (counts.get(shape) ?? 0) + 1);
  }
  return query.apply(this, args);
} as typeof Client.prototype.query;

async function main(): Promise<void> {
  const url = await createTestDatabase(SERVER, 'dojang_statements');
  const instances: Array<{ infra: Infrastructure; app: INestApplication; base: string; dir: string }> = [];
  const meter = new PostgresMeter(SERVER, new URL(url).pathname.slice(1));
  try {
    for (let i = 0; i < INSTANCES; i++) {
      const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'dojang-statements-'));
      const env = { DATA_DIR: dir, DATABASE_URL: url, ROLE: 'api', SECRET_KEY: 'bench-secret-key-shared-by-both-apis', RATE_LIMIT_PER_MINUTE: '100000000', LOG_LEVEL: 'silent' };
      const infra = await openInfrastructure({ ...loadConfig(env), logLevel: 'silent' });
      await infra.projections.start();
      const app = await createApp(infra);
      await app.listen(0, '127.0.0.1');
      instances.push({ infra, app, base: await app.getUrl(), dir });
    }
    const { keys } = await new AdminService(instances[0].infra).createOrganization({ name: 'Bench Co' });
    const post = async (i: number) => {
      const res = await fetch(`${instances[i % instances.length].base}/v1/documents`, {
        method: 'POST',
        headers: { authorization: `Bearer ${keys.test}`, 'content-type': 'application/json' },
        body: SMALL_DOCUMENT,
      });
      if (res.status !== 201) throw new Error(`POST answered ${res.status}: ${await res.text()}`);
    };
    for (let i = 0; i < 50; i++) await post(i); // warm-up: prepared statements, caches, JIT
    await meter.open();
    await meter.start();
    counting = true;
    let next = 0;
    const started = Date.now();
    await Promise.all(
      Array.from({ length: CONCURRENCY }, async () => {
        while (next < POSTS) await post(next++);
      }),
    );
    const ms = Date.now() - started;
    counting = false;
    const usage = await meter.stop();
    const total = [...counts.values()].reduce((a, b) => a + b, 0);
    const per = (n: number) => (n / POSTS).toFixed(2);
    process.stdout.write(
      `${POSTS} POSTs over ${INSTANCES} instances at ${CONCURRENCY} concurrent in ${ms} ms (load average ${os.loadavg()[0].toFixed(2)})\n` +
        `statements ${per(total)} per POST; transactions committed ${per(usage.commits)} per POST (the bench's own meter adds a few); ` +
        `PostgreSQL backends ${((usage.backendCpuSec * 1000) / POSTS).toFixed(3)} ms CPU per POST\n`,
    );
    for (const [shape, n] of [...counts].sort((a, b) => b[1] - a[1])) process.stdout.write(`${per(n).padStart(7)}  ${shape}\n`);
  } finally {
    await meter.close();
    for (const { app, infra, dir } of instances) {
      await app.close();
      await infra.close();
      fs.rmSync(dir, { recursive: true, force: true });
    }
    await dropTestDatabase(SERVER, url);
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
