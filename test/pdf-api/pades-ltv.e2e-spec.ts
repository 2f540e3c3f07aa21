import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { documentStreamId } from '@dojang/domain';
import { createHash } from 'crypto';
import { pdfsig, pdftotext } from '@dojang/pdf/testing/poppler';
import { qpdfStrings } from '@dojang/pdf/testing/active-content';
import { LocalPki, qpdfDss, startLocalPki } from '@dojang/evidence/testing/local-pki';
import { createSoftHsmToken, SOFTHSM_MODULE, SoftHsmToken } from '@dojang/evidence/testing/soft-hsm';
import { verifyLtv, verifyPades } from '@dojang/verifier/pades';
import { expectError, expectStatus } from '../support/api-helpers';
import { sentToOneSigner as sentDocument, SIGNATURE } from '../support/lifecycle';
import { bearer, startTestApp, useTestApp } from '../support/test-app';
import { binary } from '../files/file-helpers';

const der = (pem: string) => Buffer.from(pem.replace(/-----[A-Z ]+-----|\s+/g, ''), 'base64');


/**
 * Final PDFs at PAdES B-LTA through the API: a local CA, TSA and OCSP responder (OpenSSL, made at
 * test time), the signing key first in a .p12, then in a SoftHSM2 token.
 */
// Each completion asks the TSA twice and the OCSP responder twice (OpenSSL processes): generous
// limits for a loaded machine, no timing asserted.
jest.setTimeout(120_000);

