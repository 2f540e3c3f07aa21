import { execFile, execFileSync } from 'child_process';
import { createHash } from 'crypto';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { promisify } from 'util';
import { strFromU8, unzipSync, zipSync } from 'fflate';
import { DeliveryEvidence, DocumentPdfService } from '@dojang/application';
import { ZIP_FILES } from '@dojang/pdf';
import { maskEmail, maskPhone } from '@dojang/domain';
import { eventHash, GENESIS_HASH } from '@dojang/event-store/hash-chain';
import { pdfEvidenceEntry } from '@dojang/verifier/pades';
import { pdftotext } from '@dojang/pdf/testing/poppler';
import { client, Client, expectError, expectStatus } from '../support/api-helpers';
import { outboxOf, sentWith, signer } from '../support/lifecycle';
import { bearer, startTestApp, TestApp, TestOrg } from '../support/test-app';
import { binary } from '../files/file-helpers';

const run = promisify(execFile);
const ROOT = path.join(__dirname, '..', '..');
const VERIFY = path.join(ROOT, 'scripts', 'dojang-verify.js');
/** The verifier is a separate process (the first one transpiles it): seconds each on a loaded machine. */
const CHILD_TIMEOUT = 90_000;
const sha256 = (b: Uint8Array) => createHash('sha256').update(b).digest('hex');

/** How the verdict names each check (the ✓/✗ line is Korean, the English one follows). */
const LABEL = {
  manifest: '매니페스트',
  manifest_signature: '매니페스트 서명',
  hash_chain: '해시 체인',
  head_proof: '체인 헤드 증명',
  seal: '결론 인증',
  consistency: '교차 검증',
  pdf_hashes: 'PDF 해시',
  pades: 'PAdES 서명',
  audit_certificate: '감사 추적 인증서 서명',
  certificate_facts: '감사 추적 인증서 내용',
  deliveries: '전달 기록 체인',
} as const;

/** Contacts that must appear only masked in the certificate and the bundle's delivery records. */
const MINJUN = { name: '김민준', email: 'minjun.kim@example.com', phone: '010-2345-6789' };
const SEOYEON = { name: '이서연', email: 'seoyeon.lee@example.com', phone: '010-9876-5432' };
type Check = keyof typeof LABEL;

interface Verdict {
  code: number;
  stdout: string;
  stderr: string;
  failed: Check[];
}

type Files = Record<string, Buffer>;

