import { execFileSync } from 'child_process';
import { createHash, X509Certificate } from 'crypto';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { unzipSync } from 'fflate';
import { documentStreamId } from '@dojang/domain';
import { pdfsig } from '@dojang/pdf/testing/poppler';
import { createSoftHsmToken, SOFTHSM_MODULE, SoftHsmToken } from '@dojang/evidence/testing/soft-hsm';
import { verifyBundle } from '@dojang/verifier';
import { addParticipant, client, expectStatus, field } from '../support/api-helpers';
import { SIGNATURE } from '../support/lifecycle';
import { bearer, startTestApp, TestApp } from '../support/test-app';
import { binary } from '../files/file-helpers';

jest.setTimeout(120_000);

/**
 * With the installation's key in a SoftHSM2 token (SIGNING_KEY=pkcs11), the token signs the
 * evidence too, not only final PDFs: the completion's chain head, the seal of the conclusion,
 * the bundle manifest and the audit certificate's countersignature. The bundle's
 * signing-chain.pem is the token's certificate and dojang-verify passes every check with it.
 */
describe('evidence signed through the signing-key port (SoftHSM2)', () => {
  let dir: string;
  let t: TestApp;
  let certificate: Buffer;
  let hsm: SoftHsmToken | undefined;

  beforeAll(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'dojang-hsm-evidence-'));
    const openssl = (args: string[]) => execFileSync('openssl', args, { cwd: dir, stdio: 'pipe' });
    openssl(['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', 'key.pem', '-out', 'cert.pem', '-days', '30', '-sha256', '-subj', '/O=Dojang Test/CN=Dojang HSM Evidence Key']);
    certificate = new X509Certificate(fs.readFileSync(path.join(dir, 'cert.pem'))).raw;
    hsm = createSoftHsmToken('dojang-evidence', '424242', [{ pemKeyFile: path.join(dir, 'key.pem'), label: 'evidence', id: '02' }]);
    fs.writeFileSync(path.join(dir, 'pin'), '424242\n');
    // The key lives only in the token from here on.
    fs.rmSync(path.join(dir, 'key.pem'));
    t = await startTestApp({
      env: {
        SIGNING_KEY: 'pkcs11',
        SIGNING_PKCS11_MODULE: SOFTHSM_MODULE,
        SIGNING_PKCS11_TOKEN_LABEL: 'dojang-evidence',
        SIGNING_PKCS11_KEY_LABEL: 'evidence',
        SIGNING_PKCS11_PIN_FILE: path.join(dir, 'pin'),
        SIGNING_CERTIFICATE: path.join(dir, 'cert.pem'),
      },
    });
  }, 180_000);
  afterAll(async () => {
    await t?.close();
    hsm?.remove();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('the token signs the chain head, the seal, the manifest and the audit certificate; dojang-verify passes with its certificate', async () => {
    const key = (await t.createOrg()).test;
    const c = client(t, key);
    const doc = expectStatus(await c.post('/documents', { title: '근로계약서', content: '<p>갑과 을은 성실하게 이 계약을 이행한다.</p>' }), 201).body;
    const p = await addParticipant(c, doc.id, { auth: 'none', phone: undefined });
    expectStatus(await c.put(`/documents/${doc.id}/fields`, { fields: [field(p.id)] }), 200);
    const sent = expectStatus(await c.post(`/documents/${doc.id}/send`, {}), 200).body;
    const token = String(sent.participants[0].signing_url).split('/sign/')[1];
    expectStatus(await t.http.post(`/v1/signing/${token}/sign`).send({ consent: true, signature: SIGNATURE }), 200);

    const zip = (await t.http.get(`/v1/documents/${doc.id}/evidence`).set(bearer(key)).buffer(true).parse(binary).expect(200)).body as Buffer;
    const fingerprint = createHash('sha256').update(certificate).digest('hex');
    const events = await t.infra.events.readStream(documentStreamId(doc.id));
    const completed = events.find((e) => e.type === 'DocumentCompleted');
    const sealed = events.find((e) => e.type === 'DocumentCertified');
    expect((completed?.data as { chain_head: { certificate_sha256: string } }).chain_head.certificate_sha256).toBe(fingerprint);
    expect((sealed?.data as { certification: { certificate_sha256: string } }).certification.certificate_sha256).toBe(fingerprint);

    const files = unzipSync(new Uint8Array(zip));
    expect(new X509Certificate(Buffer.from(files['signing-chain.pem'])).raw.equals(certificate)).toBe(true);
    // The manifest's JWS names the token's certificate.
    const header = JSON.parse(Buffer.from(Buffer.from(files['manifest.json.jws']).toString('utf8').split('.')[0], 'base64url').toString('utf8'));
    expect(header['x5t#S256']).toBe(createHash('sha256').update(certificate).digest('base64url'));
    expect(pdfsig(Buffer.from(files['audit-certificate.pdf']))).toContain('Signer Certificate Common Name: Dojang HSM Evidence Key');

    const verdict = verifyBundle(zip);
    expect(verdict.checks.filter((x) => x.status === 'fail')).toEqual([]);
    for (const id of ['manifest_signature', 'head_proof', 'seal', 'pades', 'audit_certificate'] as const) {
      expect(verdict.checks.find((x) => x.id === id)?.status).toBe('pass');
    }
    expect(verdict.ok).toBe(true);

    // And the public verification recognises the final PDF as this service's.
    const final = Buffer.from(files['final.pdf']);
    const answer = expectStatus(await t.http.post('/v1/verify').attach('file', final, 'final.pdf'), 200).body;
    expect(answer).toMatchObject({ verdict: 'issued_unchanged', issued: true });
    expect(answer.signatures[0].by_this_service).toBe(true);
  });

  /**
   * Issue 31 item 3: the token pulled under the running server (its SoftHSM2 store moved out of
   * the token directory), then put back. While it is gone every operation that needs the key
   * answers 503 signing_unavailable with Retry-After, nothing is recorded and no other key signs;
   * once it is back the same requests succeed without a restart (the adapter re-initializes the
   * library and logs in again by itself). No software key is ever written.
   */
  it('a token pulled mid-run is a 503 with Retry-After, never a 500; put back, signing resumes without a restart', async () => {
    const key = (await t.createOrg()).test;
    const c = client(t, key);
    const sendOne = async (title: string) => {
      const doc = expectStatus(await c.post('/documents', { title, content: '<p>갑과 을은 성실하게 이 계약을 이행한다.</p>' }), 201).body;
      const p = await addParticipant(c, doc.id, { auth: 'none', phone: undefined });
      expectStatus(await c.put(`/documents/${doc.id}/fields`, { fields: [field(p.id)] }), 200);
      const sent = expectStatus(await c.post(`/documents/${doc.id}/send`, {}), 200).body;
      return { id: doc.id as string, token: String(sent.participants[0].signing_url).split('/sign/')[1] };
    };
    const before = await sendOne('출장 전 계약서');
    expectStatus(await t.http.post(`/v1/signing/${before.token}/sign`).send({ consent: true, signature: SIGNATURE }), 200);
    const pending = await sendOne('토큰 분리 중 계약서');

    const tokens = path.join(hsm!.dir, 'tokens');
    const [stored] = fs.readdirSync(tokens);
    const away = path.join(hsm!.dir, 'away');
    fs.renameSync(path.join(tokens, stored), away);
    try {
      const refusals = [
        await t.http.post(`/v1/signing/${pending.token}/sign`).send({ consent: true, signature: SIGNATURE }),
        await t.http.get(`/v1/documents/${before.id}/evidence`).set(bearer(key)),
        await t.http.get(`/v1/documents/${before.id}/file?audit=true`).set(bearer(key)),
      ];
      for (const res of refusals) {
        expect({ status: res.status, code: res.body?.error?.code }).toEqual({ status: 503, code: 'signing_unavailable' });
        expect(Number(res.headers['retry-after'])).toBeGreaterThan(0);
        expect(res.body.error.message).toMatch(/PKCS#11/);
      }
      // Nothing recorded: the signature that could not be sealed into a final PDF did not land.
      expect(expectStatus(await c.get(`/documents/${pending.id}`), 200).body.status).toBe('sent');
      expect((await t.infra.events.readStream(documentStreamId(pending.id))).some((e) => e.type === 'ParticipantSigned')).toBe(false);
    } finally {
      fs.renameSync(away, path.join(tokens, stored));
    }

    // Back: the very same requests succeed, in the same process.
    expectStatus(await t.http.post(`/v1/signing/${pending.token}/sign`).send({ consent: true, signature: SIGNATURE }), 200);
    expect(expectStatus(await c.get(`/documents/${pending.id}`), 200).body.status).toBe('completed');
    const zip = (await t.http.get(`/v1/documents/${before.id}/evidence`).set(bearer(key)).buffer(true).parse(binary).expect(200)).body as Buffer;
    expect(verifyBundle(zip).ok).toBe(true);

    // The token was the only key: no software key or passphrase was generated anywhere under DATA_DIR.
    const written: string[] = [];
    const walk = (dirPath: string) => {
      for (const entry of fs.readdirSync(dirPath, { withFileTypes: true })) {
        const full = path.join(dirPath, entry.name);
        if (entry.isDirectory()) walk(full);
        else written.push(path.relative(t.dataDir, full));
      }
    };
    walk(t.dataDir);
    expect(fs.existsSync(path.join(t.dataDir, 'signing'))).toBe(false);
    // secret.key is the server secret (link tokens, PINs: libs/application/src/secrets.ts), no signing key.
    expect(written.filter((f) => f !== 'secret.key' && /\.(p12|pfx|key|pem)$|passphrase/i.test(f))).toEqual([]);
  });
});
