import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { AppConfig, WorkerOptions } from '@dojang/application';
import { Client, client, expectStatus, field } from '../support/api-helpers';
import { startTestApp, TestApp } from '../support/test-app';
import { SOLAPI_API_KEY, SOLAPI_API_SECRET, SOLAPI_FROM, startFakeSolapi } from '../support/fake-solapi';
import { startSmtpReceiver } from '../support/topology-receivers';

import { solidPng } from '../support/png';

export { solidPng };

export interface Hit {
  method: string;
  url: string;
  headers: http.IncomingHttpHeaders;
  body: string;
}

export type Reply = { status: number; body?: string } | 'hold';

/**
 * A webhook receiver on 127.0.0.1. `reply` decides each answer in order (the last one repeats);
 * 'hold' keeps the request open until `releaseHeld()`. Waiting is by event (`waitForHits`), never
 * by sleeping.
 */
export async function startReceiver(initial: Reply[] = [{ status: 200 }]) {
  const hits: Hit[] = [];
  let replies = [...initial];
  const held: http.ServerResponse[] = [];
  const waiters: Array<{ n: number; resolve: () => void }> = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      hits.push({ method: req.method!, url: req.url!, headers: req.headers, body: Buffer.concat(chunks).toString('utf8') });
      const reply = replies.length > 1 ? replies.shift()! : replies[0];
      if (reply === 'hold') held.push(res);
      else {
        res.writeHead(reply.status, { 'content-type': 'text/plain' });
        res.end(reply.body ?? (reply.status < 300 ? 'ok' : 'error'));
      }
      for (const w of waiters.filter((w) => hits.length >= w.n)) {
        waiters.splice(waiters.indexOf(w), 1);
        w.resolve();
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    hits,
    port,
    url: (path = '/hook') => `http://127.0.0.1:${port}${path}`,
    /** Replaces the answers for the following requests. */
    replyWith(next: Reply[]) {
      replies = [...next];
    },
    waitForHits(n: number): Promise<void> {
      if (hits.length >= n) return Promise.resolve();
      return new Promise((resolve) => waiters.push({ n, resolve }));
    },
    releaseHeld(status = 200) {
      for (const res of held.splice(0)) {
        res.writeHead(status);
        res.end('late');
      }
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
export type Receiver = Awaited<ReturnType<typeof startReceiver>>;

/** A test app on a ManualClock with the background loop off: tests call tick() and dispatchDue(). */
export function startDeliveryApp(config: Partial<AppConfig> = {}, worker: WorkerOptions = {}): Promise<TestApp> {
  return startTestApp({
    manualClock: true,
    config: { webhookAllowPrivateNetworks: true, ...config },
    worker: { tickIntervalMs: 0, webhooks: { random: () => 0.5, ...(worker.webhooks ?? {}) }, ...worker },
  });
}

export interface MessagingApp {
  t: TestApp;
  /** A real SMTP server the app's mail goes to. */
  smtp: Awaited<ReturnType<typeof startSmtpReceiver>>;
  /** The fake SOLAPI (KakaoTalk 알림톡, SMS, LMS) the app's phone messages go to. */
  solapi: Awaited<ReturnType<typeof startFakeSolapi>>;
  /** Lets the projections and reactors see everything appended so far (messages are sent then). */
  settle(): Promise<void>;
  close(): Promise<void>;
}

/** A delivery app (startDeliveryApp) whose messages go to a real SMTP server and a fake SOLAPI. */
export async function startMessagingApp(config: Partial<AppConfig> = {}): Promise<MessagingApp> {
  const smtp = await startSmtpReceiver();
  const solapi = await startFakeSolapi();
  const t = await startDeliveryApp({
    smtpUrl: smtp.url,
    mailFrom: 'Dojang <sign@dojang.test>',
    solapi: { apiKey: SOLAPI_API_KEY, apiSecret: SOLAPI_API_SECRET, from: SOLAPI_FROM, apiBaseUrl: solapi.baseUrl },
    ...config,
  });
  return {
    t,
    smtp,
    solapi,
    async settle() {
      await t.infra.runner.trigger();
      await t.worker!.runner.trigger();
    },
    async close() {
      await t.close();
      await smtp.close();
      await solapi.close();
    },
  };
}

/**
 * Lets the projections and reactors see everything appended so far (trigger() joins a running pass
 * and runs once more, rather than racing it), then sends what is due.
 */
export async function deliverNow(t: TestApp) {
  await t.infra.runner.trigger();
  await t.worker!.runner.trigger();
  return t.worker!.webhooks.dispatchDue();
}

export async function createEndpoint(c: Client, body: Record<string, unknown>): Promise<Record<string, any>> {
  return expectStatus(await c.post('/webhook_endpoints', body), 201).body;
}

export interface SentDoc {
  id: string;
  participants: Array<{ id: string; signing_url: string; token: string; email: string | null }>;
}

/**
 * Draft → participants (auth none, so signing needs no PIN) → fields → send, through the API.
 * Participants are given as {name, email?, role?}; cc participants get no field.
 */
export async function sendDocument(
  c: Client,
  options: { title?: string; participants?: Array<Record<string, unknown>>; send?: Record<string, unknown> } = {},
): Promise<SentDoc> {
  const doc = expectStatus(await c.post('/documents', { title: options.title ?? '용역 계약서', content: '<p>갑과 을은 다음과 같이 계약한다.</p>' }), 201).body;
  const people = options.participants ?? [{ name: '김서명', email: 'signer@example.com' }];
  const added: Array<Record<string, any>> = [];
  for (const p of people) added.push(expectStatus(await c.post(`/documents/${doc.id}/participants`, { auth: 'none', ...p }), 201).body);
  const fields = added.filter((p) => p.role !== 'cc').map((p, i) => field(p.id, { y: 60 + i * 10 }));
  expectStatus(await c.put(`/documents/${doc.id}/fields`, { fields }), 200);
  const sent = expectStatus(await c.post(`/documents/${doc.id}/send`, options.send ?? {}), 200).body;
  return {
    id: doc.id,
    participants: sent.participants.map((p: any) => ({
      id: p.id,
      signing_url: p.signing_url,
      token: p.signing_url ? String(p.signing_url).split('/sign/')[1] : '',
      email: p.email ?? null,
    })),
  };
}

export async function signAs(t: TestApp, token: string) {
  expectStatus(await t.http.get(`/v1/signing/${token}`), 200);
  return expectStatus(await t.http.post(`/v1/signing/${token}/sign`).send({ consent: true, signature: solidPng() }), 200).body;
}

export { client };
