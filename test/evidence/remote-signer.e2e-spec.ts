import { execFileSync } from 'child_process';
import { constants, createPrivateKey, privateEncrypt } from 'crypto';
import * as fs from 'fs';
import * as http from 'http';
import { AddressInfo } from 'net';
import * as os from 'os';
import * as path from 'path';
import { documentStreamId } from '@dojang/domain';
import { addParticipant, client, expectStatus, field } from '../support/api-helpers';
import { SIGNATURE } from '../support/lifecycle';
import { bearer, startTestApp, TestApp } from '../support/test-app';

jest.setTimeout(120_000);

/** DER DigestInfo prefix for SHA-256: what a KMS-shaped signer wraps the digest in (RFC 8017 §9.2). */
const SHA256_DIGEST_INFO = Buffer.from('3031300d060960864801650304020105000420', 'hex');

/**
 * Issue 31 item 3 with SIGNING_KEY=remote: a remote signer that fails at run time (answers 503,
 * then nothing at all) makes every operation that needs the key answer 503 signing_unavailable
 * with Retry-After — never a 500, never a software key instead — and the same requests succeed
 * once it answers again. The process never generates or writes a key of its own.
 */
describe('a remote signer that fails at run time (SIGNING_KEY=remote)', () => {
  let dir: string;
  let t: TestApp;
  let signer: http.Server;
  let mode: 'up' | 'failing' = 'up';

  beforeAll(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'dojang-remote-signer-'));
    execFileSync('openssl', ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', 'key.pem', '-out', 'cert.pem', '-days', '30', '-sha256', '-subj', '/O=Dojang Test/CN=Dojang Remote Key'], { cwd: dir, stdio: 'pipe' });
    const privateKey = createPrivateKey(fs.readFileSync(path.join(dir, 'key.pem')));
    // The KMS-shaped proxy: {digest} in, RSA PKCS #1 v1.5 over the DigestInfo out.
    signer = http.createServer((req, res) => {
      let body = '';
      req.on('data', (chunk) => (body += chunk));
      req.on('end', () => {
        if (mode === 'failing') {
          res.writeHead(503).end();
          return;
        }
        const digest = Buffer.from(JSON.parse(body).digest, 'base64');
        const signature = privateEncrypt({ key: privateKey, padding: constants.RSA_PKCS1_PADDING }, Buffer.concat([SHA256_DIGEST_INFO, digest]));
        res.writeHead(200, { 'Content-Type': 'application/json' }).end(JSON.stringify({ signature: signature.toString('base64') }));
      });
    });
    await new Promise<void>((resolve) => signer.listen(0, '127.0.0.1', resolve));
    t = await startTestApp({
      env: {
        SIGNING_KEY: 'remote',
        SIGNING_REMOTE_URL: `http://127.0.0.1:${(signer.address() as AddressInfo).port}/sign`,
        SIGNING_REMOTE_KEY_ID: 'projects/test/keys/dojang',
        SIGNING_CERTIFICATE: path.join(dir, 'cert.pem'),
      },
    });
  }, 180_000);
  afterAll(async () => {
    await t?.close();
    await new Promise((resolve) => signer?.close(resolve));
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('503 with Retry-After while the signer fails, nothing recorded; the same signature lands once it is back; no software key anywhere', async () => {
    const key = (await t.createOrg()).test;
    const c = client(t, key);
    const doc = expectStatus(await c.post('/documents', { title: '원격 서명 계약서', content: '<p>갑과 을은 성실하게 이 계약을 이행한다.</p>' }), 201).body;
    const p = await addParticipant(c, doc.id, { auth: 'none', phone: undefined });
    expectStatus(await c.put(`/documents/${doc.id}/fields`, { fields: [field(p.id)] }), 200);
    const sent = expectStatus(await c.post(`/documents/${doc.id}/send`, {}), 200).body;
    const token = String(sent.participants[0].signing_url).split('/sign/')[1];

    mode = 'failing';
    const refused = await t.http.post(`/v1/signing/${token}/sign`).send({ consent: true, signature: SIGNATURE });
    expect({ status: refused.status, code: refused.body?.error?.code }).toEqual({ status: 503, code: 'signing_unavailable' });
    expect(Number(refused.headers['retry-after'])).toBeGreaterThan(0);
    expect(refused.body.error.message).toMatch(/remote signer .* answered HTTP 503/);
    expect((await t.infra.events.readStream(documentStreamId(doc.id))).some((e) => e.type === 'ParticipantSigned')).toBe(false);

    mode = 'up';
    expectStatus(await t.http.post(`/v1/signing/${token}/sign`).send({ consent: true, signature: SIGNATURE }), 200);
    expect(expectStatus(await c.get(`/documents/${doc.id}`), 200).body.status).toBe('completed');
    // The evidence (chain head, seal, manifest, countersignature) is signed remotely too.
    expectStatus(await t.http.get(`/v1/documents/${doc.id}/evidence`).set(bearer(key)), 200);

    // No software key was made to stand in for the remote one.
    expect(fs.existsSync(path.join(t.dataDir, 'signing'))).toBe(false);
  });
});
