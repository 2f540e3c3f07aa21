import { spawnSync } from 'child_process';
import { createHash } from 'crypto';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { Writable } from 'stream';
import { unzipSync, zipSync } from 'fflate';
import { PDFDocument } from 'pdf-lib';
import { eventHash, GENESIS_HASH, StoredEvent } from '@dojang/event-store';
import { zipFiles } from '@dojang/pdf/rendering';
import { countersignPdf, evidenceKeyOf, loadOrCreateSigningIdentity, SigningIdentity } from '@dojang/evidence';
import { AUDIT_FACTS_PDF_KEY, BundleVerdict, DELIVERY_HEAD_PDF_KEY, documentFacts, main, signManifest, verifyBundle } from '@dojang/verifier';
import { buildEvidenceBundle, Zipper } from '@dojang/evidence';

/**
 * The offline verifier must keep running with nothing but the bundle: the `verifier-offline`
 * rule of .dependency-cruiser.js (checked by `npm run deps:validate`) lets libs/verifier import
 * Node built-ins, fflate, pkijs/asn1js and the frozen hash-chain function, and nothing else.
 * Run over a throwaway tree, as test/tooling does for the other rules.
 */
const ROOT = path.resolve(__dirname, '../..');
/** The pool's ZIP job, run in this process (no event loop to keep free here). */
const zipInProcess: Zipper = async (files, mtime) => Buffer.from(zipFiles({ files, mtime }));

