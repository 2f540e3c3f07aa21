import { execFile } from 'child_process';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { promisify } from 'util';
import { unzipSync, zipSync } from 'fflate';
import { pdfFixture, manyObjectsPdf } from '@dojang/pdf/testing/fixtures';
import { decompressionBombPdf } from '@dojang/pdf/testing/bomb-pdf';
import { MAX_PDF_OBJECTS } from '@dojang/pdf/rendering';
import { client, Client, expectError, expectStatus } from '../support/api-helpers';
import { expectApiError, sentWith, signer } from '../support/lifecycle';
import { bearer, startTestApp, TestApp, TestOrg } from '../support/test-app';
import { binary, blobFiles, sha256 } from '../files/file-helpers';

const MINJUN = { name: '김민준', email: 'minjun.kim@example.com', phone: '010-2345-6789' };
const SEOYEON = { name: '이서연', email: 'seoyeon.lee@example.com', phone: '010-9876-5432' };
const PER_MINUTE = 4;
const run = promisify(execFile);
const ROOT = path.join(__dirname, '..', '..');
// eslint-disable-next-line @typescript-eslint/no-require-imports
const verifierBuild = require(path.join(ROOT, 'scripts', 'build-verifier.js')) as { build(): string; pack(destination: string): string };

/**
 * POST /v1/verify: anyone (no API key) drops a PDF and learns whether this service issued it
 * unchanged, whether its signatures hold and whether its document's log verifies, with the
 * participants masked as the audit certificate masks them, and nothing more. Each test speaks from
 * a client address of its own (X-Forwarded-For from loopback is trusted), so the per-address
 * limit counts only its own requests.
 */
