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

describe('configured revocation sources (REVOCATION_OCSP_URLS)', () => {
  let pki: LocalPki;
  let t: TestApp;
  let org: TestOrg;

  const complete = (token: string) => t.http.post(`/v1/signing/${token}/sign`).send({ consent: true, signature: SIGNATURE });

  beforeAll(async () => {
    pki = await startLocalPki();
    t = await startTestApp({ env: { REVOCATION_OCSP_URLS: pki.ocspUrl } });
    org = await t.createOrg();
    const bare = pki.issueSigner('bare', '/C=KR/O=Bare/CN=Bare Document Signing', { names_sources: false });
    expectStatus(await t.http.put('/v1/organization/signing_certificate').set(bearer(org.test)).send({ p12: bare.p12.toString('base64'), password: pki.passphrase }), 200);
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
