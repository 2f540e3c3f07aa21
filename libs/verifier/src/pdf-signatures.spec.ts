import { createServer, Server } from 'node:http';
import { AddressInfo } from 'node:net';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import * as asn1js from 'asn1js';
import * as pkijs from 'pkijs';
import { buildSignedData, OID, sha256 } from '../../evidence/src/cades-cms';
import { countersignPdf, loadOrCreateSigningIdentity, sha256Hex, signPdf, SigningIdentity } from '@dojang/evidence';
import { signerFromP12 } from '../../evidence/src/signing-identity';
import { pdfFixture } from '../../pdf/src/testing/fixtures';
import { pemCertificates } from './pades';
import { readPdfSignatures } from './pdf-signatures';

/** The PDF-only reading the public verify page relies on, against PDFs the server's own code signs. */
describe('readPdfSignatures', () => {
  let dir: string;
  let identity: SigningIdentity;
  let certSha: string;
  let server: Server;
  let tsaUrl: string;
  // The fake TSA's time: after its certificate (the generated identity, valid from a minute ago) begins,
  // as a verifier now checks the signer's certificate at the timestamp's time.
  const stampedAt = new Date(Math.floor(Date.now() / 1000) * 1000);

  beforeAll(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'dojang-pdfsigs-'));
    identity = await loadOrCreateSigningIdentity({ dataDir: dir });
    certSha = sha256Hex(pemCertificates(identity.certificatePem)[0]);
    const tsaSigner = signerFromP12(identity.p12, identity.passphrase);
    // A stand-in RFC 3161 authority (as in sign-pdf.spec.ts): a token over the request's imprint.
    server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        void (async () => {
          const request = pkijs.TimeStampReq.fromBER(new Uint8Array(Buffer.concat(chunks)));
          const tst = new pkijs.TSTInfo({ version: 1, policy: '1.3.6.1.4.1.99999.1', messageImprint: request.messageImprint, serialNumber: new asn1js.Integer({ value: 7 }), genTime: stampedAt, ...(request.nonce ? { nonce: request.nonce } : {}) });
          const tstDer = Buffer.from(tst.toSchema().toBER());
          const token = await buildSignedData({ signer: tsaSigner, contentDigest: sha256(tstDer), contentType: OID.tstInfo, content: tstDer });
          const response = new pkijs.TimeStampResp({ status: new pkijs.PKIStatusInfo({ status: pkijs.PKIStatus.granted }), timeStampToken: pkijs.ContentInfo.fromBER(new Uint8Array(token)) });
          res.writeHead(200, { 'Content-Type': 'application/timestamp-reply' }).end(Buffer.from(response.toSchema().toBER()));
        })().catch(() => res.writeHead(500).end());
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    tsaUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/tsa`;
  });
  afterAll(async () => {
    await new Promise((resolve) => server.close(resolve));
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('reads a signature, its certificate and the chain head; a changed byte makes it invalid', async () => {
    const head = { revision: 9, hash: 'a'.repeat(64), completed_event_count: 11 };
    const signed = await signPdf(pdfFixture('chromium-korean-contract-a4.pdf'), {
      p12: identity.p12,
      passphrase: identity.passphrase,
      evidence: { DojangChainHead: JSON.stringify(head) },
    });
    const report = readPdfSignatures(signed);
    expect(report.chain_head).toEqual(head);
    expect(report.dss).toEqual({ present: false, revocation_data: false });
    expect(report.signatures).toEqual([
      expect.objectContaining({ kind: 'signature', sub_filter: 'ETSI.CAdES.detached', valid: true, covers_whole_file: true, certificate_sha256: certSha, timestamp: null }),
    ]);

    const altered = Buffer.from(signed);
    altered[200] ^= 0x01;
    const bad = readPdfSignatures(altered).signatures[0];
    expect(bad.valid).toBe(false);
    expect(bad.detail).toMatch(/altered/);
    expect(bad.certificate_sha256).toBe(certSha);
  });

  it('reports each signature of a countersigned file over its own revision, and a signature timestamp', async () => {
    const signed = await signPdf(pdfFixture('chromium-korean-contract-a4.pdf'), { p12: identity.p12, passphrase: identity.passphrase, tsaUrl });
    const twice = await countersignPdf(signed, { p12: identity.p12, passphrase: identity.passphrase });
    const [first, second] = readPdfSignatures(twice).signatures;
    expect(first).toMatchObject({ valid: true, covers_whole_file: false, timestamp: { valid: true, time: stampedAt.toISOString() } });
    expect(second).toMatchObject({ valid: true, covers_whole_file: true, timestamp: null });
  });

  it('finds nothing in a PDF without signatures', () => {
    expect(readPdfSignatures(pdfFixture('chromium-korean-contract-a4.pdf'))).toEqual({ signatures: [], dss: { present: false, revocation_data: false }, chain_head: null });
  });
});