describe('POST /v1/verify (public verification)', () => {
  let t: TestApp;
  let org: TestOrg;
  let c: Client;
  let documentId: string;
  let finalPdf: Buffer;
  let auditPdf: Buffer;
  let address = 10;

  /** A fresh client address per call site, so no test spends another's budget. */
  const from = () => `198.51.100.${address++}`;
  const verify = (bytes: Buffer, ip = from(), filename = 'contract.pdf') =>
    t.http.post('/v1/verify').set('X-Forwarded-For', ip).attach('file', bytes, { filename, contentType: 'application/pdf' }).then((r) => r);
  const download = (path: string) => t.http.get(path).set(bearer(org.test)).buffer(true).parse(binary).then((r) => r.body as Buffer);

  beforeAll(async () => {
    t = await startTestApp({ config: { verifyRateLimitPerMinute: PER_MINUTE } });
    org = await t.createOrg();
    c = client(t, org.test);
        // One signer and a cc: the least PDF work (one final PDF) that still shows two masked participants.
    const built = await sentWith(c, [MINJUN, { ...SEOYEON, role: 'cc', fields: [] }]);
    documentId = built.id;
    expectStatus(await signer(t, built.p[MINJUN.name].token).sign(), 200);
    expect(expectStatus(await c.get(`/documents/${documentId}`), 200).body.status).toBe('completed');
    await t.infra.runner.catchUp();
    finalPdf = await download(`/v1/documents/${documentId}/file`);
    auditPdf = await download(`/v1/documents/${documentId}/file?audit=true`);
  }, 120_000);
  afterAll(async () => {
    await t?.close();
  });

  it('a completed document\'s final PDF: issued, unchanged, signature valid, log verified, participants masked, no ids', async () => {
    const res = expectStatus(await verify(finalPdf), 200);
    const body = res.body;
    expect(body).toMatchObject({
      object: 'pdf_verification',
      verdict: 'issued_unchanged',
      issued: true,
      unchanged: true,
      matched_by: 'final_pdf_hash',
      sha256: sha256(finalPdf),
      ltv: { dss: false, revocation_data: false, document_timestamp: false },
    });
    expect(body.signatures).toEqual([expect.objectContaining({ kind: 'signature', valid: true, covers_whole_file: true, by_this_service: true })]);
    expect(body.document).toMatchObject({ livemode: false, chain_verified: true, completed_at: expect.any(String) });
    expect(body.document.participants).toEqual([
      { name: MINJUN.name, role: 'signer', phone_masked: '010-****-6789', email_masked: expect.stringMatching(/^m\*+@example\.com$/), signed_at: expect.any(String) },
      { name: SEOYEON.name, role: 'cc', phone_masked: '010-****-5432', email_masked: expect.stringMatching(/^s\*+@example\.com$/), signed_at: null },
    ]);
    // Nothing more: no document, participant or organization id, no full contact anywhere in the answer.
    const text = JSON.stringify(body);
    for (const secret of [documentId, org.id, MINJUN.email, SEOYEON.email, '2345-6789', '9876-5432']) expect(text).not.toContain(secret);
    expect(text).not.toMatch(/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/);
    expect(res.headers['ratelimit-limit']).toBe(String(PER_MINUTE));
  });

  it('one byte changed: altered, its signature no longer valid, nothing about the document', async () => {
    const altered = Buffer.from(finalPdf);
    // A byte inside the first page's content, well before the signature.
    altered[Math.floor(altered.length / 3)] ^= 0x01;
    const body = expectStatus(await verify(altered), 200).body;
    expect(body).toMatchObject({ verdict: 'altered', issued: false, unchanged: false, matched_by: null, document: null, sha256: sha256(altered) });
    expect(body.signatures[0]).toMatchObject({ valid: false, by_this_service: true });
  });

  it('the audit certificate version (countersigned whole by this service) is issued and unchanged by its chain head proof', async () => {
    const body = expectStatus(await verify(auditPdf), 200).body;
    expect(body).toMatchObject({ verdict: 'issued_unchanged', issued: true, unchanged: true });
    expect(['chain_head_proof', 'signature']).toContain(body.matched_by);
    expect(body.signatures[body.signatures.length - 1]).toMatchObject({ valid: true, covers_whole_file: true, by_this_service: true });
  });

  it('a PDF this service never issued: not issued', async () => {
    const body = expectStatus(await verify(pdfFixture('chromium-korean-contract-a4.pdf')), 200).body;
    expect(body).toMatchObject({ verdict: 'not_issued', issued: false, unchanged: null, matched_by: null, signatures: [], document: null });
  });

  it('bad input: 4xx with the error envelope, nothing stored, no event written', async () => {
    const blobs = blobFiles(t).length;
    const head = await t.infra.events.headPosition();
    expectError(await verify(Buffer.from('<html>not a pdf</html>'), from(), 'x.pdf'), 415, 'unsupported_file_type', 'file');
    expectError(await verify(Buffer.alloc(0)), 415, 'unsupported_file_type', 'file');
    const encrypted = expectError(await verify(pdfFixture('encrypted-needs-password.pdf')), 415, 'unsupported_file_type', 'file');
    expect(String(encrypted.message)).toMatch(/encrypt/i);
    expectError(await verify(decompressionBombPdf(1024)), 413, 'file_too_complex', 'file');
    expectError(await verify(manyObjectsPdf(MAX_PDF_OBJECTS + 10)), 413, 'file_too_complex', 'file');
    expectError(await verify(Buffer.alloc(33 * 1024 * 1024, 0x25)), 413, 'file_too_large', 'file');
    expectError(await t.http.post('/v1/verify').set('X-Forwarded-For', from()).send({ file: 'x' }).then((r) => r), 400, 'missing_parameter', 'file');
    expect(blobFiles(t)).toHaveLength(blobs);
    expect(await t.infra.events.headPosition()).toBe(head);
  });

  it('is limited per client address in a bucket of its own: 429 past the limit, another address still served', async () => {
    // On an app of its own with a manual clock: the window is a clock minute, and on the real clock
    // a loaded run's requests crossed into the next one and were counted afresh (415, not 429).
    const limited = await startTestApp({ manualClock: true, worker: false, config: { verifyRateLimitPerMinute: PER_MINUTE } });
    try {
      limited.clock!.set('2026-03-02T09:00:10.000Z');
      const tiny = Buffer.from('%PDF-1.7 not really');
      const post = (ip: string) => limited.http.post('/v1/verify').set('X-Forwarded-For', ip).attach('file', tiny, { filename: 'contract.pdf', contentType: 'application/pdf' }).then((r) => r);
      const ip = from();
      for (let i = 0; i < PER_MINUTE; i++) expect((await post(ip)).status).toBe(415);
      const refused = await post(ip);
      expectApiError(refused, 429, 'rate_limit_error');
      expect(Number(refused.headers['retry-after'])).toBeGreaterThan(0);
      expect((await post(from())).status).toBe(415);
      // The general limit for requests without a key is another bucket: the page still loads.
      expect((await limited.http.get('/verify').set('X-Forwarded-For', ip)).status).toBe(200);
    } finally {
      await limited.close();
    }
  });

  it('the self-contained dojang-verify, outside the repository, passes this document\'s evidence bundle with plain node and with npx from its packed tarball', async () => {
    const bundle = await download(`/v1/documents/${documentId}/evidence`);
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'dojang-verify-standalone-'));
    try {
      expect(path.relative(ROOT, dir).startsWith('..')).toBe(true);
      const built = verifierBuild.build();
      fs.copyFileSync(built, path.join(dir, 'dojang-verify.js'));
      const tarball = verifierBuild.pack(dir);
      fs.writeFileSync(path.join(dir, 'evidence.zip'), bundle);
      // One byte of the final PDF changed: the verifier must say so (exit 1), not pass it.
      const files = unzipSync(bundle);
      files['final.pdf'] = Buffer.from(files['final.pdf']);
      files['final.pdf'][100] ^= 0x01;
      fs.writeFileSync(path.join(dir, 'tampered.zip'), Buffer.from(zipSync(files)));
      // Nothing of the checkout: a bare environment, a directory with no node_modules, an npm cache of its own, offline.
      const env = { PATH: process.env.PATH ?? '', HOME: dir, npm_config_cache: path.join(dir, 'npm-cache'), npm_config_update_notifier: 'false' };
      const exec = (file: string, args: string[]) =>
        run(file, args, { cwd: dir, env, timeout: 120_000 }).then(
          (r) => ({ code: 0, stdout: r.stdout }),
          (e: { code: number; stdout: string }) => ({ code: e.code, stdout: e.stdout }),
        );
      const plain = await exec(process.execPath, ['dojang-verify.js', 'evidence.zip']);
      expect(plain.stdout).toContain('Verdict: every check passed.');
      expect(plain.code).toBe(0);
      expect((await exec(process.execPath, ['dojang-verify.js', 'tampered.zip'])).code).toBe(1);
      const viaNpx = await exec('npx', ['--yes', '--offline', `--package=${tarball}`, 'dojang-verify', 'evidence.zip']);
      expect(viaNpx.stdout).toContain('Verdict: every check passed.');
      expect(viaNpx.code).toBe(0);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  }, 240_000);

  it('serves the page under the strict CSP, never framed', async () => {
    const page = await t.http.get('/verify');
    expect(page.status).toBe(200);
    expect(page.headers['content-type']).toMatch(/^text\/html/);
    expect(page.headers['content-security-policy']).toContain("script-src 'self'");
    expect(page.headers['content-security-policy']).toContain("frame-ancestors 'none'");
    expect(page.headers['content-security-policy']).not.toMatch(/unsafe-inline|https?:/);
    expect(page.text).not.toMatch(/<script(?![^>]*\bsrc=)[^>]*>/);
    expect((await t.http.get('/verify/assets/verify.js')).status).toBe(200);
    expectError(await t.http.get('/verify/assets/nope.js'), 404, 'resource_not_found');
  });
});
