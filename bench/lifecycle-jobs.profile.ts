/**
 * The lifecycle's PDF jobs, each run on its own on this thread (no pool, no HTTP), with the CPU
 * each takes per document: what bench/lifecycle.bench.ts spends in its pool workers, measured
 * per job and with the thread's own CPU clock, so it holds on a busy machine. With
 * LIFECYCLE_JOBS_PROFILE=<dir> each job's runs are also written as <dir>/<job>.cpuprofile
 * (summarise with bench/cpu-profile.ts).
 *
 *   npx ts-node --transpile-only -r tsconfig-paths/register bench/lifecycle-jobs.profile.ts [runs]
 */
import * as fs from 'fs';
import * as inspector from 'inspector';
import * as os from 'os';
import * as path from 'path';
import { lifecycleDocumentInput } from './lifecycle-document';
import { DOCUMENT_BUDGETS, encodePngPixels } from '../libs/pdf/src';
import { loadOrCreateSigningIdentity } from '../libs/evidence/src';
import type { AuditCertificateInput } from '../libs/pdf/src';
import auditCertificateJob from '../libs/pdf/src/pool/audit-certificate.handler';
import buildFinalJob from '../libs/pdf/src/pool/build-final.handler';
import countersignJob from '../libs/pdf/src/pool/countersign.handler';
import renderDocumentJob from '../libs/pdf/src/pool/render-document.handler';
import renderPageJob from '../libs/pdf/src/pool/render-page.handler';
import { beginJobPhases, endJobPhases, threadCpuMs as threadCpu } from '../libs/pdf/src/pool/thread-cpu';

/** This thread's CPU time (Linux): Node 20 has no per-thread CPU clock of its own. */
const threadCpuMs = (): number => {
  const ms = threadCpu();
  if (ms === null) throw new Error('needs Linux (/proc/thread-self/schedstat)');
  return ms;
};

function post<T = unknown>(session: inspector.Session, method: string, params?: object): Promise<T> {
  return new Promise((resolve, reject) => session.post(method, params ?? {}, (err, res) => (err ? reject(err) : resolve(res as T))));
}

export function lifecycleCertificateInput(i: number): AuditCertificateInput {
  return {
    title: `근로계약서 ${i}`,
    document_id: `doc_${String(i).padStart(26, '0')}`,
    original_sha256: 'b'.repeat(64),
    final_sha256: 'c'.repeat(64),
    participants: [
      { name: '김철수', role: 'signer', auth: 'sms_pin', phone_masked: '010-****-5678', email_masked: null, ip: '::ffff:127.0.0.1', user_agent: 'node', viewed_at: '2026-01-01T00:00:00Z', signed_at: '2026-01-01T00:01:00Z' },
    ],
    timeline: ['created', 'sent', 'viewed', 'pin_sent', 'pin_verified', 'signed', 'completed'].map((event) => ({
      at: '2026-01-01T00:00:00Z',
      event,
      actor: event === 'created' || event === 'sent' ? 'API' : '김철수',
      detail: event === 'completed' ? `final SHA-256 ${'d'.repeat(64)}` : event === 'viewed' ? 'IP ::ffff:127.0.0.1' : null,
    })),
    generated_at: '2026-01-01T00:02:00Z',
    chain: { head_hash: 'e'.repeat(64), event_count: 9, sealed: { revision: 8, hash: 'f'.repeat(64), completed_event_count: 9 } },
  };
}

