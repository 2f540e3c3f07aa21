/**
 * The whole signing lifecycle per document, over HTTP against the real app on the embedded
 * stores: create → participant (sms_pin) → fields → send → view → PIN → verify → sign → completed
 * (which renders the original at send and stamps and PAdES-signs the final PDF at completion).
 * Reported in completed documents per second.
 *
 *   npx ts-node --transpile-only -r tsconfig-paths/register bench/lifecycle.bench.ts
 */
import 'reflect-metadata';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { AdminService, DocumentPdfService, loadConfig, openInfrastructure, startWorker } from '@dojang/application';
import { BUILD_FINAL, encodePngPixels, RENDER_DOCUMENT } from '@dojang/pdf';
import { createApp } from '../apps/api/src/create-app';

const CONCURRENCY = Number(process.env.LIFECYCLE_CONCURRENCY ?? 16);
const DURATION_MS = Number(process.env.LIFECYCLE_DURATION_MS ?? 15_000);

/** A grey 60×20 PNG as a data URL: the drawn signature. */
function signaturePng(): string {
  const pixels = new Uint8Array(60 * 20 * 4).fill(0x40);
  return `data:image/png;base64,${encodePngPixels(60, 20, 4, pixels).toString('base64')}`;
}

export interface LifecycleBenchOptions {
  /** PostgreSQL for all three stores (DATABASE_URL) instead of the embedded ones. */
  databaseUrl?: string;
  /** Called right before and after the measured run (not the warm-up), e.g. to meter the database. */
  window?: { start(): Promise<void>; stop(): Promise<void> };
}

