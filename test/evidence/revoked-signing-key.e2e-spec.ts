import { execFile } from 'child_process';
import { createHash } from 'crypto';
import * as fs from 'fs';
import * as path from 'path';
import { promisify } from 'util';
import { documentDecider, documentStreamId } from '@dojang/domain';
import { extendPades } from '@dojang/evidence/pades-ltv';
import { runPdfWorkOnThisThread } from '@dojang/pdf';
import { LocalPki, startLocalPki } from '@dojang/evidence/testing/local-pki';
import { formatVerdict, verifyBundle, verifyLtv } from '@dojang/verifier';
import { expectError, expectStatus } from '../support/api-helpers';
import { sentToOneSigner as sentDocument, SIGNATURE } from '../support/lifecycle';
import { bearer, startTestApp, TestApp, TestOrg } from '../support/test-app';
import { binary } from '../files/file-helpers';

/**
 * A revoked signing certificate (issue 31, items 1 and 2), with a local CA, TSA, OCSP responder and
 * CRL (OpenSSL, made at test time): an organization's own certificate signs a document, is then
 * revoked (keyCompromise), and
 * - the next completion answers 503 signing_certificate_invalid, records nothing, logs one error
 *   and moves a metric, and completes once the organization removes the certificate;
 * - the PDF signed before the revocation, carrying a "good" response, verifies everywhere and
 *   names its signer, fingerprint, chain and proven time;
 * - the same PDF once its DSS says the key was revoked before the signature's time (a backdated
 *   keyCompromise, embedded by an archive round) fails in the public verifier, the bundle's
 *   verifier (dojang-verify), `cli verify` and verifyLtv, each naming the revocation.
 * Embedded store only: no store behaviour is at stake.
 */
jest.setTimeout(180_000);

const run = promisify(execFile);
const VERIFY = path.join(__dirname, '..', '..', 'scripts', 'dojang-verify.js');
/** dojang-verify as a separate program: exit code and what it printed. */
const dojangVerify = (args: string[]) =>
  run(process.execPath, [VERIFY, ...args], { env: { PATH: process.env.PATH ?? '' }, timeout: 90_000 }).then(
    ({ stdout }) => ({ code: 0, stdout }),
    (err: { code?: number; stdout?: string }) => ({ code: err.code ?? -1, stdout: err.stdout ?? '' }),
  );
const der = (pem: string) => Buffer.from(pem.replace(/-----[A-Z ]+-----|\s+/g, ''), 'base64');
const sha256 = (b: Buffer) => createHash('sha256').update(b).digest('hex');