async function main() {
  const runs = Number(process.argv[2] ?? 50);
  const profileDir = process.env.LIFECYCLE_JOBS_PROFILE;
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'dojang-jobs-'));
  const identity = await loadOrCreateSigningIdentity({ dataDir });
  const sign = { p12: identity.p12, passphrase: identity.passphrase, reason: 'Signed by all parties: 근로계약서 1', name: 'Dojang', location: 'Dojang e-signature service' };
  const signature = encodePngPixels(60, 20, 4, new Uint8Array(60 * 20 * 4).fill(0x40));
  const evidence = { DojangChainHead: JSON.stringify({ document_id: 'doc_1', revision: 7, hash: 'a'.repeat(64) }) };

  // The pool jobs' own handlers, with the inputs DocumentPdfService gives them in the lifecycle.
  const render = async (i: number) => {
    const out = await renderDocumentJob(lifecycleDocumentInput(i));
    if ('refused' in out) throw new Error(out.refused.message);
    return Buffer.from(out.pdf);
  };
  const original = await render(0);
  const buildFinal = async () => Buffer.from(await buildFinalJob({ original, stamps: [{ page: 1, x: 60, y: 80, width: 25, height: 8, image: signature }], sign: { ...sign, evidence } }));
  const final = await buildFinal();
  const certificate = async (i: number) => Buffer.from(await auditCertificateJob({ base: final, certificate: lifecycleCertificateInput(i) }));
  const bundle = await certificate(0);
  const countersign = async () => Buffer.from(await countersignJob({ pdf: bundle, sign: { ...sign, reason: 'Audit trail certificate: 근로계약서 1' } }));
  // The page images rendered at send (PageImagesReactor): page 1 at each width, the WebP alone, one
  // parse of the PDF for the three (the worker keeps it open by its hash, as DocumentPdfService asks).
  // PAGE_IMAGES_FORMATS=png,webp: both formats at send, as before issue 35 item 5.
  const both = process.env.PAGE_IMAGES_FORMATS === 'png,webp';
  const pageImages = async (i: number) => {
    let bytes = 0;
    for (const width of [480, 720, 960]) {
      const out = await renderPageJob({ pdf: original, pdf_sha256: `lifecycle-${i}`, page: 1, width, png: both, webp: true });
      bytes += (out.png?.length ?? 0) + (out.webp?.length ?? 0);
    }
    return Buffer.alloc(bytes);
  };
  // What a client that does not accept WebP costs once per width it asks for: the page's PNG.
  const pagePng = async (i: number) => Buffer.from((await renderPageJob({ pdf: original, pdf_sha256: `lifecycle-png-${i}`, page: 1, width: 720 })).png!);
  const jobs: Array<[string, (i: number) => Promise<Buffer>]> = [
    ['render', render],
    [both ? 'page-images (3 widths, PNG + WebP)' : 'page-images (3 widths, WebP)', pageImages],
    ['build-final', buildFinal],
    ['audit-certificate', certificate],
    ['countersign', countersign],
  ];
  const session = new inspector.Session();
  if (profileDir) {
    session.connect();
    fs.mkdirSync(profileDir, { recursive: true });
    await post(session, 'Profiler.enable');
    await post(session, 'Profiler.setSamplingInterval', { interval: 1000 });
  }
  let total = 0;
  for (const [name, job] of jobs) {
    for (let i = 0; i < 5; i++) await job(i); // warm-up
    if (profileDir) await post(session, 'Profiler.start');
    const t0 = threadCpuMs();
    const p0 = process.cpuUsage();
    let size = 0;
    const phases: Record<string, number> = {};
    for (let i = 0; i < runs; i++) {
      beginJobPhases();
      size = (await job(i + 1)).length;
      for (const [phase, ms] of Object.entries(endJobPhases())) phases[phase] = (phases[phase] ?? 0) + ms;
    }
    const ms = (threadCpuMs() - t0) / runs;
    const p1 = process.cpuUsage(p0);
    const helpers = (p1.user + p1.system) / 1000 / runs - ms;
    if (profileDir) {
      const { profile } = await post<{ profile: object }>(session, 'Profiler.stop');
      fs.writeFileSync(path.join(profileDir, `${name}.cpuprofile`), JSON.stringify(profile));
    }
    total += ms;
    const split = Object.entries(phases).map(([phase, t]) => `${phase} ${(t / runs).toFixed(2)}`);
    console.log(`${name.padEnd(20)} ${ms.toFixed(2).padStart(8)} ms CPU  ${size} bytes, other threads ${helpers.toFixed(2)} ms${split.length ? `  (${split.join(', ')})` : ''}`);
  }
  console.log(`${'all'.padEnd(20)} ${total.toFixed(2).padStart(8)} ms CPU per document`);
  // Not part of every document: paid once per PDF and width, by the first client that asks for a PNG.
  for (let i = 0; i < 5; i++) await pagePng(-1 - i);
  const t0 = threadCpuMs();
  const p0 = process.cpuUsage();
  for (let i = 0; i < runs; i++) await pagePng(i);
  const ms = (threadCpuMs() - t0) / runs;
  const p1 = process.cpuUsage(p0);
  console.log(`${'PNG on request (720)'.padEnd(20)} ${ms.toFixed(2).padStart(8)} ms CPU  other threads ${((p1.user + p1.system) / 1000 / runs - ms).toFixed(2)} ms (not per document: once per PDF and width, for a client without WebP)`);
  fs.rmSync(dataDir, { recursive: true, force: true });
}

if (require.main === module) {
  main().catch((err) => {
    console.error(err);
    process.exit(1);
  });
}