export async function runLifecycleBench(options: LifecycleBenchOptions = {}): Promise<{ rows: Array<{ name: string; value: number; unit: string }>; markdown: string }> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'dojang-bench-lifecycle-'));
  const config = { ...loadConfig({
      DATA_DIR: dataDir,
      // Every request comes from one address: the limits that guard against one client would stop the bench.
      RATE_LIMIT_PER_MINUTE: '100000000',
      SIGNING_RATE_LIMIT_PER_MINUTE: '100000000',
      SIGNING_IP_RATE_LIMIT_PER_MINUTE: '100000000',
      LOG_LEVEL: 'silent',
      ...(options.databaseUrl ? { DATABASE_URL: options.databaseUrl } : {}),
    }), logLevel: 'silent' as const };
  const infra = await openInfrastructure(config);
  // As the API and worker processes start them (on PostgreSQL: through the projector election).
  await infra.projections.start();
  const worker = await startWorker(infra, { tickIntervalMs: 0 });
  const app = await createApp(infra, { notifier: worker.notifier });
  await app.listen(0, '127.0.0.1');
  const base = await app.getUrl();
  const admin = new AdminService(infra);
  const { keys } = await admin.createOrganization({ name: '벤치 주식회사' });
  const auth = { Authorization: `Bearer ${keys.test}`, 'Content-Type': 'application/json' };
  const signature = signaturePng();
  const call = async (method: string, url: string, body?: unknown, headers: Record<string, string> = auth) => {
    const res = await fetch(`${base}${url}`, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
    const json = (await res.json()) as any;
    if (!res.ok) throw new Error(`${method} ${url} → ${res.status} ${JSON.stringify(json)}`);
    return json;
  };
  const open = { 'Content-Type': 'application/json' };

  async function oneDocument(i: number): Promise<void> {
    const doc = await call('POST', '/v1/documents', { title: `근로계약서 ${i}`, content: '<h1>근로계약서</h1><p>갑과 을은 다음과 같이 근로계약을 체결한다.</p>' });
    const p = await call('POST', `/v1/documents/${doc.id}/participants`, { name: '김철수', phone: '01012345678' });
    await call('PUT', `/v1/documents/${doc.id}/fields`, { fields: [{ participant_id: p.id, type: 'signature', page: 1, x: 60, y: 80, width: 25, height: 8 }] });
    const sent = await call('POST', `/v1/documents/${doc.id}/send`, {});
    const token = String(sent.participants[0].signing_url).split('/sign/')[1];
    await call('GET', `/v1/signing/${token}`, undefined, open);
    await call('POST', `/v1/signing/${token}/pin`, undefined, open);
    const outbox = await call('GET', `/v1/outbox?participant_id=${p.id}&channel=sms&limit=10`);
    const pin = outbox.data.find((m: any) => m.kind === 'pin')?.pin;
    await call('POST', `/v1/signing/${token}/verify`, { pin }, open);
    const done = await call('POST', `/v1/signing/${token}/sign`, { consent: true, signature }, open);
    if (done.document.status !== 'completed') throw new Error(`document ${doc.id} ended ${done.document.status}`);
  }

  // Warm-up: font loading in every pool worker, the signing identity, JIT.
  await Promise.all(Array.from({ length: 4 }, (_, i) => oneDocument(-1 - i)));
  const pool = app.get(DocumentPdfService).pool;
  const jobs0 = pool.stats();
  await options.window?.start();
  const cpu0 = process.cpuUsage();
  const started = Date.now();
  let completed = 0;
  let failed = 0;
  let n = 0;
  const latencies: number[] = [];
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (Date.now() - started < DURATION_MS) {
        const t0 = Date.now();
        try {
          await oneDocument(n++);
          completed++;
          latencies.push(Date.now() - t0);
        } catch (err) {
          failed++;
          if (failed === 1) console.error(err);
        }
      }
    }),
  );
  const seconds = (Date.now() - started) / 1000;
  const cpu = process.cpuUsage(cpu0);
  await options.window?.stop();
  const jobs1 = pool.stats();
  const jobMs = (id: string) => (jobs1[id]?.ms ?? 0) - (jobs0[id]?.ms ?? 0);
  latencies.sort((a, b) => a - b);
  const pct = (q: number) => latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))] ?? 0;
  await app.close();
  await worker.stop();
  await infra.close();
  fs.rmSync(dataDir, { recursive: true, force: true });

  const perDoc = (ms: number) => Math.round((ms / Math.max(1, completed)) * 10) / 10;
  const cpuMs = (cpu.user + cpu.system) / 1000;
  const renderMs = jobMs(RENDER_DOCUMENT.id);
  const finalMs = jobMs(BUILD_FINAL.id);
  const rows = [
    { name: 'completed documents (full lifecycle)', value: completed, unit: 'documents' },
    { name: 'failed lifecycles', value: failed, unit: 'documents' },
    { name: 'throughput', value: Math.round((completed / seconds) * 10) / 10, unit: 'documents/s' },
    { name: 'lifecycle latency p50', value: pct(0.5), unit: 'ms' },
    { name: 'lifecycle latency p99', value: pct(0.99), unit: 'ms' },
    { name: 'CPU per document (app + PDF workers + client, one process, all threads)', value: perDoc(cpuMs), unit: 'ms' },
    { name: 'CPU cores busy (all threads)', value: Math.round((cpuMs / 1000 / seconds) * 100) / 100, unit: 'cores' },
    { name: 'of which render (pool job time per document)', value: perDoc(renderMs), unit: 'ms' },
    { name: 'of which stamp + sign (pool job time per document)', value: perDoc(finalMs), unit: 'ms' },
    { name: 'of which HTTP + store + projections + client (the rest, main thread)', value: perDoc(Math.max(0, cpuMs - renderMs - finalMs)), unit: 'ms' },
  ];
  const markdown = [
    `### Full signing lifecycle (${CONCURRENCY} concurrent documents, ${DURATION_MS / 1000} s, ${options.databaseUrl ? 'PostgreSQL' : 'embedded stores'}, test key)`,
    '',
    'create → participant (sms_pin) → fields → send (renders and stores the original PDF, in the PDF worker pool) → view → PIN (outbox) → verify → sign (stamps and PAdES-signs the final PDF in the pool) → completed. Goal (issue 11): ≥ 50 documents/s on 2 cores, ≤ 30 ms CPU per document across all threads. The split is pool job time (wall clock in a worker, ≈ CPU while the worker is not starved); the rest is the main thread and the in-process client.',
    '',
    '| measure | value | unit |',
    '|---|---:|---|',
    ...rows.map((r) => `| ${r.name} | ${r.value} | ${r.unit} |`),
    '',
  ].join('\n');
  return { rows, markdown };
}

if (require.main === module) {
  runLifecycleBench().then(
    (r) => process.stdout.write(`${r.markdown}\n`),
    (err) => {
      console.error(err);
      process.exit(1);
    },
  );
}
