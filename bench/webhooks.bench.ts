/**
 * Webhook delivery benchmark: deliveries per second from the worker to a loopback receiver.
 *
 * What one delivery costs here is the real path: claim the row (compare-and-swap in the read
 * store), open the endpoint secret, sign (HMAC-SHA256), connect (a fresh socket per delivery, with
 * the connect-time address check), POST, read the answer, and record the outcome (second
 * compare-and-swap). The receiver answers 204 at once, so the numbers are Dojang's side.
 *
 * Also measured: the fan-out (public event → delivery row per endpoint) done by the reactor.
 *
 * Run: npx ts-node --transpile-only -r tsconfig-paths/register bench/webhooks.bench.ts
 * WEBHOOK_BENCH_EVENTS sets the events per run (default 1000); WEBHOOK_BENCH_CONCURRENCY a
 * comma-separated list of dispatcher concurrencies (default 1,8,32).
 */
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  Infrastructure,
  loadConfig,
  openInfrastructure,
  prefixedId,
  ReactorRunner,
  systemClock,
  WEBHOOK_DELIVERIES,
  WebhookDeliveryReactor,
  WebhookDeliveryRow,
  WebhookDispatcher,
  WebhookSecretBox,
} from '../libs/application/src';
import { webhookEndpointDecider, webhookEndpointStreamId } from '../libs/domain/src';
import { webhookEndpointProjection } from '../libs/projections/src';
import { generateWebhookSecret } from '../libs/webhooks/src';

export interface WebhookBenchRow {
  name: string;
  value: number;
  unit: string;
}

interface RunResult {
  concurrency: number;
  deliveries: number;
  fanoutMs: number;
  dispatchMs: number;
  received: number;
}

