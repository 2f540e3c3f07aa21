import * as fs from 'fs';
import { POSTGRES_SKIP_MESSAGE, postgresTestServer, throwawayPostgresDatabase } from '@dojang/postgres/testing/postgres-test-database';
import { ensureBuilt, runCli, ServerProcess, startServer, tempDataDir } from '../support/built-server';
import { solidPng } from '../support/png';
import { Answer, Cut, request } from '../support/process-request';
import {
  startSmtpReceiver,
  startTwilioReceiver,
  startWebhookReceiver,
  TWILIO_ACCOUNT_SID,
  TWILIO_AUTH_TOKEN,
  TWILIO_FROM,
} from '../support/topology-receivers';
import { eventually, startWorkerProcess, WorkerProcess } from '../support/worker-process';

jest.setTimeout(240_000);

/**
 * Issue 10 §2: the production topology, as processes. Two API processes (ROLE=api, two ports)
 * and two workers share one store: a SQLite DATA_DIR on one machine, or one PostgreSQL
 * database. Full lifecycles run concurrently, each step through the other API than the last; one
 * API and one worker are SIGKILLed mid-load and restarted. Messages are counted where they
 * arrive (a real SMTP server, Twilio's endpoint, a webhook endpoint): each exactly once.
 */

/** Lifecycles in flight at once; each completes (a replacement starts when a kill cuts one off). */
const LIFECYCLES = 8;
/** API-key writes acknowledged before API A and worker 1 are killed. */
const KILL_AFTER_ACKS = 14;
const SECRET_KEY = 'topology-test-secret-0123456789abcdef';

interface Lifecycle {
  n: number;
  title: string;
  signerEmail: string;
  ccEmail: string;
  /** Korean mobile number; Twilio receives it as +82… */
  phone: string;
  id: string | null;
  signerId: string | null;
  token: string | null;
  /** The furthest state acknowledged to the client. */
  acked: 'none' | 'created' | 'participants' | 'fields' | 'sent' | 'completed';
  /** A write cut off by the kill: the lifecycle stops there (its document may or may not have moved on). */
  cutAt: string | null;
  pinsAcked: number;
}

type Store = { kind: 'sqlite' } | { kind: 'postgres'; databaseUrl: () => string };

