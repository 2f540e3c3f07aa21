import * as fs from 'fs';
import { apiClient, ensureBuilt, runCli, ServerProcess, startServer, tempDataDir } from '../support/built-server';
import { eventually, startWorkerProcess, WorkerProcess } from '../support/worker-process';

jest.setTimeout(300_000);

/**
 * Issue 10 §2, as an operator tried it: `npm run start:api` (ROLE=api) and `npm run start:worker`
 * on one DATA_DIR. The worker must keep running and act on what the API appends, without a
 * restart (it used to exit right after its first catch-up: nothing kept its event loop alive).
 */
describe('a worker process follows an API process on one DATA_DIR', () => {
  const dataDir = tempDataDir('dojang-split-');
  let api: ServerProcess;
  let worker: WorkerProcess;
  let key: string;

  beforeAll(async () => {
    ensureBuilt();
    key = (await runCli(['org', 'create', '--name', '분리 배포'], { dataDir })).json().keys.test;
    api = await startServer({ dataDir, env: { ROLE: 'api', RATE_LIMIT_PER_MINUTE: '100000' }, readyTimeoutMs: 120_000 });
    worker = await startWorkerProcess({ dataDir, readyTimeoutMs: 120_000 });
  });
  afterAll(async () => {
    await Promise.all([api?.stop(), worker?.stop()]);
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  it('sends the signing requests of a document the API sent after the worker started', async () => {
    const call = apiClient(api.url, key);
    const doc = await call('POST', '/v1/documents', { title: '분리 배포 계약서', content: '<p>본문</p>' });
    expect(doc.status).toBe(201);
    const p = await call('POST', `/v1/documents/${doc.body.id}/participants`, { name: '김서명', email: 'kim@example.com', phone: '01012345678', auth: 'sms_pin' });
    expect(p.status).toBe(201);
    const fields = [{ participant_id: p.body.id, type: 'signature', page: 1, x: 5, y: 60, width: 20, height: 8 }];
    expect((await call('PUT', `/v1/documents/${doc.body.id}/fields`, { fields })).status).toBe(200);
    expect((await call('POST', `/v1/documents/${doc.body.id}/send`, {})).status).toBe(200);

    // Test keys write messages to the outbox: the signing request by e-mail and by SMS.
    const outbox = await eventually(async () => {
      const res = await call('GET', `/v1/outbox?document_id=${doc.body.id}`);
      return res.body.data?.length >= 2 ? (res.body.data as Array<{ channel: string; kind: string }>) : undefined;
    }, 'the signing requests in the outbox', 20_000).catch((err) => {
      throw new Error(`${err.message}\nworker alive: ${worker.alive()}\n${worker.output().stdout}\n${worker.output().stderr}`);
    });
    expect(outbox.map((m) => m.channel).sort()).toEqual(['email', 'sms']);
    expect(worker.alive()).toBe(true);
  });
});