describe('GET /v1/documents/{id}/evidence and dojang-verify (offline)', () => {
  let t: TestApp;
  let org: TestOrg;
  let c: Client;
  let dir: string;
  let bundle: Buffer;
  let documentId: string;

  const download = (id: string, key: string) => t.http.get(`/v1/documents/${id}/evidence`).set(bearer(key)).buffer(true).parse(binary);

  async function verify(zip: Buffer, name: string): Promise<Verdict> {
    const file = path.join(dir, `${name}.zip`);
    fs.writeFileSync(file, zip);
    // No server, database or secret: a clean environment and a directory of its own.
    const env = { PATH: process.env.PATH ?? '', HOME: dir };
    const out = await run(process.execPath, [VERIFY, file], { cwd: dir, env }).then(
      (r) => ({ code: 0, stdout: r.stdout, stderr: r.stderr }),
      (e: { code: number; stdout: string; stderr: string }) => ({ code: e.code, stdout: e.stdout, stderr: e.stderr }),
    );
    const failed = (Object.keys(LABEL) as Check[]).filter((k) => out.stdout.includes(`✗ ${LABEL[k]}`));
    return { ...out, failed };
  }

  const unzip = (zip: Buffer): Files => Object.fromEntries(Object.entries(unzipSync(zip)).map(([k, v]) => [k, Buffer.from(v)]));
  const zip = (files: Files) => Buffer.from(zipSync(files));
  const manifestOf = (files: Files) => JSON.parse(files['manifest.json'].toString('utf8'));
  const eventsOf = (files: Files, name = 'events.jsonl'): any[] => strFromU8(files[name]).split('\n').filter(Boolean).map((l) => JSON.parse(l));
  const deliveriesOf = (files: Files) => eventsOf(files, 'deliveries.jsonl');
  const jsonl = (events: any[]) => Buffer.from(events.map((e) => `${JSON.stringify(e)}\n`).join(''));

  /**
   * Edits parts of the bundle and then brings the manifest in line, as a forger would: the check
   * that catches the edit is then the one meant for it, not merely the manifest.
   */
  function forge(edit: (files: Files) => void, options: { chainHead?: boolean; deliveryHead?: boolean } = {}): Buffer {
    const files = unzip(bundle);
    edit(files);
    const manifest = manifestOf(files);
    for (const f of manifest.files) {
      f.sha256 = sha256(files[f.name]);
      f.byte_size = files[f.name].length;
    }
    if (options.chainHead) {
      const events = eventsOf(files);
      manifest.chain = { events: events.length, head_hash: events[events.length - 1].metadata.hash };
    }
    if (options.deliveryHead) {
      const deliveries = deliveriesOf(files);
      manifest.deliveries = { ...manifest.deliveries, events: deliveries.length, head_hash: deliveries[deliveries.length - 1].metadata.hash };
    }
    files['manifest.json'] = Buffer.from(JSON.stringify(manifest));
    return zip(files);
  }

  function editEvent(files: Files, type: string, change: (e: any) => void, which: 'first' | 'last' = 'first'): void {
    const events = eventsOf(files);
    const matching = events.filter((e) => e.type === type);
    change(which === 'first' ? matching[0] : matching[matching.length - 1]);
    files['events.jsonl'] = jsonl(events);
  }

  /** Drops events from `fromType` (its first occurrence) on, keeping the revisions dense, and re-hashes. */
  function cutFrom(files: Files, fromType: string, alsoDrop: string[] = []): void {
    const events = eventsOf(files);
    const at = events.findIndex((e) => e.type === fromType);
    files['events.jsonl'] = jsonl(events.slice(0, at).filter((e) => !alsoDrop.includes(e.type)).map((e, i) => ({ ...e, stream_revision: i })));
    rehash(files);
  }

  /** Rewrites manifest fields (before forge() brings its hashes in line), dropping files it no longer lists. */
  function editManifest(files: Files, change: (m: any) => void, drop: string[] = []): void {
    const m = manifestOf(files);
    change(m);
    for (const name of drop) delete files[name];
    m.files = m.files.filter((x: any) => !drop.includes(x.name));
    files['manifest.json'] = Buffer.from(JSON.stringify(m));
  }

  function rehash(files: Files): void {
    let prev = GENESIS_HASH;
    const events = eventsOf(files).map((e) => {
      const hash = eventHash(e, prev);
      const out = { ...e, metadata: { ...e.metadata, prev_hash: prev, hash } };
      prev = hash;
      return out;
    });
    files['events.jsonl'] = jsonl(events);
  }

  beforeAll(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'dojang-evidence-'));
    t = await startTestApp();
    org = await t.createOrg();
    c = client(t, org.test);
    const built = await sentWith(c, [MINJUN, SEOYEON]);
    documentId = built.id;
    for (const name of [MINJUN.name, SEOYEON.name]) expectStatus(await signer(t, built.p[name].token).sign(), 200);
    expect(expectStatus(await c.get(`/documents/${documentId}`), 200).body.status).toBe('completed');
    // The signing requests and the completion notices are sent (and recorded) by the worker.
    await outboxOf(t, c, documentId);
    const res = await download(documentId, org.test).expect(200);
    expect(res.headers['content-type']).toBe('application/zip');
    bundle = res.body;
    // Sending and two signatures render, stamp and sign PDFs in the pool: slow on a busy machine.
  }, 2 * CHILD_TIMEOUT);
  afterAll(async () => {
    await t?.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('holds the events as stored, both PDFs, the audit certificate, the certificate and a manifest of SHA-256s', async () => {
    const files = unzip(bundle);
    expect(Object.keys(files).sort()).toEqual(['audit-certificate.pdf', 'deliveries.jsonl', 'events.jsonl', 'final.pdf', 'manifest.json', 'manifest.json.jws', 'original.pdf', 'signing-chain.pem']);
    const stored = await t.infra.events.readStream(`document-${documentId}`);
    expect(eventsOf(files)).toEqual(JSON.parse(JSON.stringify(stored)));
    const manifest = manifestOf(files);
    expect(manifest).toMatchObject({ format: 'dojang-evidence/4', document_id: documentId, completed: true, note: null, chain: { events: stored.length, head_hash: stored[stored.length - 1].metadata.hash } });
    expect(Date.parse(manifest.generated_at)).not.toBeNaN();
    for (const f of manifest.files) expect(f).toEqual({ name: f.name, sha256: sha256(files[f.name]), byte_size: files[f.name].length });
    const doc = expectStatus(await c.get(`/documents/${documentId}`), 200).body;
    const completed = stored.find((e) => e.type === 'DocumentCompleted')!;
    expect(sha256(files['final.pdf'])).toBe((completed.data.final_pdf as { sha256: string }).sha256);
    expect(files['audit-certificate.pdf'].subarray(0, 5).toString('latin1')).toBe('%PDF-');
    expect(files['signing-chain.pem'].toString()).toMatch(/^-----BEGIN CERTIFICATE-----/);
    expect(doc.status).toBe('completed');
    // poppler agrees the final PDF's signature is valid (the verifier itself is pure Node).
    const pdf = path.join(dir, 'final.pdf');
    fs.writeFileSync(pdf, files['final.pdf']);
    expect(execFileSync('pdfsig', [pdf]).toString()).toMatch(/Signature Validation: Signature is Valid/);
  });

  it('is zipped in the PDF pool, the PDFs stored as they are (already compressed inside)', async () => {
    const pdf = t.app.get(DocumentPdfService);
    const run = jest.spyOn(pdf.pool, 'run');
    try {
      const again = (await download(documentId, org.test).expect(200)).body as Buffer;
      expect(run.mock.calls.map(([job]) => job)).toContain(ZIP_FILES);
      const files = unzip(again);
      for (const name of ['original.pdf', 'final.pdf', 'audit-certificate.pdf']) expect(again.includes(files[name])).toBe(true);
      expect(again.includes(files['events.jsonl'])).toBe(false);
    } finally {
      run.mockRestore();
    }
  });

  it('holds the delivery stream as stored, in the manifest, and the certificate lists and seals the same deliveries, recipients masked', async () => {
    const files = unzip(bundle);
    const stored = await t.infra.events.readStream(`delivery-${documentId}`);
    const outbox = await outboxOf(t, c, documentId);
    expect(stored.length).toBe(outbox.length);
    expect(stored.map((e) => e.data.kind)).toEqual(expect.arrayContaining(['signing_request', 'completed']));
    expect(deliveriesOf(files)).toEqual(JSON.parse(JSON.stringify(stored)));
    expect(manifestOf(files).deliveries).toEqual({ stream_id: `delivery-${documentId}`, events: stored.length, head_hash: stored[stored.length - 1].metadata.hash });
    expect(manifestOf(files).files.map((f: any) => f.name)).toContain('deliveries.jsonl');

    const certificate = files['audit-certificate.pdf'];
    expect(pdfEvidenceEntry(certificate, 'DojangDeliveryHead')).toEqual({
      document_id: documentId,
      stream_id: `delivery-${documentId}`,
      event_count: stored.length,
      head_hash: stored[stored.length - 1].metadata.hash,
    });
    const text = pdftotext(certificate);
    const compact = text.replace(/\s+/g, '');
    expect(text).toContain('서명 요청 전달 / signing request delivered');
    expect(text).toContain('완료 안내 전달 / completion notice delivered');
    expect(compact).toContain(`${stored[stored.length - 1].metadata.hash}(${stored.length}deliveries)`);
    for (const e of stored) {
      expect(text).toContain(`수신/To: ${String(e.data.recipient_masked)}`);
    }
    expect(text).toContain('발송 ID/Provider message ID: outbox');
    expect(text).toContain('채널/Channel: 이메일 (Email)');
    expect(text).toContain('채널/Channel: 문자 (SMS)');
    // Masked in the rows and everywhere else: the certificate and the delivery records never hold a full contact.
    for (const contact of [MINJUN.email, SEOYEON.email, MINJUN.phone, SEOYEON.phone]) {
      expect(text).not.toContain(contact);
      expect(compact).not.toContain(contact.replace(/-/g, ''));
      expect(files['deliveries.jsonl'].toString('utf8')).not.toContain(contact);
    }
  });

  it('lists the deliveries recorded when it is generated: one recorded later is in the next certificate, not the earlier one', async () => {
    const built = await sentWith(c, [{ name: '최유나', email: 'yuna.choi@example.com' }]);
    await outboxOf(t, c, built.id);
    const before = (await t.http.get(`/v1/documents/${built.id}/file?audit=true`).set(bearer(org.test)).buffer(true).parse(binary).expect(200)).body;
    const sealedBefore = pdfEvidenceEntry<{ event_count: number }>(before, 'DojangDeliveryHead')!;
    expect(sealedBefore.event_count).toBeGreaterThanOrEqual(1);
    // A reminder delivered after that certificate was made.
    await new DeliveryEvidence(t.infra.events).record({
      message_id: 'msg_late_reminder',
      kind: 'reminder',
      organization_id: org.id,
      livemode: false,
      document_id: built.id,
      participant_id: built.p['최유나'].id,
      channel: 'sms',
      to: '010-5555-1234',
      provider_message_id: 'SMlate0123456789',
      delivered_at: new Date().toISOString(),
    });
    expect(pdftotext(before).replace(/\s+/g, '')).not.toContain('SMlate0123456789');
    const after = (await download(built.id, org.test).expect(200)).body;
    const files = unzip(after);
    expect(deliveriesOf(files)).toHaveLength(sealedBefore.event_count + 1);
    const text = pdftotext(files['audit-certificate.pdf']);
    expect(text).toContain('알림 전달 / reminder delivered');
    expect(text.replace(/\s+/g, '')).toContain('SMlate0123456789');
    expect(text).toContain(`수신/To: ${maskPhone('010-5555-1234')}`);
    expect(text).not.toContain('010-5555-1234');
    expect(pdfEvidenceEntry<{ event_count: number }>(files['audit-certificate.pdf'], 'DojangDeliveryHead')!.event_count).toBe(sealedBefore.event_count + 1);
    const v = await verify(after, 'late-delivery');
    expect(v).toMatchObject({ code: 0, failed: [] });
    expect(v.stdout).toContain(`${sealedBefore.event_count + 1} deliveries / 전달 기록 ${sealedBefore.event_count + 1}건`);
  }, CHILD_TIMEOUT);

  it('an intact bundle passes every check: exit 0, a verdict in Korean and English', async () => {
    const v = await verify(bundle, 'intact');
    expect(v).toMatchObject({ code: 0, failed: [] });
    for (const label of Object.values(LABEL)) expect(v.stdout).toContain(`✓ ${label}`);
    expect(v.stdout).toContain('결과: 모든 검사를 통과했습니다. / Verdict: every check passed.');
    expect(v.stdout).toMatch(/Chain-head proof: head at revision \d+ signed with the bundle's certificate/);
    expect(v.stdout).toMatch(/Delivery chain: \d+ deliveries in delivery-[0-9a-f-]{36}, every prev_hash and hash matches, as sealed in the audit certificate/);
  }, CHILD_TIMEOUT);

  it('detects each kind of tampering, naming the check (exit 1)', async () => {
    const otherCert = path.join(dir, 'other.pem');
    execFileSync('openssl', ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', path.join(dir, 'other.key'), '-out', otherCert, '-subj', '/C=KR/O=Dojang/CN=Dojang Document Signing', '-days', '1'], { stdio: 'pipe' });
    const cases: Array<[string, Buffer, Check[]]> = [
      ['event data edited', forge((f) => editEvent(f, 'DocumentCreated', (e) => (e.data.title = '위조된 계약서'))), ['hash_chain']],
      // The last event is the conclusion's seal: without it the completion is unsealed.
      ['last event removed (truncation)', forge((f) => (f['events.jsonl'] = jsonl(eventsOf(f).slice(0, -1))), { chainHead: true }), ['seal']],
      ['completion and seal removed (truncation)', forge((f) => (f['events.jsonl'] = jsonl(eventsOf(f).slice(0, -2))), { chainHead: true }), ['head_proof', 'pdf_hashes', 'consistency', 'certificate_facts']],
      [
        'event edited and the chain re-hashed with plain SHA-256',
        forge(
          (f) => {
            editEvent(f, 'DocumentCreated', (e) => (e.data.title = '위조된 계약서'));
            rehash(f);
          },
          { chainHead: true },
        ),
        ['head_proof'],
      ],
      ['original PDF altered', forge((f) => (f['original.pdf'] = Buffer.concat([f['original.pdf'], Buffer.from('\n% appended\n')]))), ['pdf_hashes']],
      ['final PDF altered', forge((f) => (f['final.pdf'] = Buffer.from(f['final.pdf'].toString('latin1').replace('/Producer', '/Produser'), 'latin1'))), ['pdf_hashes', 'pades']],
      [
        'manifest altered',
        (() => {
          const f = unzip(bundle);
          const m = manifestOf(f);
          m.files.find((x: any) => x.name === 'final.pdf').sha256 = '0'.repeat(64);
          f['manifest.json'] = Buffer.from(JSON.stringify(m));
          return zip(f);
        })(),
        ['manifest'],
      ],
      ['certificate swapped for another self-signed one', forge((f) => (f['signing-chain.pem'] = fs.readFileSync(otherCert))), ['head_proof', 'pades', 'audit_certificate', 'deliveries']],
      [
        'a delivery edited (its provider message id)',
        forge((f) => {
          const list = deliveriesOf(f);
          list[0].data.provider_message_id = 'SMforged';
          f['deliveries.jsonl'] = jsonl(list);
        }),
        ['deliveries'],
      ],
      ['a delivery dropped', forge((f) => (f['deliveries.jsonl'] = jsonl(deliveriesOf(f).filter((_e, i) => i !== 1))), { deliveryHead: true }), ['deliveries']],
      [
        'deliveries reordered',
        forge((f) => {
          const [first, second, ...rest] = deliveriesOf(f);
          f['deliveries.jsonl'] = jsonl([second, first, ...rest]);
        }),
        ['deliveries'],
      ],
      ['the last delivery dropped and the manifest rewritten', forge((f) => (f['deliveries.jsonl'] = jsonl(deliveriesOf(f).slice(0, -1))), { deliveryHead: true }), ['deliveries']],
    ];
    // The conclusion, edited and re-hashed as a forger without the key would: the seal (signed
    // after the completion) and the audit certificate's embedded facts name the fact.
    const concluded: Array<[string, Buffer, Check[], RegExp]> = [
      [
        "last signer's signed_at",
        forge((f) => (editEvent(f, 'ParticipantSigned', (e) => (e.data.signed_at = '2026-01-01T00:00:00.000Z'), 'last'), rehash(f)), { chainHead: true }),
        ['seal', 'certificate_facts'],
        /signatures\[1\]\.signed_at: certified "[^"]+", events "2026-01-01T00:00:00.000Z"/,
      ],
      [
        "last signer's auth_method and phone",
        forge((f) => (editEvent(f, 'ParticipantSigned', (e) => ((e.data.auth_method = e.data.auth_method === 'none' ? 'sms_pin' : 'none'), (e.data.auth_phone_masked = '010-****-0000')), 'last'), rehash(f)), { chainHead: true }),
        ['seal', 'certificate_facts'],
        /signatures\[1\]\.auth_method: certified/,
      ],
      [
        "last signer's actor",
        forge((f) => (editEvent(f, 'ParticipantSigned', (e) => (e.metadata.actor = 'key_forged'), 'last'), rehash(f)), { chainHead: true }),
        ['seal', 'certificate_facts'],
        /signatures\[1\]\.actor: certified "[^"]+", events "key_forged"/,
      ],
      [
        "last signer's occurred_at",
        forge((f) => (editEvent(f, 'ParticipantSigned', (e) => (e.metadata.occurred_at = '2026-01-01T00:00:00.000Z'), 'last'), rehash(f)), { chainHead: true }),
        ['seal', 'consistency', 'certificate_facts'],
        /signatures\[1\]\.occurred_at: certified/,
      ],
      [
        'completed_at backdated before the creation',
        forge((f) => (editEvent(f, 'DocumentCompleted', (e) => (e.data.completed_at = '2020-01-01T00:00:00.000Z')), rehash(f)), { chainHead: true }),
        ['seal', 'consistency', 'certificate_facts'],
        /completed_at: certified "[^"]+", events "2020-01-01T00:00:00.000Z".*DocumentCompleted at 2020-01-01T00:00:00.000Z precedes the document's creation/s,
      ],
      [
        'truncated back to "sent": final.pdf dropped, manifest completed:false, the last signature, completion and seal removed',
        forge((f) => {
          cutFrom(f, 'DocumentCompleted', []);
          const events = eventsOf(f);
          f['events.jsonl'] = jsonl(events.slice(0, -1));
          editManifest(f, (m) => ((m.completed = false), (m.status = 'sent')), ['final.pdf']);
        }, { chainHead: true }),
        ['manifest_signature', 'consistency', 'certificate_facts'],
        /a completed notice sent at .* but the events hold no DocumentCompleted/,
      ],
    ];
    for (const [name, z, checks, fact] of concluded) cases.push([name, z, checks]);
    const verdicts = await Promise.all(cases.map(([name, z], i) => verify(z, `tampered-${i}`).then((v) => [name, v] as const)));
    for (const [name, , , fact] of concluded) {
      const v = verdicts.find(([n]) => n === name)![1];
      expect({ name, stdout: v.stdout }).toEqual({ name, stdout: expect.stringMatching(fact) });
    }
    for (const [i, [name, v]] of verdicts.entries()) {
      const expected = cases[i][2];
      expect({ name, code: v.code, caught: expected.filter((k) => v.failed.includes(k)) }).toEqual({ name, code: 1, caught: expected });
      expect(v.stdout).toMatch(/결과: 검증 실패 .* Verdict: verification FAILED/);
    }
  }, CHILD_TIMEOUT);

  it('a declined and a canceled document are sealed too: intact bundles pass, a decline edited or removed fails naming it', async () => {
    const declined = await sentWith(c, [{ name: '정하늘', email: 'haneul.jung@example.com' }]);
    expectStatus(await signer(t, declined.p['정하늘'].token).decline('임금 조건이 다릅니다 (연락: 010-1111-2222)'), 200);
    const canceled = await sentWith(c, [{ name: '한지민', email: 'jimin.han@example.com' }]);
    expectStatus(await c.post(`/documents/${canceled.id}/cancel`, { reason: '내용 변경' }), 200);
    const declinedZip = (await download(declined.id, org.test).expect(200)).body as Buffer;
    const canceledZip = (await download(canceled.id, org.test).expect(200)).body as Buffer;
    const stored = await t.infra.events.readStream(`document-${declined.id}`);
    expect(stored.map((e) => e.type).slice(-3)).toEqual(['ParticipantDeclined', 'DocumentDeclined', 'DocumentCertified']);
    const sealEvent = stored[stored.length - 1];
    expect((sealEvent.data as any).certification).toMatchObject({ head: { revision: stored.length - 2, hash: stored[stored.length - 2].metadata.hash }, facts: { status: 'declined' } });
    const certificateText = pdftotext(unzip(declinedZip)['audit-certificate.pdf']);
    expect(certificateText).toContain('임금 조건이 다릅니다');
    expect(certificateText).not.toContain('010-1111-2222');
    expect(certificateText).toContain('결론 인증');

    const original = bundle;
    try {
      bundle = declinedZip;
      const reasonEdited = forge((f) => (editEvent(f, 'ParticipantDeclined', (e) => (e.data.reason = '단순 변심')), rehash(f)), { chainHead: true });
      const removed = forge((f) => {
        cutFrom(f, 'ParticipantDeclined');
        editManifest(f, (m) => (m.status = 'sent'));
      }, { chainHead: true });
      const [intactDeclined, intactCanceled, edited, gone] = await Promise.all([
        verify(declinedZip, 'declined'),
        verify(canceledZip, 'canceled'),
        verify(reasonEdited, 'decline-edited'),
        verify(removed, 'decline-removed'),
      ]);
      expect(intactDeclined).toMatchObject({ code: 0, failed: [] });
      expect(intactDeclined.stdout).toMatch(/Certification: the DocumentDeclined at revision \d+ and every event up to revision \d+ are certified \(declined;/);
      expect(intactCanceled).toMatchObject({ code: 0, failed: [] });
      expect(intactCanceled.stdout).toMatch(/Certification: the DocumentCanceled at revision \d+ .* certified \(canceled;/);
      expect(edited.code).toBe(1);
      expect(edited.failed).toEqual(expect.arrayContaining(['seal', 'certificate_facts']));
      // The seal states the reason masked by the one rule (issue 31 item 6): no phone number in the facts.
      expect(edited.stdout).toMatch(/declined\.reason: certified "임금 조건이 다릅니다 \(연락: 010-\*\*\*\*-2222\)", events "단순 변심"/);
      expect(gone.code).toBe(1);
      expect(gone.failed).toEqual(expect.arrayContaining(['manifest_signature', 'certificate_facts']));
      expect(gone.stdout).toMatch(/the audit certificate lists \d+ events \(status declined\), the log has \d+: missing ParticipantDeclined at revision \d+/);
    } finally {
      bundle = original;
    }
  }, CHILD_TIMEOUT);

  it("an auditor's bundle masks phone numbers and e-mail addresses in decline and cancel reasons as /history, /events and the certificate do, and still verifies offline (issue 31 item 6)", async () => {
    const auditorKey = (await t.admin.issueKey(org.id, 'test', 'auditor')).secret;
    const auditor = client(t, auditorKey);
    const declined = await sentWith(c, [{ name: '서지우', email: 'jiwoo.seo@example.com' }]);
    expectStatus(await signer(t, declined.p['서지우'].token).decline('조건이 다릅니다. 문의 010-5555-6666, jiwoo.private@example.com'), 200);
    const canceled = await sentWith(c, [{ name: '윤도현', email: 'dohyun.yoon@example.com' }]);
    expectStatus(await c.post(`/documents/${canceled.id}/cancel`, { reason: '재발송 예정 (담당: 02-3456-7890)' }), 200);
    const masked = { declined: `조건이 다릅니다. 문의 010-****-6666, ${maskEmail('jiwoo.private@example.com')}`, canceled: '재발송 예정 (담당: 023-***-7890)' };

    for (const [doc, reason, raw, token] of [
      [declined, masked.declined, ['010-5555-6666', '01055556666', 'jiwoo.private@example.com'], '010-****-6666'],
      [canceled, masked.canceled, ['02-3456-7890', '0234567890'], '023-***-7890'],
    ] as const) {
      const zip = (await download(doc.id, auditorKey).expect(200)).body as Buffer;
      const files = unzip(zip);
      const events = files['events.jsonl'].toString('utf8');
      for (const text of raw) expect(events).not.toContain(text);
      expect(events).toContain(reason);
      const manifest = JSON.parse(files['manifest.json'].toString('utf8'));
      const conclusion = events.trim().split('\n').map((l) => JSON.parse(l)).filter((e) => ['ParticipantDeclined', 'DocumentDeclined', 'DocumentCanceled'].includes(e.type) && JSON.stringify(e.data).includes(reason));
      expect(conclusion.length).toBeGreaterThan(0);
      for (const e of conclusion) expect(manifest.redacted_events).toContain(e.stream_revision);
      // The certificate prints the same text, and the seal's facts hold it masked too.
      // (The table's columns interleave in pdftotext's output: the masked number is checked whole.)
      const certificate = pdftotext(files['audit-certificate.pdf']);
      expect(certificate).toContain(token);
      for (const text of raw) expect(certificate).not.toContain(text);
      const verdict = await verify(zip, `auditor-${doc.id}`);
      expect(verdict).toMatchObject({ code: 0, failed: [] });
      // /history and /events read by the auditor say exactly the same.
      const history = JSON.stringify(expectStatus(await auditor.get(`/documents/${doc.id}/history`), 200).body);
      const publicEvents = JSON.stringify(expectStatus(await auditor.get(`/events?document_id=${doc.id}`), 200).body);
      for (const read of [history, publicEvents]) {
        for (const text of raw) expect(read).not.toContain(text);
      }
      expect(history).toContain(reason);
    }
  }, CHILD_TIMEOUT);

  it('a truncated ZIP, or no file at all, is unreadable input: exit 2', async () => {
    const cut = await verify(bundle.subarray(0, Math.floor(bundle.length / 2)), 'truncated');
    expect(cut.code).toBe(2);
    expect(cut.stderr).toMatch(/unreadable evidence bundle/);
    const garbage = await verify(Buffer.from('not a zip'), 'garbage');
    expect(garbage.code).toBe(2);
  }, CHILD_TIMEOUT);

  it('a document not yet completed still gets a bundle of what exists, and says so', async () => {
    const built = await sentWith(c, [{ name: '박지훈' }]);
    const files = unzip((await download(built.id, org.test).expect(200)).body);
    expect(Object.keys(files).sort()).toEqual(['audit-certificate.pdf', 'deliveries.jsonl', 'events.jsonl', 'manifest.json', 'manifest.json.jws', 'original.pdf', 'signing-chain.pem']);
    const manifest = manifestOf(files);
    expect(manifest).toMatchObject({ completed: false, status: 'sent' });
    expect(manifest.note).toMatch(/not completed/);
    const v = await verify(zip(files), 'sent');
    expect(v).toMatchObject({ code: 0, failed: [] });
    expect(v.stdout).toContain('Document not completed');
  }, CHILD_TIMEOUT);

  it('is scoped to the organization and mode: another organization gets 404', async () => {
    const other = await t.createOrg('Other Corp');
    expectError(await t.http.get(`/v1/documents/${documentId}/evidence`).set(bearer(other.test)), 404, 'document_not_found');
    expectError(await t.http.get(`/v1/documents/${documentId}/evidence`).set(bearer(org.live)), 404, 'document_not_found');
    expectError(await t.http.get(`/v1/documents/not-a-uuid/evidence`).set(bearer(org.test)), 404, 'document_not_found');
  });

  it('is in the OpenAPI reference as a ZIP download', async () => {
    const spec = expectStatus(await t.http.get('/v1/openapi.json'), 200).body;
    const op = spec.paths['/documents/{id}/evidence'].get;
    expect(Object.keys(op.responses['200'].content)).toEqual(['application/zip']);
    expect(op.responses['404'] ?? op.responses.default).toBeDefined();
  });
});