async function startReceiver() {
  let received = 0;
  const server = http.createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      received++;
      res.writeHead(204);
      res.end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`,
    received: () => received,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** One public event per document stream, as the signing flow would append them. */
async function appendEvents(infra: Infrastructure, organizationId: string, count: number): Promise<void> {
  const occurred_at = new Date().toISOString();
  for (let i = 0; i < count; i++) {
    await infra.events.append(
      `document-${randomUUID()}`,
      [
        {
          event_id: randomUUID(),
          type: 'DocumentCanceled',
          data: { canceled_at: occurred_at },
          metadata: { occurred_at, actor: 'bench', organization_id: organizationId, livemode: false, schema_version: 1 },
        },
      ],
      'no_stream',
    );
  }
}

async function runOnce(events: number, concurrency: number, receiverUrl: string): Promise<RunResult> {
  const dataDir = mkdtempSync(join(tmpdir(), 'dojang-webhook-bench-'));
  const config = { ...loadConfig({ DATA_DIR: dataDir, NODE_ENV: 'test' }), webhookAllowPrivateNetworks: true };
  // Only the read model the delivery path needs: the timing is not diluted by other projections.
  const infra = await openInfrastructure(config, [webhookEndpointProjection]);
  try {
    await infra.runner.start();
    const organizationId = prefixedId('org');
    const endpointId = prefixedId('whe');
    const box = WebhookSecretBox.fromConfig(config);
    const now = () => new Date().toISOString();
    await infra.commands.decide(
      webhookEndpointDecider,
      webhookEndpointStreamId(endpointId),
      {
        type: 'CreateWebhookEndpoint',
        endpoint_id: endpointId,
        organization_id: organizationId,
        livemode: false,
        url: receiverUrl,
        events: ['*'],
        description: 'bench',
        secret_ciphertext: box.seal(endpointId, generateWebhookSecret()),
        now: now(),
      },
      { actor: 'bench', organization_id: organizationId, livemode: false },
      now,
    );
    await appendEvents(infra, organizationId, events);
    await infra.runner.catchUp();

    const reactor = new WebhookDeliveryReactor(infra, systemClock);
    await reactor.init();
    const reactors = new ReactorRunner(infra.events, infra.reads, [reactor]);
    let t0 = process.hrtime.bigint();
    await reactors.start(); // catches up with the whole log before it resolves
    await reactors.stop();
    const fanoutMs = Number(process.hrtime.bigint() - t0) / 1e6;

    const dispatcher = new WebhookDispatcher(infra, systemClock, { concurrency, batchSize: 500 });
    await dispatcher.init();
    t0 = process.hrtime.bigint();
    let delivered = 0;
    while (delivered < events) {
      const stats = await dispatcher.dispatchDue();
      if (stats.attempted === 0) break;
      delivered += stats.succeeded;
    }
    const dispatchMs = Number(process.hrtime.bigint() - t0) / 1e6;
    const rows = await infra.reads.find<WebhookDeliveryRow>(WEBHOOK_DELIVERIES, { where: { status: 'succeeded' } });
    return { concurrency, deliveries: rows.length, fanoutMs, dispatchMs, received: delivered };
  } finally {
    await infra.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

export async function runWebhookBench(): Promise<{ rows: WebhookBenchRow[]; markdown: string }> {
  const events = Math.max(10, Number(process.env.WEBHOOK_BENCH_EVENTS ?? 1000));
  const levels = (process.env.WEBHOOK_BENCH_CONCURRENCY ?? '1,8,32')
    .split(',')
    .map((x) => Math.max(1, Number(x.trim())))
    .filter((x) => Number.isFinite(x));
  const receiver = await startReceiver();
  const results: RunResult[] = [];
  try {
    // Warm-up: JIT, SQLite page cache, socket paths.
    await runOnce(Math.min(200, events), 8, receiver.url);
    for (const concurrency of levels) results.push(await runOnce(events, concurrency, receiver.url));
  } finally {
    await receiver.close();
  }
  for (const r of results) {
    if (r.deliveries !== events) throw new Error(`webhook bench: ${r.deliveries} of ${events} deliveries succeeded at concurrency ${r.concurrency}`);
  }

  const perSecond = (n: number, ms: number) => Math.round((n / ms) * 1000);
  const rows: WebhookBenchRow[] = results.flatMap((r) => [
    { name: `webhook deliveries/s to a loopback receiver (concurrency ${r.concurrency})`, value: perSecond(r.deliveries, r.dispatchMs), unit: 'deliveries/s' },
    { name: `webhook fan-out rows/s (run at concurrency ${r.concurrency})`, value: perSecond(r.deliveries, r.fanoutMs), unit: 'rows/s' },
  ]);
  const best = results.reduce((a, b) => (perSecond(b.deliveries, b.dispatchMs) > perSecond(a.deliveries, a.dispatchMs) ? b : a));
  const markdown = [
    '### Webhook delivery',
    '',
    `${events} public events, one endpoint on a loopback HTTP receiver answering 204, embedded stores (SQLite). ` +
      'A delivery = claim (compare-and-swap), open secret, sign, fresh connection with the connect-time address check, POST, record outcome.',
    '',
    '| dispatcher concurrency | deliveries | dispatch time | deliveries/s | fan-out (event → row) rows/s |',
    '|---:|---:|---:|---:|---:|',
    ...results.map(
      (r) =>
        `| ${r.concurrency} | ${r.deliveries} | ${(r.dispatchMs / 1000).toFixed(2)} s | **${perSecond(r.deliveries, r.dispatchMs)}** | ${perSecond(r.deliveries, r.fanoutMs)} |`,
    ),
    '',
    `Best: **${perSecond(best.deliveries, best.dispatchMs)} deliveries/s** at concurrency ${best.concurrency} (the worker default is 8).`,
    '',
  ].join('\n');
  return { rows, markdown };
}

if (require.main === module) {
  runWebhookBench().then(
    ({ markdown }) => console.log(markdown),
    (err) => {
      console.error(err);
      process.exit(1);
    },
  );
}
