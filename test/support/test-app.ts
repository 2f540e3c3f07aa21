import { INestApplication } from '@nestjs/common';
import { AdminService, ManualClock, Infrastructure, Logger, loadConfig, openInfrastructure, AppConfig, startWorker, Worker, WorkerOptions } from '@dojang/application';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import request from 'supertest';
import { createApp, CreateAppOptions } from '../../apps/api/src/create-app';
import { validatingAgent } from './openapi-validator';

export interface TestOrg {
  id: string;
  test: string;
  live: string;
}

export interface TestApp {
  app: INestApplication;
  /** Every response is validated against the served OpenAPI document (openapi-validator.ts). */
  http: ReturnType<typeof request>;
  infra: Infrastructure;
  admin: AdminService;
  clock: ManualClock | null;
  worker: Worker | null;
  dataDir: string;
  createOrg(name?: string, kind?: 'personal' | 'team'): Promise<TestOrg>;
  close(): Promise<void>;
}

/**
 * A real app on the embedded stores in a fresh temp directory. Pass `manualClock` to drive time
 * from the test (expiry, cooldowns, retries) instead of sleeping.
 */
export async function startTestApp(
  options: {
    manualClock?: boolean;
    config?: Partial<AppConfig>;
    env?: NodeJS.ProcessEnv;
    worker?: boolean | WorkerOptions;
    logger?: Logger;
    /** Answers for webhook host names at registration (createApp's webhookHostResolver). */
    webhookHostResolver?: CreateAppOptions['webhookHostResolver'];
  } = {},
): Promise<TestApp> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'dojang-test-'));
  // Page images at send cost three renders a page for every document sent: off unless a spec asks
  // (test/pdf-api/signing-page-images.e2e-spec.ts), so the suites' many sends stay cheap.
  // One PDF pool thread unless a spec asks for more: each thread loads pdfmake and the fonts and
  // renders a warm-up page as the app starts (~0.8 s of CPU), and the suite starts apps by the
  // hundred on two cores, where a second thread per app buys no speed.
  const config: AppConfig = { ...loadConfig({ PAGE_IMAGES_AT_SEND: 'false', PDF_POOL_THREADS: '1', ...(options.env ?? {}), DATA_DIR: dataDir, NODE_ENV: 'test' }), ...(options.config ?? {}) };
  const infra = await openInfrastructure(config, undefined, options.logger ? { logger: options.logger } : {});
  await infra.runner.start();
  const clock = options.manualClock ? new ManualClock(new Date('2026-03-02T09:00:00.000Z')) : null;
  const worker =
    options.worker === false
      ? null
      : await startWorker(infra, { ...(clock ? { clock } : {}), retrySleep: async () => undefined, ...(typeof options.worker === 'object' ? options.worker : {}) });
  const app = await createApp(infra, {
    ...(clock ? { clock } : {}),
    ...(worker ? { notifier: worker.notifier } : {}),
    ...(options.webhookHostResolver ? { webhookHostResolver: options.webhookHostResolver } : {}),
  });
  await app.init();
  const admin = new AdminService(infra, () => (clock ? clock.now() : new Date()).toISOString());
  return {
    app,
    http: validatingAgent(app.getHttpServer()),
    infra,
    admin,
    clock,
    worker,
    dataDir,
    async createOrg(name = 'Acme 주식회사', kind: 'personal' | 'team' = 'personal') {
      const out = await admin.createOrganization({ name, kind });
      return { id: out.organization.id, test: out.keys.test, live: out.keys.live };
    },
    async close() {
      await worker?.stop();
      await app.close();
      await infra.close();
      fs.rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

export const bearer = (key: string) => ({ Authorization: `Bearer ${key}` });

/**
 * The usual preamble of an end-to-end spec: one app for the enclosing `describe`, started before
 * its first test and closed after its last. The returned object stands for the app once started
 * (`t.http`, `t.createOrg()`…); touching it outside a test or hook is an error that says so.
 */
export function useTestApp(options: TestAppOptions | (() => TestAppOptions) = {}): TestApp {
  // A function when the options need what an earlier beforeAll made (a local CA's URL, say).
  return appFixture(() => startTestApp(typeof options === 'function' ? options() : options));
}

type TestAppOptions = Parameters<typeof startTestApp>[0];

/** A TestApp made by `start` in beforeAll and closed in afterAll, for the enclosing describe. */
export function appFixture(start: () => Promise<TestApp>): TestApp {
  let started: TestApp | undefined;
  beforeAll(async () => {
    started = await start();
  });
  afterAll(async () => {
    await started?.close();
    started = undefined;
  });
  return new Proxy({} as TestApp, {
    get(_, property) {
      if (!started) throw new Error(`the test app is used (.${String(property)}) before beforeAll started it or after afterAll closed it`);
      const value = Reflect.get(started, property);
      return typeof value === 'function' ? value.bind(started) : value;
    },
  });
}
