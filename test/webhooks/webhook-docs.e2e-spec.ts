import { ChildProcess, spawn } from 'node:child_process';
import * as fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import * as os from 'node:os';
import * as path from 'node:path';
import { verifyWebhook } from '@dojang/webhooks';
import { client, expectStatus } from '../support/api-helpers';
import { startTestApp, TestApp } from '../support/test-app';
import { createEndpoint, deliverNow, sendDocument, signAs } from './webhook-test-kit';

const GUIDE = fs.readFileSync(path.join(__dirname, '..', '..', 'docs', 'WEBHOOKS.md'), 'utf8');

function block(marker: string, lang: string): string {
  const start = GUIDE.indexOf(`<!-- ${marker} -->`);
  if (start < 0) throw new Error(`docs/WEBHOOKS.md has no <!-- ${marker} -->`);
  const open = GUIDE.indexOf('```' + lang + '\n', start);
  const close = GUIDE.indexOf('\n```', open + 4 + lang.length);
  return GUIDE.slice(open + 4 + lang.length, close + 1);
}

async function freePort(): Promise<number> {
  const server = http.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/** The guide's receiver as its own node process; stdout lines arrive as they are printed. */
function runSnippet(file: string, env: Record<string, string>) {
  const child: ChildProcess = spawn(process.execPath, [file], { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  const lines: string[] = [];
  const waiters: Array<{ test: (l: string) => boolean; resolve: (l: string) => void }> = [];
  let buffered = '';
  let stderr = '';
  child.stderr!.on('data', (c: Buffer) => (stderr += c.toString()));
  child.stdout!.on('data', (c: Buffer) => {
    buffered += c.toString();
    const parts = buffered.split('\n');
    buffered = parts.pop()!;
    for (const line of parts) {
      lines.push(line);
      for (const w of waiters.filter((x) => x.test(line))) {
        waiters.splice(waiters.indexOf(w), 1);
        w.resolve(line);
      }
    }
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  return {
    lines,
    waitForLine(test: (l: string) => boolean): Promise<string> {
      const seen = lines.find(test);
      if (seen) return Promise.resolve(seen);
      return new Promise((resolve, reject) => {
        waiters.push({ test, resolve });
        child.once('exit', (code) => reject(new Error(`snippet exited (${code}): ${stderr}`)));
      });
    },
    stop: async () => {
      child.kill();
      await exited;
    },
  };
}

function post(url: string, headers: Record<string, string>, body: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = http.request(url, { method: 'POST', headers: { 'content-type': 'application/json', ...headers } }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode!));
    });
    req.on('error', reject);
    req.end(body);
  });
}

describe('docs/WEBHOOKS.md', () => {
  it("shows an example delivery whose signature verifies with the guide's secret", () => {
    const http = block('example:delivery', 'http');
    const [head, body] = http.split('\n\n');
    const headers = Object.fromEntries(
      head
        .split('\n')
        .slice(1)
        .map((l) => [l.slice(0, l.indexOf(':')).toLowerCase(), l.slice(l.indexOf(':') + 1).trim()]),
    );
    const secret = /"secret": "(whsec_[^"]+)"/.exec(GUIDE)![1];
    const timestamp = Number(headers['webhook-timestamp']);
    expect(verifyWebhook({ secret, headers, body: body.trimEnd(), now: new Date(timestamp * 1000) })).toEqual({ id: headers['webhook-id'], timestamp });
    expect(JSON.parse(body).id).toBe(headers['webhook-id']);
  });

  describe('the Node receiver snippet, run as written against real deliveries', () => {
    let t: TestApp;
    let dir: string;
    beforeAll(async () => {
      // The snippet checks timestamps against its own wall clock, so this app runs on real time.
      t = await startTestApp({ config: { webhookAllowPrivateNetworks: true }, worker: { tickIntervalMs: 0 } });
      dir = fs.mkdtempSync(path.join(os.tmpdir(), 'dojang-snippet-'));
    });
    afterAll(async () => {
      await t.close();
      fs.rmSync(dir, { recursive: true, force: true });
    });

    it('verifies, deduplicates on webhook-id, and rejects forgeries', async () => {
      const file = path.join(dir, 'receiver.js');
      fs.writeFileSync(file, block('snippet:node-receiver', 'js'));
      const port = await freePort();
      const org = await t.createOrg();
      const c = client(t, org.test);
      const url = `http://127.0.0.1:${port}/dojang/webhooks`;
      const endpoint = await createEndpoint(c, { url, events: ['document.sent', 'document.completed'] });
      const receiver = runSnippet(file, { DOJANG_WEBHOOK_SECRET: endpoint.secret, PORT: String(port) });
      try {
        await receiver.waitForLine((l) => l === 'listening');
        const doc = await sendDocument(c);
        await signAs(t, doc.participants[0].token);
        const stats = await deliverNow(t);
        expect(stats).toMatchObject({ attempted: 2, succeeded: 2 });
        await receiver.waitForLine((l) => l.startsWith('received document.completed'));
        await receiver.waitForLine((l) => l.startsWith('received document.sent'));
        const log = expectStatus(await c.get(`/webhook_endpoints/${endpoint.id}/deliveries`), 200).body.data;
        expect(log.map((d: any) => [d.event_type, d.status, d.attempts[0].status_code])).toEqual([
          ['document.completed', 'succeeded', 204],
          ['document.sent', 'succeeded', 204],
        ]);
        // Sent in parallel, so in either order.
        expect(receiver.lines.filter((l) => l.startsWith('received')).sort()).toEqual([
          `received document.completed ${log[0].event_id} for ${doc.id}`,
          `received document.sent ${log[1].event_id} for ${doc.id}`,
        ]);

        // Forged, stale and replayed requests.
        const body = JSON.stringify({ id: 'evt_forged', object: 'event', type: 'document.completed', data: { document_id: doc.id } });
        const now = Math.floor(Date.now() / 1000);
        expect(await post(url, { 'webhook-id': 'evt_forged', 'webhook-timestamp': String(now), 'webhook-signature': 'v1,AAAA' }, body)).toBe(400);
        expect(await post(url, {}, body)).toBe(400);
        const { buildWebhookHeaders } = await import('@dojang/webhooks');
        const stale = buildWebhookHeaders({ secret: endpoint.secret, id: 'evt_old', timestamp: now - 3600, body });
        expect(await post(url, stale, body)).toBe(400);
        const again = buildWebhookHeaders({ secret: endpoint.secret, id: log[0].event_id, timestamp: now, body: JSON.stringify({ ...JSON.parse(body), id: log[0].event_id }) });
        expect(await post(url, again, JSON.stringify({ ...JSON.parse(body), id: log[0].event_id }))).toBe(204);
        expect(receiver.lines.filter((l) => l.startsWith('received'))).toHaveLength(2);
      } finally {
        await receiver.stop();
      }
    });
  });
});