describe('a revoked signing certificate', () => {
  let pki: LocalPki;
  let t: TestApp;
  let org: TestOrg;
  let acme: { p12: Buffer; certPem: string };
  let signedBefore: { id: string; pdf: Buffer };
  const errors: string[] = [];

  const complete = (token: string) => t.http.post(`/v1/signing/${token}/sign`).send({ consent: true, signature: SIGNATURE });
  const finalPdf = async (id: string) => (await t.http.get(`/v1/documents/${id}/file`).set(bearer(org.test)).buffer(true).parse(binary).expect(200)).body as Buffer;
  const publicVerify = async (pdf: Buffer) => expectStatus(await t.http.post('/v1/verify').attach('file', pdf, { filename: 'final.pdf', contentType: 'application/pdf' }), 200).body;
  const bundle = async (id: string) => (await t.http.get(`/v1/documents/${id}/evidence`).set(bearer(org.test)).buffer(true).parse(binary).expect(200)).body as Buffer;

  beforeAll(async () => {
    pki = await startLocalPki();
    t = await startTestApp({ env: { TSA_URL: pki.tsaUrl, SIGNING_P12: pki.path('signer.p12'), SIGNING_P12_PASSWORD: pki.passphrase }, config: { metricsToken: 'metrics-secret' } });
    const error = t.infra.logger.error.bind(t.infra.logger);
    jest.spyOn(t.infra.logger, 'error').mockImplementation(((obj: unknown, msg?: string) => {
      errors.push(String(msg ?? ''));
      return error(obj as object, msg as string);
    }) as typeof t.infra.logger.error);
    org = await t.createOrg();
    acme = pki.issueSigner('acme', '/C=KR/O=Acme/CN=Acme Document Signing');
    expectStatus(await t.http.put('/v1/organization/signing_certificate').set(bearer(org.test)).send({ p12: acme.p12.toString('base64'), password: pki.passphrase }), 200);
  }, 120_000);
  afterAll(async () => {
    await t.close();
    await pki.close();
  });

  it('signed before revocation, with a good response in its DSS: every verifier passes and names the signer, its fingerprint, chain and proven time', async () => {
    const { id, token } = await sentDocument(t, org.test, '근로계약서');
    expectStatus(await complete(token), 200);
    const pdf = await finalPdf(id);
    signedBefore = { id, pdf };
    const fingerprint = sha256(der(acme.certPem));
    expect(verifyLtv(pdf)).toMatchObject({ ok: true, level: 'B-LTA' });

    const verified = await publicVerify(pdf);
    expect(verified).toMatchObject({ verdict: 'issued_unchanged' });
    expect(verified.signatures[0]).toMatchObject({
      kind: 'signature',
      valid: true,
      certificate_sha256: fingerprint,
      chain: [{ subject: 'C=KR, O=Acme, CN=Acme Document Signing', sha256: fingerprint }, { subject: 'C=KR, O=Dojang Test, CN=Dojang Test Root CA', sha256: sha256(pki.caDer) }],
      proven_at: expect.any(String),
      revocation: expect.stringMatching(/^OCSP good at/),
      standing_problem: null,
    });

    const zip = await bundle(id);
    const plain = verifyBundle(zip);
    expect(plain.checks.filter((c) => c.status === 'fail')).toEqual([]);
    const pades = plain.checks.find((c) => c.id === 'pades')!;
    expect(pades.en).toContain(`Acme Document Signing (SHA-256 ${fingerprint})`);
    expect(pades.en).toMatch(/proven to exist at \d{4}-\d\d-\d\dT[\d:.]+Z \(signature timestamp\)/);
    expect(pades.en).toContain('untrusted issuer: no trust anchor given');
    expect(pades.ko).toContain(`인증서 SHA-256 ${fingerprint}`);
    const trusted = verifyBundle(zip, { trustAnchors: [pki.caDer] });
    expect(trusted.ok).toBe(true);
    expect(trusted.checks.find((c) => c.id === 'pades')!.en).toContain('trusted: the chain reaches the anchor C=KR, O=Dojang Test, CN=Dojang Test Root CA');
    // A look-alike: a chain that does not reach the anchor the verifier was given.
    const otherAnchor = der(pki.signerCertPem);
    const untrusted = verifyBundle(zip, { trustAnchors: [otherAnchor] });
    expect(untrusted.checks.find((c) => c.id === 'pades')).toMatchObject({ status: 'fail', en: expect.stringContaining('the chain does not reach any trust anchor given') });

    // The dojang-verify program itself, as an auditor runs it: no anchor says "untrusted issuer"
    // plainly and passes; --trust with the CA's PEM says trusted; --trust with another certificate fails.
    const zipFile = path.join(pki.dir, 'bundle.zip');
    fs.writeFileSync(zipFile, zip);
    const plainRun = await dojangVerify([zipFile]);
    expect(plainRun.code).toBe(0);
    expect(plainRun.stdout).toContain(`C=KR, O=Acme, CN=Acme Document Signing (SHA-256 ${fingerprint})`);
    expect(plainRun.stdout).toContain(`chain: C=KR, O=Dojang Test, CN=Dojang Test Root CA (SHA-256 ${sha256(pki.caDer)})`);
    expect(plainRun.stdout).toMatch(/proven to exist at \d{4}-\d\d-\d\dT[\d:.]+Z \(signature timestamp\)/);
    expect(plainRun.stdout).toContain('untrusted issuer: no trust anchor given');
    const trustedRun = await dojangVerify(['--trust', pki.path('ca.pem'), zipFile]);
    expect(trustedRun.code).toBe(0);
    expect(trustedRun.stdout).toContain('trusted: the chain reaches the anchor C=KR, O=Dojang Test, CN=Dojang Test Root CA');
    const otherPem = path.join(pki.dir, 'look-alike-anchor.pem');
    fs.writeFileSync(otherPem, pki.signerCertPem);
    const untrustedRun = await dojangVerify([`--trust=${otherPem}`, zipFile]);
    expect(untrustedRun.code).toBe(1);
    expect(untrustedRun.stdout).toContain('untrusted issuer: the chain does not reach any trust anchor given');

    type Cli = { intact: boolean; checks: Array<{ check: string; status: string; detail: string }> };
    const finalCheck = (v: unknown) => (v as Cli).checks.find((c) => c.check === 'final_pdf_signature');
    const cli = await t.admin.verifyDocument(id);
    expect(cli).toMatchObject({ found: true, intact: true });
    expect(finalCheck(cli)).toMatchObject({
      status: 'ok',
      detail: expect.stringMatching(/^signed by C=KR, O=Acme, CN=Acme Document Signing \(SHA-256 [0-9a-f]{64}\) ← .*; proven to exist at .*; revocation: OCSP good at .*; untrusted issuer: no trust anchor given/),
    });
    // cli verify --trust: the same anchors judge the final PDF's chain.
    const trustedCli = await t.admin.verifyDocument(id, { trustAnchors: [pki.caDer] });
    expect(trustedCli).toMatchObject({ intact: true });
    expect(finalCheck(trustedCli)?.detail).toContain('trusted: the chain reaches the anchor C=KR, O=Dojang Test, CN=Dojang Test Root CA');
    const untrustedCli = await t.admin.verifyDocument(id, { trustAnchors: [otherAnchor] });
    expect(untrustedCli).toMatchObject({ intact: false });
    expect(finalCheck(untrustedCli)).toMatchObject({ status: 'failed', detail: expect.stringContaining('untrusted issuer: the chain does not reach any trust anchor given') });
  });

  it('revoked: completion answers 503 signing_certificate_invalid with the reason, records nothing, logs one error, moves a metric, and completes once the certificate is removed', async () => {
    pki.revoke('acme');
    const { id, token } = await sentDocument(t, org.test, '위임장');
    errors.length = 0;
    const res = await complete(token);
    expectError(res, 503, 'signing_certificate_invalid');
    expect(res.body.error.message).toMatch(/Acme Document Signing .* is revoked: OCSP: revoked .*\(keyCompromise\)/);
    expect(res.headers['retry-after']).toBeDefined();
    const types = (await t.infra.events.readStream(documentStreamId(id))).map((e) => e.type);
    expect(types).not.toContain('ParticipantSigned');
    expect(types).not.toContain('DocumentCompleted');
    expect(errors).toEqual(['signing_certificate_invalid']);
    const metrics = (await t.http.get('/metrics').set('Authorization', 'Bearer metrics-secret').expect(200)).text;
    expect(metrics).toMatch(/dojang_signing_certificate_refusals_total\{reason="revoked"\} 1/);

    // The organization removes its certificate: the platform's (valid) key signs the same request.
    expectStatus(await t.http.delete('/v1/organization/signing_certificate').set(bearer(org.test)), 200);
    expectStatus(await complete(token), 200);
    expect((await t.infra.events.readStream(documentStreamId(id))).map((e) => e.type)).toContain('DocumentCompleted');
  });

  it('a PDF whose DSS says revoked at its signing time fails in all four verifiers, naming the reason', async () => {
    const { id, pdf } = signedBefore;
    const provenAt = Date.parse((await publicVerify(pdf)).signatures[0].proven_at);
    // keyCompromise backdated to before the signature (the compromise found later), then an
    // archive round embeds the responder's answer (the archive embeds what it finds).
    pki.revoke('acme', { at: new Date(provenAt - 60_000) });
    const archived = await runPdfWorkOnThisThread(() => extendPades(pdf, { tsaUrl: pki.tsaUrl, level: 'B-LTA', refuseRevoked: false }));
    const blob = await t.infra.blobs.put(archived);
    const { state } = await t.infra.commands.load(documentDecider, documentStreamId(id));
    await t.infra.commands.decide(
      documentDecider,
      documentStreamId(id),
      {
        type: 'ArchiveTimestampDocument',
        now: new Date().toISOString(),
        previous_final_sha256: state.final_pdf!.sha256,
        final_pdf: { sha256: blob.sha256, byte_size: blob.byte_size },
        timestamped_at: new Date().toISOString(),
        tsa_certificate_expires_at: new Date(Date.now() + 300 * 86_400_000).toISOString(),
      },
      { actor: 'system', organization_id: org.id, livemode: false },
      () => new Date().toISOString(),
    );
    await t.infra.projections.catchUp();

    expect(verifyLtv(archived)).toMatchObject({ ok: false, findings: expect.arrayContaining([expect.stringMatching(/✗ the signer certificate was revoked before the signature's time: OCSP: revoked .*\(keyCompromise\)/)]) });

    const verified = await publicVerify(archived);
    expect(verified).toMatchObject({ verdict: 'issued_signature_invalid', issued: true, unchanged: true });
    expect(verified.signatures[0]).toMatchObject({ valid: false, standing_problem: expect.stringMatching(/revoked at the signature's time: OCSP: revoked .*\(keyCompromise\)/) });

    const verdict = verifyBundle(await bundle(id));
    expect(verdict.ok).toBe(false);
    expect(verdict.checks.find((c) => c.id === 'pades')).toMatchObject({ status: 'fail', en: expect.stringMatching(/revoked at the signature's time: OCSP: revoked .*\(keyCompromise\)/) });
    expect(formatVerdict(verdict)).toMatch(/Verdict: verification FAILED \(.*pades.*\)/);

    const cli = (await t.admin.verifyDocument(id)) as { intact: boolean; checks: Array<{ check: string; status: string; detail: string }> };
    expect(cli.intact).toBe(false);
    expect(cli.checks.find((c) => c.check === 'final_pdf_signature')).toMatchObject({ status: 'failed', detail: expect.stringMatching(/revoked at the signature's time: OCSP: revoked .*\(keyCompromise\)/) });
  });
});
