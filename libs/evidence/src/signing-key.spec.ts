import { constants, createPrivateKey, privateEncrypt } from 'node:crypto';
import { createServer, Server } from 'node:http';
import { AddressInfo } from 'node:net';
import { extendPades } from './pades-ltv';
import { signPdf } from './sign-pdf';
import { probeSigningKey, SigningKeyError, SigningKeySpec } from './signing-key';
import { pdfFixture } from '../../pdf/src/testing/fixtures';
import { LocalPki, startLocalPki } from './testing/local-pki';
import { createSoftHsmToken, SOFTHSM_MODULE as SOFTHSM, SoftHsmToken } from './testing/soft-hsm';
import { opensslCmsVerify } from './testing/openssl';
import { pdfsig } from '../../pdf/src/testing/poppler';

const der = (pem: string) => Buffer.from(pem.replace(/-----[A-Z ]+-----|\s+/g, ''), 'base64');

function firstSignature(pdf: Buffer): { cms: Buffer; signedBytes: Buffer } {
  const m = /\/ByteRange\s*\[\s*(\d+)\s+(\d+)\s+(\d+)\s+(\d+)\s*\]/.exec(pdf.toString('latin1'))!;
  const [a, b, c, d] = m.slice(1).map(Number);
  const hex = pdf.toString('latin1', b + 1, c - 1).replace(/(00)+$/, '');
  return { cms: Buffer.from(hex.length % 2 ? `${hex}0` : hex, 'hex'), signedBytes: Buffer.concat([pdf.subarray(a, a + b), pdf.subarray(c, c + d)]) };
}

describe('signing keys outside the process', () => {
  let pki: LocalPki;
  let hsm: SoftHsmToken;
  let pkcs11: Extract<SigningKeySpec, { kind: 'pkcs11' }>;

  beforeAll(async () => {
    pki = await startLocalPki();
    hsm = createSoftHsmToken('dojang-test', '123456', [{ pemKeyFile: pki.path('signer.key'), label: 'document-signing', id: '01' }]);
    pkcs11 = { kind: 'pkcs11', module: SOFTHSM, tokenLabel: 'dojang-test', keyLabel: 'document-signing', pin: '123456', certificates: [der(pki.signerCertPem), pki.caDer] };
  }, 60_000);

  afterAll(async () => {
    hsm.remove();
    await pki.close();
  });

  it("refuses a wrong PIN, a missing token and a missing key with a clear error at the probe (the process's first login checks the PIN)", async () => {
    await expect(probeSigningKey({ ...pkcs11, pin: '000000' })).rejects.toThrow(new SigningKeyError('PKCS#11: login refused (wrong PIN)'));
    await expect(probeSigningKey({ ...pkcs11, tokenLabel: 'nope' })).rejects.toThrow(/PKCS#11: no token labelled "nope"/);
    await expect(probeSigningKey({ ...pkcs11, tokenLabel: undefined, slot: 7 })).rejects.toThrow(/PKCS#11: no token in slot 7/);
    await expect(probeSigningKey({ ...pkcs11, keyLabel: 'other' })).rejects.toThrow(/no private key labelled "other"/);
    await expect(probeSigningKey(pkcs11)).resolves.toBeUndefined();
  });

  it('signs in the SoftHSM2 token: B-LTA with the local TSA and OCSP responder, valid for pdfsig and openssl', async () => {
    const bt = await signPdf(pdfFixture('chromium-korean-contract-a4.pdf'), { key: pkcs11, tsaUrl: pki.tsaUrl, reason: 'Signed by all parties: 근로계약서' });
    const lta = await extendPades(bt, { tsaUrl: pki.tsaUrl, level: 'B-LTA' });
    const report = pdfsig(lta);
    expect(report).toContain('Signer Certificate Common Name: Dojang Test Document Signing');
    expect(report.match(/Signature Validation: Signature is Valid\./g)).toHaveLength(1);
    expect(report).toMatch(/Signature #2:\n\s+- Signature Field Name: Signature2\n\s+- Signer Certificate Common Name: Dojang Test TSA/);
    const { cms, signedBytes } = firstSignature(lta);
    expect(opensslCmsVerify(cms, signedBytes).output).toContain('Verification successful');
  }, 30_000);

  it('refuses a token key that does not match the configured certificate', async () => {
    await expect(probeSigningKey({ ...pkcs11, certificates: [pki.caDer] })).rejects.toThrow(/does not verify with the configured certificate/);
  });

  describe('a remote signer (KMS-shaped digest signing over HTTP)', () => {
    let server: Server;
    let url: string;
    let answer: 'sign' | 'fail' = 'sign';
    const seen: Array<Record<string, string>> = [];

    beforeAll(async () => {
      const key = createPrivateKey(pki.signerKeyPem);
      server = createServer((req, res) => {
        const chunks: Buffer[] = [];
        req.on('data', (c: Buffer) => chunks.push(c));
        req.on('end', () => {
          const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as Record<string, string>;
          seen.push({ ...body, authorization: req.headers.authorization ?? '' });
          if (answer === 'fail') return void res.writeHead(503).end();
          const digestInfo = Buffer.concat([Buffer.from('3031300d060960864801650304020105000420', 'hex'), Buffer.from(body.digest, 'base64')]);
          res.writeHead(200, { 'Content-Type': 'application/json' }).end(JSON.stringify({ signature: privateEncrypt({ key, padding: constants.RSA_PKCS1_PADDING }, digestInfo).toString('base64') }));
        });
      });
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/sign`;
    });

    afterAll(async () => {
      await new Promise((resolve) => server.close(resolve));
    });

    it('sends only the digest and gets a signature that pdfsig validates', async () => {
      const key: SigningKeySpec = { kind: 'remote', url, keyId: 'projects/x/keys/dojang', authorization: 'Bearer test', certificates: [der(pki.signerCertPem), pki.caDer] };
      const signed = await signPdf(pdfFixture('chromium-korean-contract-a4.pdf'), { key });
      expect(pdfsig(signed)).toContain('Signature Validation: Signature is Valid.');
      expect(seen.at(-1)).toEqual({ key_id: 'projects/x/keys/dojang', algorithm: 'RSASSA_PKCS1_V1_5_SHA_256', message_type: 'DIGEST', digest: expect.stringMatching(/^[A-Za-z0-9+/]{43}=$/), authorization: 'Bearer test' });
    });

    it('an unreachable or failing signer is a SigningKeyError, and no PDF comes out', async () => {
      answer = 'fail';
      // With its issuer in the chain: the certificate is judged (and passes) before the signer is asked.
      try {
        await expect(signPdf(pdfFixture('chromium-korean-contract-a4.pdf'), { key: { kind: 'remote', url, keyId: 'k', certificates: [der(pki.signerCertPem), pki.caDer] } })).rejects.toThrow(/remote signer .* answered HTTP 503/);
      } finally {
        answer = 'sign';
      }
      await expect(probeSigningKey({ kind: 'remote', url: 'http://127.0.0.1:1/sign', keyId: 'k', certificates: [der(pki.signerCertPem)] })).rejects.toBeInstanceOf(SigningKeyError);
    });
  });
});