function topology(store: Store) {
  let smtp: Awaited<ReturnType<typeof startSmtpReceiver>>;
  let twilio: Awaited<ReturnType<typeof startTwilioReceiver>>;
  let hooks: Awaited<ReturnType<typeof startWebhookReceiver>>;
  const dirs: string[] = [];
  let sharedDir: string;
  let env: NodeJS.ProcessEnv;
  /** Index 0 is API A (killed and restarted), 1 is API B; null while A is down. */
  const apis: Array<ServerProcess | null> = [null, null];
  const workers: Array<WorkerProcess | null> = [null, null];
  const retired: WorkerProcess[] = [];
  let live: string;
  let test: string;
  /** The kill and restart of API A and worker 1, once under way. */
  let killing: Promise<void> | null = null;

  /** Where a process keeps its files: the shared DATA_DIR on SQLite, a directory of its own on PostgreSQL. */
  const dataDir = (who: string) => {
    if (store.kind === 'sqlite') return sharedDir;
    const dir = tempDataDir(`dojang-topology-${who}-`);
    dirs.push(dir);
    return dir;
  };
  const startApi = () => startServer({ dataDir: dataDir('api'), env: { ...env, ROLE: 'api' }, readyTimeoutMs: 120_000 });
  const startWorker = () => startWorkerProcess({ dataDir: dataDir('worker'), env: { ...env, ROLE: 'worker' }, readyTimeoutMs: 120_000 });

  beforeAll(async () => {
    ensureBuilt();
    sharedDir = tempDataDir('dojang-topology-');
    dirs.push(sharedDir);
    [smtp, twilio, hooks] = await Promise.all([startSmtpReceiver(), startTwilioReceiver(), startWebhookReceiver()]);
    env = {
      SECRET_KEY,
      SMTP_URL: smtp.url,
      MAIL_FROM: 'Dojang <sign@dojang.test>',
      TWILIO_ACCOUNT_SID,
      TWILIO_AUTH_TOKEN,
      TWILIO_FROM,
      TWILIO_API_BASE_URL: twilio.baseUrl,
      WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true',
      RATE_LIMIT_PER_MINUTE: '100000',
      // A killed worker's reactors are taken over after this (the default is 15 s).
      REACTOR_LEASE_MS: '3000',
      // A message a killed worker had claimed is sent again after this (the default is 2 minutes).
      MESSAGE_CLAIM_MS: '5000',
      ...(store.kind === 'postgres' ? { DATABASE_URL: store.databaseUrl(), DATABASE_POOL_SIZE: '4' } : {}),
    };
    const org = await runCli(['org', 'create', '--name', '토폴로지 주식회사'], { dataDir: dataDir('cli'), env });
    expect(org.code).toBe(0);
    const created = org.json();
    live = created.keys.live;
    test = created.keys.test;
    expect((await runCli(['credits', 'grant', '--org', created.organization.id, '--amount', '100'], { dataDir: dataDir('cli'), env })).code).toBe(0);
    [apis[0], apis[1]] = await Promise.all([startApi(), startApi()]);
    [workers[0], workers[1]] = await Promise.all([startWorker(), startWorker()]);
    const endpoint = await request(apis[0]!.url, 'POST', '/v1/webhook_endpoints', live, { url: hooks.url, events: ['*'] });
    expect(endpoint.status).toBe(201);
  });

  afterAll(async () => {
    await killing?.catch(() => undefined);
    const running: Array<ServerProcess | WorkerProcess> = [...apis, ...workers, ...retired].filter((p): p is ServerProcess | WorkerProcess => p !== null);
    await Promise.all(running.map((p) => p.stop()));
    for (const receiver of [smtp, twilio, hooks]) await receiver?.close();
    for (const dir of dirs) fs.rmSync(dir, { recursive: true, force: true });
  });

  it('runs full lifecycles through alternating APIs while an API and a worker are SIGKILLed, and delivers every message exactly once', async () => {
    const problems: string[] = [];
    let acks = 0;
    /** While A is being drained and killed, signer requests go to B (see killAndRestart). */
    let drainA = false;
    let signerRequestsOnA = 0;
    const killed = { api: false, worker: false, cutWrites: 0 };

    /** The API a step goes to: its turn, or the other one while A is down. */
    const api = (turn: number): { i: number; url: string } => {
      const i = apis[turn % 2] ? turn % 2 : 1;
      return { i, url: apis[i]!.url };
    };

    /**
     * A client that gets no answer cannot know whether its write happened, and PIN requests are
     * not idempotent (a second one sends another SMS, and resends are refused for a minute). So
     * the kill waits until no signer request is in flight on A and sends new ones to B; API-key
     * writes keep flowing to A and are the ones cut off.
     */
    async function killAndRestart(): Promise<void> {
      drainA = true;
      await eventually(async () => (signerRequestsOnA === 0 ? true : undefined), 'signer requests on A to finish');
      const a = apis[0]!;
      apis[0] = null;
      await a.kill();
      killed.api = (await a.exited).signal === 'SIGKILL';
      // A send whose provider already answered but whose outcome the worker has not recorded yet
      // would be sent again by the next holder (at-least-once); the kill comes when no receiver is
      // in the middle of a request, which leaves that window at a few microseconds.
      await eventually(async () => (!smtp.busy() && !twilio.busy() && !hooks.busy() ? true : undefined), 'a quiet moment at the receivers');
      const w = workers[0]!;
      workers[0] = null;
      await w.kill();
      retired.push(w);
      killed.worker = (await w.exited).signal === 'SIGKILL';
      [apis[0], workers[0]] = await Promise.all([startApi(), startWorker()]);
      drainA = false;
    }

    const acked = () => {
      if (++acks === KILL_AFTER_ACKS) killing = killAndRestart();
    };

    /** A read through API `turn` (the other one when it is down); retried on B if cut by the kill. */
    async function read(turn: number, path: string, key = live): Promise<Answer> {
      try {
        return await request(api(turn).url, 'GET', path, key);
      } catch (err) {
        if (!(err instanceof Cut)) throw err;
        return request(apis[1]!.url, 'GET', path, key);
      }
    }

    /** Read-your-writes across processes: the write acknowledged by one API, read at once through the other. */
    async function readBack(L: Lifecycle, turn: number, what: string, holds: (doc: any) => boolean): Promise<void> {
      const res = await read(turn, `/v1/documents/${L.id}`);
      if (res.status !== 200 || !holds(res.body)) problems.push(`L${L.n} ${what} not visible through API ${api(turn).i}: ${res.status} ${JSON.stringify(res.body).slice(0, 300)}`);
    }

    async function signerRequest(turn: number, method: string, path: string, body?: unknown): Promise<Answer> {
      const i = drainA || !apis[0] ? 1 : turn % 2;
      const server = apis[i]!;
      if (i === 0) signerRequestsOnA++;
      try {
        return await request(server.url, method, path, null, body);
      } catch (err) {
        const out = server.output();
        throw new Error(`${(err as Error).message} (API ${i}, drain ${drainA}, exited ${server.child.exitCode ?? server.child.signalCode})\n${out.stdout.slice(-2000)}\n${out.stderr.slice(-2000)}`);
      } finally {
        if (i === 0) signerRequestsOnA--;
      }
    }

    async function run(L: Lifecycle): Promise<void> {
      let turn = L.n;
      const write = async (method: string, path: string, body: unknown, status: number): Promise<Answer | null> => {
        try {
          const res = await request(api(turn++).url, method, path, live, body);
          if (res.status !== status) throw new Error(`L${L.n} ${method} ${path}: ${res.status} ${JSON.stringify(res.body)}`);
          acked();
          return res;
        } catch (err) {
          if (!(err instanceof Cut)) throw err;
          L.cutAt = `${method} ${path}`;
          killed.cutWrites++;
          return null;
        }
      };

      const doc = await write('POST', '/v1/documents', { title: L.title, content: `<p>${L.title} 본문</p>` }, 201);
      if (!doc) return;
      L.id = doc.body.id;
      L.acked = 'created';
      await readBack(L, turn, 'creation', (d) => d.title === L.title && d.status === 'draft');

      const parts = await write(
        'POST',
        `/v1/documents/${L.id}/participants/batch`,
        {
          participants: [
            { name: '김서명', email: L.signerEmail, phone: L.phone, auth: 'sms_pin' },
            { name: '이참조', email: L.ccEmail, role: 'cc', auth: 'none' },
          ],
        },
        201,
      );
      if (!parts) return;
      L.signerId = parts.body.data[0].id;
      L.acked = 'participants';
      await readBack(L, turn, 'participants', (d) => d.participants?.length === 2);

      const fields = [{ participant_id: L.signerId, type: 'signature', page: 1, x: 5, y: 60, width: 20, height: 8 }];
      if (!(await write('PUT', `/v1/documents/${L.id}/fields`, { fields }, 200))) return;
      L.acked = 'fields';
      await readBack(L, turn, 'fields', (d) => d.fields?.length === 1);

      const sent = await write('POST', `/v1/documents/${L.id}/send`, {}, 200);
      if (!sent) return;
      L.acked = 'sent';
      const url: string = sent.body.participants.find((p: any) => p.id === L.signerId).signing_url;
      L.token = url.split('/sign/')[1];
      await readBack(L, turn, 'send', (d) => d.status === 'sent');

      // The signer opens the link from the request they received, as people do: a request still on
      // its way when they have signed is rightly not sent any more (it would ask for what is done).
      await eventually(
        async () =>
          smtp.received.some((m) => m.subject.includes(L.title) && m.to.includes(L.signerEmail)) && twilio.received.some((m) => m.to === `+82${L.phone.slice(1)}` && m.body.includes('/sign/'))
            ? true
            : undefined,
        `L${L.n}'s signing request by e-mail and SMS`,
        90_000,
      );
      // The signer: no API key, the token is the credential.
      const base = `/v1/signing/${L.token}`;
      const view = await signerRequest(turn++, 'GET', base);
      if (view.status !== 200) throw new Error(`L${L.n} view: ${view.status} ${JSON.stringify(view.body)}`);
      const pin = await signerRequest(turn++, 'POST', `${base}/pin`, {});
      if (pin.status !== 200) throw new Error(`L${L.n} pin: ${pin.status} ${JSON.stringify(pin.body)}`);
      L.pinsAcked++;
      const code = await eventually(async () => {
        const sms = twilio.received.find((m) => m.to === `+82${L.phone.slice(1)}` && /인증번호 (\d{6})/.test(m.body));
        return sms ? /인증번호 (\d{6})/.exec(sms.body)![1] : undefined;
      }, `L${L.n}'s PIN SMS`);
      const verified = await signerRequest(turn++, 'POST', `${base}/verify`, { pin: code });
      if (verified.status !== 200) throw new Error(`L${L.n} verify: ${verified.status} ${JSON.stringify(verified.body)}`);
      const signed = await signerRequest(turn++, 'POST', `${base}/sign`, { consent: true, signature: solidPng() });
      if (signed.status !== 200) throw new Error(`L${L.n} sign: ${signed.status} ${JSON.stringify(signed.body)}`);
      L.acked = 'completed';
      await readBack(L, turn, 'completion', (d) => d.status === 'completed');
    }

    const all: Lifecycle[] = [];
    let next = 0;
    const lifecycle = (): Lifecycle => {
      const n = next++;
      const L: Lifecycle = {
        n,
        title: `공급 계약서 ${store.kind} L${n}`,
        signerEmail: `signer${n}@example.com`,
        ccEmail: `cc${n}@example.com`,
        phone: `010${String(20_000_000 + n)}`,
        id: null,
        signerId: null,
        token: null,
        acked: 'none',
        cutAt: null,
        pinsAcked: 0,
      };
      all.push(L);
      return L;
    };
    // Each slot runs lifecycles until one completes (one cut off by the kill is replaced).
    await Promise.all(
      Array.from({ length: LIFECYCLES }, async () => {
        for (;;) {
          const L = lifecycle();
          await run(L);
          if (L.acked === 'completed') return;
        }
      }),
    );
    await killing;
    expect(killed).toMatchObject({ api: true, worker: true });
    expect(problems).toEqual([]);
    const completed = all.filter((L) => L.acked === 'completed');
    expect(completed).toHaveLength(LIFECYCLES);

    // Every acknowledged write is there, and the projections agree through both APIs.
    const [A, B] = [apis[0]!, apis[1]!];
    const order = ['none', 'created', 'participants', 'fields', 'sent', 'completed'];
    const statusOf = new Map<string, string>();
    for (const L of all.filter((x) => x.id)) {
      const [a, b] = await Promise.all([request(A.url, 'GET', `/v1/documents/${L.id}`, live), request(B.url, 'GET', `/v1/documents/${L.id}`, live)]);
      expect(a.status).toBe(200);
      expect(b.body).toEqual(a.body);
      statusOf.set(L.id!, a.body.status);
      if (order.indexOf(L.acked) >= order.indexOf('participants')) expect(a.body.participants).toHaveLength(2);
      if (L.acked === 'sent' || L.acked === 'completed') expect(['sent', 'completed']).toContain(a.body.status);
      if (L.acked === 'completed') expect(a.body.status).toBe('completed');
      const [auditA, auditB] = await Promise.all([
        request(A.url, 'GET', `/v1/documents/${L.id}/audit`, live),
        request(B.url, 'GET', `/v1/documents/${L.id}/audit`, live),
      ]);
      expect(auditB.body).toEqual(auditA.body);
      const audited = (auditA.body.data as any[]).map((e) => e.event);
      expect(audited[0]).toBe('created');
      if (L.acked === 'completed') expect(audited).toEqual(expect.arrayContaining(['sent', 'signed', 'completed']));
      const [eventsA, eventsB] = await Promise.all([
        request(A.url, 'GET', `/v1/events?document_id=${L.id}&limit=100`, live),
        request(B.url, 'GET', `/v1/events?document_id=${L.id}&limit=100`, live),
      ]);
      expect(eventsB.body).toEqual(eventsA.body);
      if (L.acked === 'completed') {
        expect((eventsA.body.data as any[]).map((e) => e.type)).toEqual(expect.arrayContaining(['document.sent', 'participant.signed', 'document.completed']));
      }
    }
    const listed = async (url: string) => {
      const res = await request(url, 'GET', '/v1/documents?limit=100', live);
      return (res.body.data as any[]).map((d) => d.id).sort();
    };
    expect(await listed(B.url)).toEqual(await listed(A.url));
    expect(await listed(A.url)).toEqual(expect.arrayContaining(all.filter((L) => L.id).map((L) => L.id)));

    // What each document's final state calls for, counted at the receivers.
    const expectedMails = new Map<string, number>();
    const expectedSms = new Map<string, number>();
    for (const L of all.filter((x) => x.id)) {
      const status = statusOf.get(L.id!);
      const sent = status === 'sent' || status === 'completed' ? 1 : 0;
      const done = status === 'completed' ? 1 : 0;
      expectedMails.set(`${L.signerEmail} ${L.title}`, sent + done);
      expectedMails.set(`${L.ccEmail} ${L.title}`, done);
      expectedSms.set(`+82${L.phone.slice(1)}`, sent + L.pinsAcked);
    }
    const total = (m: Map<string, number>) => [...m.values()].reduce((x, y) => x + y, 0);
    const publicEvents = new Set<string>();
    for (const L of all.filter((x) => x.id)) {
      const res = await request(A.url, 'GET', `/v1/events?document_id=${L.id}&limit=100`, live);
      for (const e of res.body.data as any[]) publicEvents.add(e.id);
    }
    await eventually(
      async () => (smtp.received.length >= total(expectedMails) && twilio.received.length >= total(expectedSms) && [...publicEvents].every((id) => hooks.received.some((h) => h.webhookId === id)) ? true : undefined),
      `every message delivered: mails ${smtp.received.length}/${total(expectedMails)}, SMS ${twilio.received.length}/${total(expectedSms)}, webhooks ${hooks.received.length}/${publicEvents.size}`,
      90_000,
    );
    // A duplicate would come from a second worker or a retry: give the workers' loops a few more
    // rounds (their tick is 1 s) before counting.
    await new Promise((r) => setTimeout(r, 3000));

    const mails = new Map<string, number>();
    for (const m of smtp.received) {
      const L = all.find((x) => m.subject.includes(x.title) && m.to.some((to) => to === x.signerEmail || to === x.ccEmail));
      for (const to of m.to) {
        const key = `${to} ${L?.title ?? m.subject}`;
        mails.set(key, (mails.get(key) ?? 0) + 1);
      }
    }
    expect(Object.fromEntries(mails)).toEqual(Object.fromEntries([...expectedMails].filter(([, n]) => n > 0)));
    const sms = new Map<string, number>();
    for (const m of twilio.received) sms.set(m.to, (sms.get(m.to) ?? 0) + 1);
    expect(Object.fromEntries(sms)).toEqual(Object.fromEntries([...expectedSms].filter(([, n]) => n > 0)));
    expect(new Set(twilio.received.map((m) => m.body)).size).toBe(twilio.received.length);
    const hookIds = hooks.received.map((h) => h.webhookId);
    expect(new Set(hookIds).size).toBe(hookIds.length);
    expect(hookIds.filter((id) => publicEvents.has(id)).sort()).toEqual([...publicEvents].sort());
    for (const h of hooks.received) expect(h.event.id).toBe(h.webhookId);

    expect(workers.every((w) => w?.alive())).toBe(true);
  });

  it('shares rate-limit windows and idempotency keys across both APIs', async () => {
    const [A, B] = [apis[0]!, apis[1]!];
    // One count per key, whichever process answers: RateLimit-Remaining goes down by one per
    // request, alternating A and B (pairs straddling a window boundary are left out).
    const seen: Array<{ remaining: number; reset: string }> = [];
    for (let i = 0; i < 8; i++) {
      const res = await request((i % 2 ? B : A).url, 'GET', '/v1/organization', test);
      expect(res.status).toBe(200);
      seen.push({ remaining: Number(res.headers['ratelimit-remaining']), reset: String(res.headers['ratelimit-reset']) });
    }
    const pairs = seen.slice(1).map((s, i) => [seen[i], s]).filter(([x, y]) => x.reset === y.reset);
    expect(pairs.length).toBeGreaterThanOrEqual(6);
    for (const [x, y] of pairs) expect(y.remaining).toBe(x.remaining - 1);

    // A key used on A is answered by B with A's response, not a second document.
    const body = { title: '멱등 계약서', content: '<p>한 번만</p>' };
    const first = await request(A.url, 'POST', '/v1/documents', test, body, { 'Idempotency-Key': `topology-${store.kind}-1` });
    expect(first.status).toBe(201);
    const again = await request(B.url, 'POST', '/v1/documents', test, body, { 'Idempotency-Key': `topology-${store.kind}-1` });
    expect(again.status).toBe(201);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.body).toEqual(first.body);
    const other = await request(B.url, 'POST', '/v1/documents', test, { ...body, title: '다른 계약서' }, { 'Idempotency-Key': `topology-${store.kind}-1` });
    expect(other.status).toBe(400);
    expect(other.body.error.code).toBe('idempotency_key_reused');
  });
}

describe('production topology: two APIs and two workers on one SQLite DATA_DIR', () => {
  topology({ kind: 'sqlite' });
});

const pgServer = postgresTestServer();
(pgServer ? describe : describe.skip)(`production topology: two APIs and two workers on one PostgreSQL database${pgServer ? '' : ` (${POSTGRES_SKIP_MESSAGE})`}`, () => {
  const db = pgServer ? throwawayPostgresDatabase(pgServer, 'dojang_topology') : { url: () => '' };
  topology({ kind: 'postgres', databaseUrl: () => db.url() });
});
