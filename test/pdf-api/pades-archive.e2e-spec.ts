import { execFileSync } from 'child_process';
import { documentStreamId } from '@dojang/domain';
import { archiveTimerId, TIMERS, TimerRow } from '@dojang/application/timers';
import { pdfsig } from '@dojang/pdf/testing/poppler';
import { LocalPki, startLocalPki } from '@dojang/evidence/testing/local-pki';
import { verifyLtv, verifyPades } from '@dojang/verifier/pades';
import { verifyBundle } from '@dojang/verifier/verify-bundle';
import { unzipSync } from 'fflate';
import { addParticipant, client, expectStatus, field } from '../support/api-helpers';
import { SIGNATURE } from '../support/lifecycle';
import { bearer, startTestApp, TestApp } from '../support/test-app';
import { binary } from '../files/file-helpers';
import { createHash } from 'crypto';

const der = (pem: string) => Buffer.from(pem.replace(/-----[A-Z ]+-----|\s+/g, ''), 'base64');
const sha256 = (b: Buffer) => createHash('sha256').update(b).digest('hex');

/**
 * The archive job through the API and the worker: a completed B-LTA document whose newest
 * timestamp's certificate (the local TSA's, one year) expires within ARCHIVE_TIMESTAMP_MARGIN_DAYS
 * (400 here) gets a new document timestamp once the TSA has a renewed certificate; the earlier
 * signature stays valid; a second run adds nothing. The worker's loop is off: the test fires the
 * timers itself (worker.tick()).
 */
jest.setTimeout(120_000);

