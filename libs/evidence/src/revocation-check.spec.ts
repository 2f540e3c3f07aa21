import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { AddressInfo } from 'node:net';
import * as pkijs from 'pkijs';
// The verifiers' judge, as the signing side re-exports it (this lib's tests import only this lib).
import { checkCertificateChain, judgeCrl, judgeOcsp, judgeRevocation, LtvError, ocspRequest, SigningCertificateInvalidError, withRevocationMemo } from './revocation-check';
import { signPdf } from './sign-pdf';
import { pdfFixture } from '../../pdf/src/testing/fixtures';
import { LocalPki, startLocalPki } from './testing/local-pki';

/**
 * The one judge of revocation data (libs/verifier/src/revocation.ts) and the check before signing
 * that uses it, against a local CA, OCSP responder and CRL (OpenSSL, made at test time). Data that
 * is malformed, stale, about another certificate or signed by the wrong key is never "good".
 */

const der = (pem: string) => Buffer.from(pem.replace(/-----[A-Z ]+-----|\s+/g, ''), 'base64');
const cert = (b: Buffer) => pkijs.Certificate.fromBER(new Uint8Array(b).buffer as ArrayBuffer);
const DAY = 86_400_000;

describe('revocation: the judge and the check before signing', () => {
  let pki: LocalPki;
  let signer: Buffer;
  let tsa: Buffer;
  let ca: Buffer;
  /** `openssl ocsp` answering for `subject` (signer.pem…), signed by `rsigner` (the responder by default). */
  const ocspFor = (subject: Buffer, rsigner = 'ocsp') => {
    writeFileSync(pki.path('q.der'), ocspRequest(cert(subject), cert(ca)));
    execFileSync('openssl', ['ocsp', '-index', 'index.txt', '-rsigner', `${rsigner}.pem`, '-rkey', `${rsigner}.key`, '-CA', 'ca.pem', '-reqin', 'q.der', '-respout', 'r.der', '-ndays', '7'], { cwd: pki.dir, stdio: 'pipe' });
    return readFileSync(pki.path('r.der'));
  };
  const crl = () => readFileSync(pki.path('ca.crl'));

  beforeAll(async () => {
    pki = await startLocalPki();
    signer = der(pki.signerCertPem);
    tsa = der(readFileSync(pki.path('tsa.pem'), 'utf8'));
    ca = pki.caDer;
  }, 60_000);
  afterAll(() => pki.close());

  it('judges a good OCSP response and an empty CRL good, and neither is good for a later time than they speak for', () => {
    const now = new Date();
    expect(judgeOcsp(ocspFor(signer), signer, ca, now)).toMatchObject({ status: 'good', detail: expect.stringMatching(/^OCSP good at/) });
    expect(judgeCrl(crl(), signer, ca, now)).toMatchObject({ status: 'good', detail: expect.stringMatching(/^not on the CRL of/) });
    // Stale: next update (7 days for the responder, 30 for the CRL) before the time judged.
    const later = new Date(now.getTime() + 40 * DAY);
    expect(judgeOcsp(ocspFor(signer), signer, ca, later, { now: later })).toMatchObject({ status: 'unknown', detail: expect.stringMatching(/OCSP response is stale/) });
    expect(judgeCrl(crl(), signer, ca, later, { now: later })).toMatchObject({ status: 'unknown', detail: expect.stringMatching(/CRL is stale/) });
  });

  it('never takes malformed data, a response about another certificate, or one signed by an unauthorized key as good', () => {
    const now = new Date();
    expect(judgeOcsp(Buffer.from('not an OCSP response'), signer, ca, now)).toMatchObject({ status: 'unknown', detail: expect.stringMatching(/unreadable/) });
    expect(judgeCrl(Buffer.from([0x30, 0x03, 0x02, 0x01, 0x00]), signer, ca, now)).toMatchObject({ status: 'unknown', detail: expect.stringMatching(/unreadable/) });
    expect(judgeOcsp(ocspFor(tsa), signer, ca, now)).toMatchObject({ status: 'unknown', detail: 'the OCSP response is about another certificate' });
    // Signed by the document-signing key: a certificate the CA issued, but not for OCSP signing.
    expect(judgeOcsp(ocspFor(signer, 'signer'), signer, ca, now)).toMatchObject({ status: 'unknown', detail: expect.stringMatching(/not signed by the certificate's issuer or a responder it authorized/) });
    // A CRL whose signature was altered.
    const forged = Buffer.from(crl());
    forged[forged.length - 1] ^= 0xff;
    expect(judgeCrl(forged, signer, ca, now)).toMatchObject({ status: 'unknown', detail: expect.stringMatching(/not signed by the certificate's issuer/) });
    expect(judgeRevocation(signer, ca, { ocsps: [ocspFor(signer, 'signer')], crls: [forged] }, now)).toMatchObject({ status: 'unknown', detail: expect.stringMatching(/^revocation unknown: /) });
  });

  it('checks the chain before signing: valid dates, and a good answer from the sources it names', async () => {
    await expect(checkCertificateChain([signer, ca], { role: 'signing' })).resolves.toBeUndefined();
    await expect(checkCertificateChain([signer, ca], { role: 'signing', at: new Date(Date.now() + 400 * DAY) })).rejects.toThrow(SigningCertificateInvalidError);
    await expect(checkCertificateChain([signer, ca], { role: 'signing', at: new Date(Date.now() + 400 * DAY) })).rejects.toThrow(/the signing certificate C=KR, O=Dojang Test, CN=Dojang Test Document Signing \(SHA-256 [0-9a-f]{64}\) is expired at/);
    // No usable answer (the responder and the CRL away): no signature, 503 signing_unavailable.
    pki.down = true;
    try {
      await expect(checkCertificateChain([signer, ca], { role: 'signing' })).rejects.toThrow(LtvError);
    } finally {
      pki.down = false;
    }
  });

  it('before signing, a source answering malformed, stale, foreign or wrongly signed data is no data: LtvError (503), never good', async () => {
    // A certificate naming no source of its own, checked against a configured responder that
    // answers what `answer` holds (REVOCATION_OCSP_URLS), with no CRL to fall back on.
    const bare = der(pki.issueSigner('bare-bad-data', '/C=KR/O=Dojang Test/CN=Bare Signer', { names_sources: false }).certPem);
    let answer: Buffer = Buffer.alloc(0);
    const server = createServer((req, res) => {
      req.resume();
      req.on('end', () => res.writeHead(200, { 'Content-Type': 'application/ocsp-response' }).end(answer));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const sources = { ocsp: [`http://127.0.0.1:${(server.address() as AddressInfo).port}/ocsp`], crl: [] };
    const check = (at?: Date) => withRevocationMemo(() => checkCertificateChain([bare, ca], { role: 'signing', ...(at ? { at } : {}) }), sources);
    try {
      // A good answer from it passes, so what follows fails only for the data.
      answer = ocspFor(bare);
      await expect(check()).resolves.toBeUndefined();
      const cases: Array<[string, Buffer, RegExp, Date?]> = [
        ['malformed', Buffer.from('not an OCSP response'), /unreadable/],
        ['about another certificate', ocspFor(tsa), /about another certificate/],
        ['signed by a key the issuer did not authorize', ocspFor(bare, 'signer'), /not signed by the certificate's issuer or a responder it authorized/],
        // Judged 40 days on (the certificate still valid then): the 7-day response is stale.
        ['stale', ocspFor(bare), /stale/, new Date(Date.now() + 40 * DAY)],
      ];
      for (const [what, bytes, reason, at] of cases) {
        answer = bytes;
        const refused = await check(at).then(() => null, (error: unknown) => error);
        expect({ what, refused }).toEqual({ what, refused: expect.any(LtvError) });
        expect((refused as Error).message).toMatch(/^no usable revocation data for the signing certificate C=KR, O=Dojang Test, CN=Bare Signer/);
        expect((refused as Error).message).toMatch(reason);
      }
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  });

  it('refuses to sign with a revoked certificate; revocation data says revoked, and still good for a time before it', async () => {
    const { p12, certPem } = pki.issueSigner('revoked', '/C=KR/O=Dojang Test/CN=Revoked Signer');
    const revoked = der(certPem);
    const pdf = await signPdf(pdfFixture('chromium-korean-contract-a4.pdf'), { p12, passphrase: pki.passphrase });
    expect(pdf.length).toBeGreaterThan(0);
    const at = new Date(Date.now() - 60_000);
    pki.revoke('revoked', { at });
    const response = ocspFor(revoked);
    expect(judgeOcsp(response, revoked, ca, new Date())).toMatchObject({ status: 'revoked', revokedAt: new Date(Math.floor(at.getTime() / 1000) * 1000), detail: expect.stringMatching(/revoked .*\(keyCompromise\)/) });
    expect(judgeCrl(crl(), revoked, ca, new Date())).toMatchObject({ status: 'revoked' });
    expect(judgeOcsp(response, revoked, ca, new Date(at.getTime() - 60_000))).toMatchObject({ status: 'good', detail: expect.stringMatching(/revoked later/) });
    await expect(signPdf(pdfFixture('chromium-korean-contract-a4.pdf'), { p12, passphrase: pki.passphrase })).rejects.toThrow(SigningCertificateInvalidError);
    await expect(checkCertificateChain([revoked, ca], { role: 'signing' })).rejects.toThrow(/CN=Revoked Signer .* is revoked: OCSP: revoked .*\(keyCompromise\)/);
    // The OCSP responder away: the CRL says so too.
    pki.ocspDown = true;
    try {
      await expect(checkCertificateChain([revoked, ca], { role: 'signing' })).rejects.toThrow(/is revoked: CRL of .*: revoked/);
    } finally {
      pki.ocspDown = false;
    }
  });

  // Last in the file: the TSA stays revoked for this PKI.
  it('refuses a timestamp from a TSA whose certificate is revoked', async () => {
    pki.revoke('tsa');
    await expect(signPdf(pdfFixture('chromium-korean-contract-a4.pdf'), { p12: pki.p12, passphrase: pki.passphrase, tsaUrl: pki.tsaUrl })).rejects.toThrow(/the TSA certificate C=KR, O=Dojang Test, CN=Dojang Test TSA .* is revoked/);
  });
});