describe('dependency-cruiser rule verifier-offline', () => {
  let dir: string;

  beforeAll(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'dojang-verifier-rule-'));
    fs.symlinkSync(path.join(ROOT, 'node_modules'), path.join(dir, 'node_modules'), 'dir');
  });
  afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('allows built-ins, fflate, pkijs, asn1js and hash-chain; refuses the domain, a store port and any other package', () => {
    const files: Record<string, string> = {
      'libs/event-store/src/hash-chain.ts': 'export const GENESIS_HASH = "0";\n',
      'libs/event-store/src/event-store.port.ts': 'export interface EventStore { x: number }\n',
      'libs/domain/src/index.ts': 'export const domain = 1;\n',
      'libs/verifier/src/ok.ts': [
        "import { createHash } from 'node:crypto';",
        "import { readFileSync } from 'fs';",
        "import { unzipSync } from 'fflate';",
        "import * as pkijs from 'pkijs';",
        "import * as asn1js from 'asn1js';",
        "import { GENESIS_HASH } from '../../event-store/src/hash-chain';",
        "import { bad } from './bad';",
        'export const ok = [createHash, readFileSync, unzipSync, pkijs, asn1js, GENESIS_HASH, bad];',
        '',
      ].join('\n'),
      'libs/verifier/src/bad.ts': [
        "import { domain } from '../../domain/src';",
        "import type { EventStore } from '../../event-store/src/event-store.port';",
        "import { PDFDocument } from 'pdf-lib';",
        'export const bad: [number, EventStore | null, typeof PDFDocument] = [domain, null, PDFDocument];',
        '',
      ].join('\n'),
    };
    for (const [name, text] of Object.entries(files)) {
      fs.mkdirSync(path.dirname(path.join(dir, name)), { recursive: true });
      fs.writeFileSync(path.join(dir, name), text);
    }
    const run = spawnSync(
      process.execPath,
      [path.join(ROOT, 'node_modules/dependency-cruiser/bin/dependency-cruise.mjs'), '--config', path.join(ROOT, '.dependency-cruiser.js'), '--output-type', 'json', 'libs'],
      { cwd: dir, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 },
    );
    if (!run.stdout) throw new Error(`depcruise produced no report: ${run.stderr}`);
    const report = JSON.parse(run.stdout) as { summary: { violations: Array<{ rule: { name: string }; from: string; to: string }> } };
    const violations = report.summary.violations.filter((v) => v.rule.name === 'verifier-offline').map((v) => ({ from: v.from, to: v.to.replace(/^.*node_modules\//, 'node_modules/') }));
    expect(violations.sort((a, b) => a.to.localeCompare(b.to))).toEqual([
      { from: 'libs/verifier/src/bad.ts', to: 'libs/domain/src/index.ts' },
      { from: 'libs/verifier/src/bad.ts', to: 'libs/event-store/src/event-store.port.ts' },
      { from: 'libs/verifier/src/bad.ts', to: expect.stringMatching(/^node_modules\/pdf-lib\//) },
    ]);
  });
});

/**
 * The delivery stream in a bundle, verified in-process from bundles written by the API's own
 * bundle writer: each way of tampering with it is caught by the `deliveries` check (exit 1), and a
 * bundle of the format before deliveries is still accepted. evidence-bundle.e2e-spec.ts runs the
 * same through the served bundle and the `dojang-verify` process.
 */
describe('dojang-verify on the delivery chain (offline, in-process)', () => {
  const DOC = '6e3a1f0c-2b4d-4e5f-8a9b-0c1d2e3f4a5b';
  const OTHER = '1a2b3c4d-5e6f-4a7b-8c9d-0e1f2a3b4c5d';
  let dir: string;
  let identity: SigningIdentity;
  let events: StoredEvent[];
  let deliveries: StoredEvent[];
  let bundle: Buffer;
  let legacyCertificate: Buffer;

  type Files = Record<string, Buffer>;
  const sha256 = (b: Uint8Array) => createHash('sha256').update(b).digest('hex');
  const jsonl = (list: unknown[]) => Buffer.from(list.map((e) => `${JSON.stringify(e)}\n`).join(''));
  const linesOf = (b: Buffer): StoredEvent[] => b.toString('utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l));
  const unzip = (zip: Buffer): Files => Object.fromEntries(Object.entries(unzipSync(zip)).map(([k, v]) => [k, Buffer.from(v)]));

  function chained(list: Array<Omit<StoredEvent, 'metadata'> & { metadata: Record<string, unknown> }>): StoredEvent[] {
    let prev = GENESIS_HASH;
    return list.map((e) => {
      const hash = eventHash(e, prev);
      const out = { ...e, metadata: { ...e.metadata, prev_hash: prev, hash } } as StoredEvent;
      prev = hash;
      return out;
    });
  }

  const deliveryEvent = (documentId: string, i: number) => ({
    event_id: `00000000-0000-4000-8000-${documentId.slice(0, 8)}000${i}`,
    stream_id: `delivery-${documentId}`,
    stream_revision: i,
    global_position: 100 + i,
    type: 'MessageDelivered',
    data: {
      message_id: `msg_${i}`,
      document_id: documentId,
      participant_id: 'p1',
      kind: ['signing_request', 'pin', 'reminder'][i] ?? 'reminder',
      channel: i === 1 ? 'sms' : 'email',
      recipient_masked: i === 1 ? '010-****-5678' : 'k***@example.com',
      provider_message_id: i === 1 ? 'SM0123456789abcdef' : `<m${i}@mail.example>`,
      delivered_at: `2026-03-02T09:0${i}:00.000Z`,
    },
    metadata: { occurred_at: `2026-03-02T09:0${i}:00.000Z`, actor: 'system', organization_id: 'org_1', livemode: false },
  });

  /** A countersigned certificate, as the API makes it; with the delivery head sealed unless `legacy`. */
  async function auditCertificate(sealed: StoredEvent[] | null): Promise<Buffer> {
    const doc = await PDFDocument.create();
    doc.addPage([200, 200]);
    const evidence = sealed
      ? {
          [DELIVERY_HEAD_PDF_KEY]: JSON.stringify({
            document_id: DOC,
            stream_id: `delivery-${DOC}`,
            event_count: sealed.length,
            head_hash: sealed.length ? sealed[sealed.length - 1].metadata.hash : null,
          }),
          [AUDIT_FACTS_PDF_KEY]: JSON.stringify({ document_id: DOC, event_count: events.length, head_hash: events[events.length - 1].metadata.hash, facts: documentFacts(DOC, events) }),
        }
      : undefined;
    return countersignPdf(Buffer.from(await doc.save({ useObjectStreams: false })), { p12: identity.p12, passphrase: identity.passphrase, reason: 'Audit trail certificate', evidence });
  }

  const signed = (manifest: Buffer) => signManifest(manifest, evidenceKeyOf(identity));

  /**
   * Edits files of the bundle, then brings the manifest in line with them and signs it again, as a
   * forger holding the key would: what catches the edit is then the delivery head sealed in the
   * audit certificate, the check these cases are about.
   */
  function forge(edit: (files: Files, manifest: any) => void, base = bundle): Buffer {
    const files = unzip(base);
    const manifest = JSON.parse(files['manifest.json'].toString('utf8'));
    edit(files, manifest);
    manifest.files = Object.keys(files)
      .filter((name) => name !== 'manifest.json' && name !== 'manifest.json.jws')
      .map((name) => ({ name, sha256: sha256(files[name]), byte_size: files[name].length }));
    files['manifest.json'] = Buffer.from(JSON.stringify(manifest));
    if (files['manifest.json.jws']) files['manifest.json.jws'] = Buffer.from(signed(files['manifest.json']));
    return Buffer.from(zipSync(files));
  }

  /** Also rewrites the manifest's delivery head to whatever the (edited) file now holds. */
  function withDeliveries(list: StoredEvent[]) {
    return (files: Files, manifest: any) => {
      files['deliveries.jsonl'] = jsonl(list);
      manifest.deliveries = { stream_id: `delivery-${DOC}`, events: list.length, head_hash: list.length ? list[list.length - 1].metadata.hash : null };
    };
  }

  const status = (v: BundleVerdict) => Object.fromEntries(v.checks.map((c) => [c.id, c.status]));
  const deliveriesCheck = (v: BundleVerdict) => v.checks.find((c) => c.id === 'deliveries')!;

  beforeAll(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'dojang-verifier-deliveries-'));
    identity = await loadOrCreateSigningIdentity({ dataDir: dir });
    events = chained([
      {
        event_id: '00000000-0000-4000-8000-000000000001',
        stream_id: `document-${DOC}`,
        stream_revision: 0,
        global_position: 1,
        type: 'DocumentCreated',
        data: { document_id: DOC, title: '근로계약서' },
        metadata: { occurred_at: '2026-03-02T09:00:00.000Z', actor: 'key_1' },
      },
    ]);
    deliveries = chained([0, 1, 2].map((i) => deliveryEvent(DOC, i)));
    const parts = { document_id: DOC, status: 'draft', generated_at: '2026-03-02T10:00:00.000Z', events, original: null, final: null, signing_chain_pem: identity.certificatePem };
    bundle = await buildEvidenceBundle({ ...parts, deliveries, audit_certificate: await auditCertificate(deliveries), sign_manifest: signed }, zipInProcess);
    legacyCertificate = await auditCertificate(null);
  });
  afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('an intact bundle passes, its deliveries checked against the head the audit certificate seals', () => {
    const v = verifyBundle(bundle);
    expect(status(v)).toEqual({
      manifest: 'pass',
      manifest_signature: 'pass',
      hash_chain: 'pass',
      head_proof: 'skip',
      seal: 'skip',
      consistency: 'pass',
      pdf_hashes: 'pass',
      pades: 'skip',
      audit_certificate: 'pass',
      certificate_facts: 'pass',
      deliveries: 'pass',
    });
    expect(v).toMatchObject({ ok: true, deliveries: 3 });
    expect(deliveriesCheck(v).en).toBe(`Delivery chain: 3 deliveries in delivery-${DOC}, every prev_hash and hash matches, as sealed in the audit certificate (head ${deliveries[2].metadata.hash})`);
    const files = unzip(bundle);
    expect(JSON.parse(files['manifest.json'].toString('utf8'))).toMatchObject({
      format: 'dojang-evidence/4',
      deliveries: { stream_id: `delivery-${DOC}`, events: 3, head_hash: deliveries[2].metadata.hash },
    });
    expect(linesOf(files['deliveries.jsonl'])).toEqual(deliveries);
  });

  it('a document with no delivery gets an empty deliveries.jsonl and passes', async () => {
    const empty = await buildEvidenceBundle({
      document_id: DOC, status: 'draft', generated_at: '2026-03-02T10:00:00.000Z', events, deliveries: [], original: null, final: null,
      audit_certificate: await auditCertificate([]), signing_chain_pem: identity.certificatePem, sign_manifest: signed,
    }, zipInProcess);
    expect(unzip(empty)['deliveries.jsonl'].length).toBe(0);
    const v = verifyBundle(empty);
    expect(v).toMatchObject({ ok: true, deliveries: 0 });
    expect(deliveriesCheck(v).status).toBe('pass');
  });

  it('each way of tampering with the deliveries fails the deliveries check', () => {
    const edited = deliveries.map((e, i) => (i === 1 ? { ...e, data: { ...e.data, recipient_masked: '010-****-0000' } } : e));
    const cases: Array<[string, Buffer, RegExp]> = [
      ['a delivery edited', forge((f) => (f['deliveries.jsonl'] = jsonl(edited))), /broken at revision 1: hash does not match the event content/],
      ['a delivery dropped', forge(withDeliveries([deliveries[0], deliveries[2]])), /broken at revision 1: revision 2 found where 1 was expected/],
      ['deliveries reordered', forge(withDeliveries([deliveries[1], deliveries[0], deliveries[2]])), /broken at revision 0/],
      ['the last delivery dropped, manifest rewritten', forge(withDeliveries(deliveries.slice(0, 2))), /sealed delivery head counts 3 deliveries, the log holds 2/],
      ['a delivery edited and the chain re-hashed', forge(withDeliveries(chained(edited))), /re-hashed/],
      ['a delivery added', forge(withDeliveries(chained([...deliveries, deliveryEvent(DOC, 3)]))), /counts 3 deliveries, the log holds 4/],
      ["another document's intact deliveries", forge(withDeliveries(chained([0, 1, 2].map((i) => deliveryEvent(OTHER, i))))), new RegExp(`belongs to stream delivery-${OTHER}`)],
      ['deliveries.jsonl removed', forge((f, m) => { delete f['deliveries.jsonl']; delete m.deliveries; }), /deliveries\.jsonl is missing/],
      ['the manifest names another delivery head', forge((_f, m) => (m.deliveries.head_hash = '0'.repeat(64))), /the manifest names 3 deliveries with head 0{64}/],
      ['not JSON Lines', forge((f) => (f['deliveries.jsonl'] = Buffer.from('{"event_id":\n'))), /line 1 is not JSON/],
    ];
    for (const [name, zip, reason] of cases) {
      const v = verifyBundle(zip);
      expect({ name, ok: v.ok, deliveries: deliveriesCheck(v).status, failed: v.checks.filter((c) => c.status === 'fail').map((c) => c.id) }).toEqual({ name, ok: false, deliveries: 'fail', failed: ['deliveries'] });
      expect({ name, en: deliveriesCheck(v).en }).toEqual({ name, en: expect.stringMatching(reason) });
      expect(deliveriesCheck(v).ko).toMatch(/^전달 기록 체인: /);
    }
  });

  it("an altered audit certificate fails its signature, and its delivery head is then not trusted", () => {
    const v = verifyBundle(
      forge((f) => {
        const pdf = Buffer.from(f['audit-certificate.pdf']);
        const at = pdf.indexOf('DojangDeliveryHead');
        pdf[at + 100] = pdf[at + 100] === 0x30 ? 0x31 : 0x30; // a hex digit of the sealed head
        f['audit-certificate.pdf'] = pdf;
      }),
    );
    expect(status(v)).toMatchObject({ audit_certificate: 'fail', deliveries: 'fail' });
    expect(deliveriesCheck(v).en).toMatch(/cannot be trusted/);
  });

  it('accepts a bundle of the format before deliveries as "no deliveries recorded", but not a newer one relabelled as it', () => {
    const toLegacy = (certificate: Buffer | null) =>
      forge((f, m) => {
        delete f['deliveries.jsonl'];
        delete f['manifest.json.jws'];
        delete m.deliveries;
        m.format = 'dojang-evidence/1';
        if (certificate) f['audit-certificate.pdf'] = certificate;
      });
    const legacy = verifyBundle(toLegacy(legacyCertificate));
    expect(legacy).toMatchObject({ ok: true, deliveries: null });
    expect(deliveriesCheck(legacy)).toMatchObject({ status: 'skip', en: 'Delivery chain: no deliveries recorded: the dojang-evidence/1 format predates delivery records' });

    const relabelled = verifyBundle(toLegacy(null));
    expect(relabelled.ok).toBe(false);
    expect(deliveriesCheck(relabelled)).toMatchObject({ status: 'fail', en: 'Delivery chain: the audit certificate seals 3 deliveries but the bundle (dojang-evidence/1) holds none' });

    // A format-2 bundle whose certificate seals nothing was not made by this server.
    const unsealed = verifyBundle(forge((f) => (f['audit-certificate.pdf'] = legacyCertificate)));
    expect(deliveriesCheck(unsealed)).toMatchObject({ status: 'fail', en: expect.stringMatching(/seals no delivery head/) });
  });

  it("refuses another document's events in events.jsonl, however intact", () => {
    const foreign = chained(events.map((e) => ({ ...e, stream_id: `document-${OTHER}` })));
    const v = verifyBundle(forge((f, m) => {
      f['events.jsonl'] = jsonl(foreign);
      m.chain = { events: 1, head_hash: foreign[0].metadata.hash };
    }));
    expect(v.checks.find((c) => c.id === 'hash_chain')).toMatchObject({ status: 'fail', en: `Hash chain: the event on line 1 belongs to stream document-${OTHER}, not document-${DOC}` });
  });

  it('prints the verdict in Korean and English and exits 1, naming the delivery check', async () => {
    const file = path.join(dir, 'dropped.zip');
    fs.writeFileSync(file, forge(withDeliveries(deliveries.slice(0, 2))));
    let out = '';
    const sink = new Writable({ write: (chunk, _enc, done) => ((out += String(chunk)), done()) });
    expect(await main([file], sink, sink)).toBe(1);
    expect(out).toContain(`document ${DOC} (1 events / 이벤트 1개, 2 deliveries / 전달 기록 2건)`);
    expect(out).toMatch(/✗ 전달 기록 체인: 감사 추적 인증서에 봉인된 헤드와 맞지 않습니다/);
    expect(out).toContain('Delivery chain: the sealed delivery head counts 3 deliveries, the log holds 2');
    expect(out).toContain('Verdict: verification FAILED (deliveries)');
  });
});
