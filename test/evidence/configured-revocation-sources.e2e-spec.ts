import { execFileSync } from 'child_process';
import { readFileSync } from 'fs';
import { createServer, Server } from 'http';
import { AddressInfo } from 'net';
import { documentStreamId } from '@dojang/domain';
import { LocalPki, startLocalPki } from '@dojang/evidence/testing/local-pki';
import { expectError, expectStatus } from '../support/api-helpers';
import { sentToOneSigner as sentDocument, SIGNATURE } from '../support/lifecycle';
import { bearer, startTestApp, TestApp, TestOrg } from '../support/test-app';

/**
 * Configured revocation sources (issue 31 item 1's "when revocation sources are configured"):
 * an organization's certificate that names no OCSP responder or CRL of its own (no AIA/CDP) is
 * checked against REVOCATION_OCSP_URLS before every signature. Good: the document completes;
 * revoked: 503 signing_certificate_invalid, nothing recorded. Without the configured source such
 * a certificate was never checked at all, and a revoked key kept signing.
 */
jest.setTimeout(180_000);

/**
 * An app that checks signatures against `ocspUrl`, and an organization whose own certificate (from
 * `pki`) names no revocation source: the configured responder is the only one asked.
 */
async function appWithBareSigner(pki: LocalPki, ocspUrl: string): Promise<{ t: TestApp; org: TestOrg }> {
  const t = await startTestApp({ env: { REVOCATION_OCSP_URLS: ocspUrl } });
  const org = await t.createOrg();
  const bare = pki.issueSigner('bare', '/C=KR/O=Bare/CN=Bare Document Signing', { names_sources: false });
  expectStatus(await t.http.put('/v1/organization/signing_certificate').set(bearer(org.test)).send({ p12: bare.p12.toString('base64'), password: pki.passphrase }), 200);
  return { t, org };
}

describe('configured revocation sources (REVOCATION_OCSP_URLS)', () => {
  let pki: LocalPki;
  let t: TestApp;
  let org: TestOrg;

  const complete = (token: string) => t.http.post(`/v1/signing/${token}/sign`).send({ consent: true, signature: SIGNATURE });

  beforeAll(async () => {
    pki = await startLocalPki();
    ({ t, org } = await appWithBareSigner(pki, pki.ocspUrl));
  }, 120_000);
  afterAll(async () => {
    await t?.close();
    await pki?.close();
  });

  it('a certificate naming no source is asked of the configured responder: good completes, revoked is 503 and records nothing', async () => {
    const good = await sentDocument(t, org.test, '근로계약서');
    const asked = pki.served.ocsp;
    expectStatus(await complete(good.token), 200);
    expect(pki.served.ocsp).toBeGreaterThan(asked);
    expect(expectStatus(await t.http.get(`/v1/documents/${good.id}`).set(bearer(org.test)), 200).body.status).toBe('completed');

    pki.revoke('bare');
    const after = await sentDocument(t, org.test, '위임장');
    const res = await complete(after.token);
    expectError(res, 503, 'signing_certificate_invalid');
    expect(res.body.error.message).toMatch(/Bare Document Signing.* is revoked: OCSP: revoked .*\(keyCompromise\)/);
    expect(Number(res.headers['retry-after'])).toBeGreaterThan(0);
    expect(expectStatus(await t.http.get(`/v1/documents/${after.id}`).set(bearer(org.test)), 200).body.status).toBe('sent');
  });
});

/**
 * Issue 31, "Bad input", at signing, end to end: the configured responder answers an OCSP response
 * that is malformed, stale (next update passed), about another certificate or signed by a key the
 * CA never authorized for OCSP. Each is no revocation data: the completing signature answers 503
 * signing_unavailable with Retry-After and records nothing, never signing as if "good"; the same
 * request completes once the responder answers properly.
 */
describe('configured revocation sources answering bad data at signing', () => {
  let pki: LocalPki;
  let t: TestApp;
  let org: TestOrg;
  let responder: Server;
  /** What the responder answers to every request. */
  let answer: Buffer = Buffer.alloc(0);

  const complete = (token: string) => t.http.post(`/v1/signing/${token}/sign`).send({ consent: true, signature: SIGNATURE });
  /** `openssl ocsp` about `subject` (a PEM in the PKI's directory), signed by `rsigner`, optionally issued in the past (libfaketime). */
  const ocsp = (subject: string, options: { rsigner?: string; faketime?: string; days?: number } = {}) => {
    const name = `bad-${Math.random().toString(36).slice(2)}`;
    const openssl = (args: string[], faketime?: string) =>
      execFileSync(faketime ? 'faketime' : 'openssl', faketime ? ['-f', faketime, 'openssl', ...args] : args, { cwd: pki.dir, stdio: 'pipe' });
    openssl(['ocsp', '-issuer', 'ca.pem', '-cert', subject, '-no_nonce', '-reqout', `${name}.req`]);
    const rsigner = options.rsigner ?? 'ocsp';
    openssl(['ocsp', '-index', 'index.txt', '-rsigner', `${rsigner}.pem`, '-rkey', `${rsigner}.key`, '-CA', 'ca.pem', '-reqin', `${name}.req`, '-respout', `${name}.der`, '-ndays', String(options.days ?? 7)], options.faketime);
    return readFileSync(pki.path(`${name}.der`));
  };

  beforeAll(async () => {
    pki = await startLocalPki();
    responder = createServer((req, res) => {
      req.resume();
      req.on('end', () => res.writeHead(200, { 'Content-Type': 'application/ocsp-response' }).end(answer));
    });
    await new Promise<void>((resolve) => responder.listen(0, '127.0.0.1', resolve));
    ({ t, org } = await appWithBareSigner(pki, `http://127.0.0.1:${(responder.address() as AddressInfo).port}/ocsp`));
  }, 120_000);
  afterAll(async () => {
    await t?.close();
    await new Promise((resolve) => responder?.close(resolve));
    await pki?.close();
  });

  it('malformed, stale, foreign or wrongly signed: 503 signing_unavailable and nothing recorded each time; a good answer then completes the same request', async () => {
    const { id, token } = await sentDocument(t, org.test, '근로계약서');
    const cases: Array<[string, () => Buffer, RegExp]> = [
      ['malformed', () => Buffer.from('not an OCSP response'), /unreadable/],
      // Issued three days ago for one day: its next update has passed.
      ['stale', () => ocsp('bare.pem', { faketime: '-3d', days: 1 }), /stale/],
      ["about another certificate (the TSA's)", () => ocsp('tsa.pem'), /about another certificate/],
      ['signed by a key the CA did not authorize for OCSP', () => ocsp('bare.pem', { rsigner: 'signer' }), /not signed by the certificate's issuer or a responder it authorized/],
    ];
    for (const [what, data, reason] of cases) {
      answer = data();
      const res = await complete(token);
      expect({ what, status: res.status, code: res.body?.error?.code }).toEqual({ what, status: 503, code: 'signing_unavailable' });
      expect(res.body.error.message).toMatch(reason);
      expect(Number(res.headers['retry-after'])).toBeGreaterThan(0);
      const types = (await t.infra.events.readStream(documentStreamId(id))).map((e) => e.type);
      expect({ what, signed: types.includes('ParticipantSigned') }).toEqual({ what, signed: false });
    }
    answer = ocsp('bare.pem');
    expectStatus(await complete(token), 200);
    expect(expectStatus(await t.http.get(`/v1/documents/${id}`).set(bearer(org.test)), 200).body.status).toBe('completed');
  });
});