describe('final PDFs at B-LTA with a local TSA and OCSP responder', () => {
  let pki: LocalPki;
  let hsmDir: string;
  let hsm: SoftHsmToken | undefined;

  beforeAll(async () => {
    pki = await startLocalPki();
    hsmDir = fs.mkdtempSync(path.join(os.tmpdir(), 'dojang-hsm-'));
  }, 180_000);
  afterAll(async () => {
    fs.rmSync(hsmDir, { recursive: true, force: true });
    hsm?.remove();
    await pki.close();
  });

  describe('with the key in a .p12 (SIGNING_P12)', () => {
    const t = useTestApp(() => ({ env: { TSA_URL: pki.tsaUrl, SIGNING_P12: pki.path('signer.p12'), SIGNING_P12_PASSWORD: pki.passphrase } }));
    let key: string;
    let pdf: Buffer;
    beforeAll(async () => {
      key = (await t.createOrg()).test;
    });

    it('completes to a B-LTA final PDF: valid signature with timestamp, DSS with chain and OCSP, document timestamp, Korean /Reason', async () => {
      const { id, token } = await sentDocument(t, key, '근로계약서');
      expectStatus(await t.http.post(`/v1/signing/${token}/sign`).send({ consent: true, signature: SIGNATURE }), 200);
      pdf = (await t.http.get(`/v1/documents/${id}/file`).set(bearer(key)).buffer(true).parse(binary).expect(200)).body as Buffer;
      const report = pdfsig(pdf);
      expect(report).toMatch(/Signature #1:[\s\S]*Signer Certificate Common Name: Dojang Test Document Signing[\s\S]*Signature Validation: Signature is Valid\./);
      expect(report).toMatch(/Signature #2:\n\s+- Signature Field Name: Signature2\n\s+- Signer Certificate Common Name: Dojang Test TSA/);
      expect(qpdfDss(pdf)).toEqual({ Certs: 4, OCSPs: 2, CRLs: 0 });
      expect(qpdfStrings(pdf)).toContain('Signed by all parties: 근로계약서');
      expect(verifyPades(pdf, der(pki.signerCertPem)).ok).toBe(true);
      const ltv = verifyLtv(pdf);
      expect(ltv).toMatchObject({ ok: true, level: 'B-LTA' });
    });

    it("prints the signing certificate's fingerprint on the audit certificate", async () => {
      const { id, token } = await sentDocument(t, key, '위임장');
      expectStatus(await t.http.post(`/v1/signing/${token}/sign`).send({ consent: true, signature: SIGNATURE }), 200);
      const audit = (await t.http.get(`/v1/documents/${id}/file?audit=true`).set(bearer(key)).buffer(true).parse(binary).expect(200)).body as Buffer;
      const fingerprint = createHash('sha256').update(der(pki.signerCertPem)).digest('hex');
      expect(pdftotext(audit).replace(/\s+/g, '')).toContain(`서명인증서지문${fingerprint}SigningcertificateSHA-256`);
    });

    it('the offline verifier reads the timestamps, validity dates and OCSP, and asks for an archive timestamp once the TSA certificate expires', () => {
      expect(verifyPades(pdf, der(pki.signerCertPem))).toMatchObject({ ok: true, detail: expect.stringContaining('1 document timestamp(s) and validation data follow it') });
      const findings = verifyLtv(pdf).findings.join('\n');
      expect(findings).toMatch(/✓ signature timestamp: stamped .* by C=KR, O=Dojang Test, CN=Dojang Test TSA/);
      expect(findings).toMatch(/✓ signer certificate valid at the timestamp/);
      expect(findings).toMatch(/✓ DSS: 4 certificate\(s\), 2 OCSP response\(s\), 0 CRL\(s\); signer: OCSP good at/);
      expect(findings).toMatch(/✓ document timestamp over bytes 0\.\.\d+: stamped/);
      expect(verifyLtv(pdf, new Date(Date.now() + 2 * 365 * 86400_000))).toMatchObject({ ok: false, findings: expect.arrayContaining([expect.stringMatching(/TSA certificate expired .* re-timestamp/)]) });
    });

    it('the offline verifier catches a byte changed in the DSS revision, after the signature', () => {
      const tampered = Buffer.from(pdf);
      const signedEnd = Number(/\/ByteRange\s*\[\s*0\s+\d+\s+(\d+)\s+(\d+)/.exec(pdf.toString('latin1'))!.slice(1).reduce((a, b) => String(Number(a) + Number(b))));
      const dssAt = tampered.indexOf('/DSS', signedEnd, 'latin1');
      expect(dssAt).toBeGreaterThan(signedEnd);
      tampered[dssAt + 2] = 'X'.charCodeAt(0);
      expect(verifyPades(tampered, der(pki.signerCertPem))).toMatchObject({ ok: false, detail: expect.stringMatching(/document timestamp .* does not cover these bytes/) });
      expect(verifyLtv(tampered).ok).toBe(false);
    });

    it('answers 503 signing_unavailable with the TSA away, records nothing, and completes once it is back', async () => {
      const { id, token } = await sentDocument(t, key, '임대차계약서');
      pki.down = true;
      try {
        const res = await t.http.post(`/v1/signing/${token}/sign`).send({ consent: true, signature: SIGNATURE });
        expectError(res, 503, 'signing_unavailable');
        expect(res.headers['retry-after']).toBeDefined();
      } finally {
        pki.down = false;
      }
      const events = await t.infra.events.readStream(documentStreamId(id));
      expect(events.map((e) => e.type)).not.toContain('DocumentCompleted');
      expect(events.map((e) => e.type)).not.toContain('ParticipantSigned');
      expectStatus(await t.http.post(`/v1/signing/${token}/sign`).send({ consent: true, signature: SIGNATURE }), 200);
      expect((await t.infra.events.readStream(documentStreamId(id))).map((e) => e.type)).toContain('DocumentCompleted');
    });
  });

  describe('with the key in a SoftHSM2 token (SIGNING_KEY=pkcs11)', () => {
    let env: NodeJS.ProcessEnv;
    beforeAll(() => {
      hsm = createSoftHsmToken('dojang-e2e', '246810', [{ pemKeyFile: pki.path('signer.key'), label: 'document-signing', id: '01' }]);
      fs.writeFileSync(path.join(hsmDir, 'pin'), '246810\n');
      fs.writeFileSync(path.join(hsmDir, 'chain.pem'), pki.signerCertPem + pki.caPem);
      env = {
        TSA_URL: pki.tsaUrl,
        SIGNING_KEY: 'pkcs11',
        SIGNING_PKCS11_MODULE: SOFTHSM_MODULE,
        SIGNING_PKCS11_TOKEN_LABEL: 'dojang-e2e',
        SIGNING_PKCS11_KEY_LABEL: 'document-signing',
        SIGNING_PKCS11_PIN_FILE: path.join(hsmDir, 'pin'),
        SIGNING_CERTIFICATE: path.join(hsmDir, 'chain.pem'),
      };
    });

    it('signs the final PDF in the token: B-LTA, valid for pdfsig and the offline verifier', async () => {
      const t = await startTestApp({ env });
      try {
        const key = (await t.createOrg()).test;
        const { id, token } = await sentDocument(t, key, '근로계약서');
        expectStatus(await t.http.post(`/v1/signing/${token}/sign`).send({ consent: true, signature: SIGNATURE }), 200);
        const pdf = (await t.http.get(`/v1/documents/${id}/file`).set(bearer(key)).buffer(true).parse(binary).expect(200)).body as Buffer;
        expect(pdfsig(pdf)).toMatch(/Signature #1:[\s\S]*Signer Certificate Common Name: Dojang Test Document Signing[\s\S]*Signature Validation: Signature is Valid\./);
        expect(qpdfDss(pdf)).toEqual({ Certs: 4, OCSPs: 2, CRLs: 0 });
        expect(verifyLtv(pdf)).toMatchObject({ ok: true, level: 'B-LTA' });
      } finally {
        await t.close();
      }
    });
  });
});