describe('the archive job re-timestamps a completed B-LTA document', () => {
  let pki: LocalPki;
  let t: TestApp;
  let key: string;

  beforeAll(async () => {
    pki = await startLocalPki();
    t = await startTestApp({
      env: { TSA_URL: pki.tsaUrl, SIGNING_P12: pki.path('signer.p12'), SIGNING_P12_PASSWORD: pki.passphrase, ARCHIVE_TIMESTAMP_MARGIN_DAYS: '400' },
      worker: { tickIntervalMs: 0 },
    });
    key = (await t.createOrg()).test;
  }, 180_000);
  afterAll(async () => {
    await t.close();
    await pki.close();
  });

  const file = async (id: string) => (await t.http.get(`/v1/documents/${id}/file`).set(bearer(key)).buffer(true).parse(binary).expect(200)).body as Buffer;
  const eventTypes = async (id: string) => (await t.infra.events.readStream(documentStreamId(id))).map((e) => e.type);

  async function timer(id: string, finalSha: string): Promise<TimerRow> {
    for (let i = 0; i < 400; i++) {
      const row = await t.infra.reads.get<TimerRow>(TIMERS, archiveTimerId(id, finalSha));
      if (row) return row;
      await new Promise((r) => setTimeout(r, 25));
    }
    throw new Error('no archive timer was written');
  }

  it('waits while the TSA has no renewed certificate, then adds a document timestamp; the signature stays valid; twice adds nothing', async () => {
    const c = client(t, key);
    const doc = expectStatus(await c.post('/documents', { title: '보관 계약서', content: '<p>장기 보존 대상 계약.</p>' }), 201).body;
    const p = await addParticipant(c, doc.id, { auth: 'none', phone: undefined });
    expectStatus(await c.put(`/documents/${doc.id}/fields`, { fields: [field(p.id)] }), 200);
    const sent = expectStatus(await c.post(`/documents/${doc.id}/send`, {}), 200).body;
    const token = String(sent.participants[0].signing_url).split('/sign/')[1];
    expectStatus(await t.http.post(`/v1/signing/${token}/sign`).send({ consent: true, signature: SIGNATURE }), 200);
    const first = await file(doc.id);
    expect(verifyLtv(first)).toMatchObject({ ok: true, level: 'B-LTA' });
    await timer(doc.id, sha256(first));
    const worker = t.worker!;

    // The TSA still signs with the certificate that is about to expire: a new timestamp would not
    // outlive the old one, so nothing is recorded and the timer waits.
    expect(await worker.tick()).toMatchObject({ fired: 0, errors: 0 });
    expect(await t.infra.reads.get<TimerRow>(TIMERS, archiveTimerId(doc.id, sha256(first)))).toMatchObject({ status: 'pending', outcome: 'tsa_certificate_not_renewed' });
    expect(await eventTypes(doc.id)).not.toContain('DocumentArchiveTimestamped');

    // The TSA renews its certificate (ten years, same key), and the timer is due again.
    execFileSync('openssl', ['x509', '-req', '-in', 'tsa.csr', '-CA', 'ca.pem', '-CAkey', 'ca.key', '-CAcreateserial', '-days', '3650', '-sha256', '-extfile', 'tsa.ext', '-out', 'tsa.pem'], { cwd: pki.dir, stdio: 'pipe' });
    const waiting = await t.infra.reads.get<TimerRow>(TIMERS, archiveTimerId(doc.id, sha256(first)));
    const now = new Date().toISOString();
    await t.infra.reads.putIfVersion(TIMERS, { ...waiting!, due_at: now, claimable_at: now }, waiting!._version ?? 0);
    expect(await worker.tick()).toMatchObject({ fired: 1, errors: 0 });

    const archived = await file(doc.id);
    expect(archived.length).toBeGreaterThan(first.length);
    expect(archived.subarray(0, first.length).equals(first)).toBe(true); // incremental: the earlier file is untouched
    const report = pdfsig(archived);
    expect(report).toMatch(/Signature #1:[\s\S]*Signer Certificate Common Name: Dojang Test Document Signing[\s\S]*Signature Validation: Signature is Valid\./);
    expect(report).toMatch(/Signature #3:\n\s+- Signature Field Name: Signature3\n\s+- Signer Certificate Common Name: Dojang Test TSA/);
    expect(verifyPades(archived, der(pki.signerCertPem))).toMatchObject({ ok: true, detail: expect.stringContaining('2 document timestamp(s)') });
    expect(verifyLtv(archived)).toMatchObject({ ok: true, level: 'B-LTA' });
    // Past the old TSA certificate, the file still validates: the newest timestamp outlives it.
    expect(verifyLtv(archived, new Date(Date.now() + 2 * 365 * 86400_000)).ok).toBe(true);

    const events = await t.infra.events.readStream(documentStreamId(doc.id));
    const recorded = events.filter((e) => e.type === 'DocumentArchiveTimestamped');
    expect(recorded).toHaveLength(1);
    expect(recorded[0].data).toMatchObject({
      final_pdf: { sha256: sha256(archived), byte_size: archived.length },
      previous_final_sha256: sha256(first),
      timestamped_at: expect.any(String),
      tsa_certificate_expires_at: expect.any(String),
    });
    expect(Date.parse(String(recorded[0].data.tsa_certificate_expires_at))).toBeGreaterThan(Date.now() + 9 * 365 * 86400_000);

    // The next archive is due 400 days before the renewed certificate expires: a second run adds nothing.
    const next = await timer(doc.id, sha256(archived));
    expect(Date.parse(next.due_at)).toBeGreaterThan(Date.now() + 8 * 365 * 86400_000);
    expect(await worker.tick()).toMatchObject({ fired: 0 });
    expect((await eventTypes(doc.id)).filter((type) => type === 'DocumentArchiveTimestamped')).toHaveLength(1);

    // The evidence bundle carries the newest file, and the offline verifier follows the archive events to it.
    const zip = (await t.http.get(`/v1/documents/${doc.id}/evidence`).set(bearer(key)).buffer(true).parse(binary).expect(200)).body as Buffer;
    const verdict = verifyBundle(zip);
    expect(verdict.checks.filter((check) => check.status === 'fail')).toEqual([]);
    expect(verdict).toMatchObject({ ok: true, completed: true });
    expect(sha256(Buffer.from(unzipSync(zip)['final.pdf']))).toBe(sha256(archived));

    // Both files were issued by this service: the public verify page recognises the newer one.
    const verified = expectStatus(await t.http.post('/v1/verify').attach('file', archived, { filename: 'archived.pdf', contentType: 'application/pdf' }), 200).body;
    expect(verified).toMatchObject({ verdict: 'issued_unchanged', issued: true });
  });
});
