import { createServer, Server } from 'node:http';
import { AddressInfo } from 'node:net';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as asn1js from 'asn1js';
import * as pkijs from 'pkijs';
import { buildSignedData, OID, readSignedData, sha256 } from './cades-cms';
import { readTstInfo } from './rfc3161-timestamp';
import { PADES_SUBFILTER, readPdfEvidence, sha256Hex, signPdf } from './sign-pdf';
import { certificateSerialHex, GENERATED_CERTIFICATE_CN, loadOrCreateSigningIdentity, SigningIdentity, signerFromP12 } from './signing-identity';
import { pdfFixture } from '../../pdf/src/testing/fixtures';
import { opensslAsn1parse, opensslCmsPrint, opensslCmsVerify } from './testing/openssl';
import { pdfsig, pdftotext } from '../../pdf/src/testing/poppler';
import { qpdfStrings } from '../../pdf/src/testing/active-content';
import { countersignPdf } from './sign-pdf';

function extractSignature(pdf: Buffer): { byteRange: number[]; cms: Buffer; signedBytes: Buffer } {
  const match = /\/ByteRange\s*\[\s*(\d+)\s+(\d+)\s+(\d+)\s+(\d+)\s*\]/.exec(pdf.toString('latin1'));
  if (!match) throw new Error('no /ByteRange');
  const byteRange = match.slice(1).map(Number);
  const hex = pdf.toString('latin1', byteRange[1] + 1, byteRange[2] - 1);
  const padded = Buffer.from(hex, 'hex');
  // /Contents is zero-padded to its reserved size; the CMS ends where its DER says.
  const parsed = asn1js.fromBER(new Uint8Array(padded));
  const signedBytes = Buffer.concat([pdf.subarray(byteRange[0], byteRange[0] + byteRange[1]), pdf.subarray(byteRange[2], byteRange[2] + byteRange[3])]);
  return { byteRange, cms: padded.subarray(0, parsed.offset), signedBytes };
}

const signerInfoOf = (cms: Buffer): pkijs.SignerInfo => readSignedData(cms).signerInfos[0];
const attributeOids = (attrs: pkijs.SignedAndUnsignedAttributes | undefined): string[] => (attrs?.attributes ?? []).map((a) => a.type);

// RSA key generation dominates this file's run time: one identity serves all tests that only need *an* identity.
let sharedDir: string;
let identity: SigningIdentity;

beforeAll(async () => {
  sharedDir = mkdtempSync(join(tmpdir(), 'dojang-sign-'));
  identity = await loadOrCreateSigningIdentity({ dataDir: sharedDir });
});

afterAll(() => rmSync(sharedDir, { recursive: true, force: true }));

describe('signPdf (PAdES B-B)', () => {
  let signed: Buffer;

  beforeAll(async () => {
    signed = await signPdf(pdfFixture('chromium-korean-contract-a4.pdf'), {
      p12: identity.p12,
      passphrase: identity.passphrase,
      reason: '전자계약 체결',
      name: 'Dojang',
      location: 'Seoul, KR',
      signingTime: new Date('2026-03-01T00:00:00Z'),
    });
  });

  it('writes a Korean /Reason, /Name and /Location as UTF-16BE with a BOM, read back intact (issue 25, item 5)', async () => {
    const korean = await signPdf(pdfFixture('chromium-korean-contract-a4.pdf'), {
      p12: identity.p12,
      passphrase: identity.passphrase,
      reason: 'Signed by all parties: 근로계약서',
      name: '도장',
      location: '서울',
    });
    const strings = qpdfStrings(korean);
    expect(strings).toEqual(expect.arrayContaining(['Signed by all parties: 근로계약서', '도장', '서울']));
    // The raw bytes hold the BOM-led hex string, not the low bytes of the UTF-16 code units.
    expect(korean.toString('latin1')).toContain(`/Reason <FEFF${Buffer.from('\ufeffSigned by all parties: 근로계약서', 'utf16le').swap16().subarray(2).toString('hex').toUpperCase()}>`);
    expect(pdfsig(korean)).toContain('Signature Validation: Signature is Valid.');
    // The countersignature (the audit bundle) too.
    const audit = await countersignPdf(korean, { p12: identity.p12, passphrase: identity.passphrase, reason: 'Audit trail certificate: 근로계약서' });
    expect(qpdfStrings(audit)).toContain('Audit trail certificate: 근로계약서');
  });

  it('is a valid signature over the whole file according to pdfsig', () => {
    const report = pdfsig(signed);
    expect(report).toContain(`Signer Certificate Common Name: ${GENERATED_CERTIFICATE_CN}`);
    expect(report).toContain(`Signature Type: ${PADES_SUBFILTER}`);
    expect(report).toContain('Signing Hash Algorithm: SHA-256');
    expect(report).toContain('Total document signed');
    expect(report).toContain('Signature Validation: Signature is Valid.');
  });

  it('leaves only the /Contents hole out of the byte range', () => {
    const { byteRange } = extractSignature(signed);
    expect(byteRange[0]).toBe(0);
    expect(byteRange[2] + byteRange[3]).toBe(signed.length);
    expect(signed[byteRange[1]]).toBe('<'.charCodeAt(0));
    expect(signed[byteRange[2] - 1]).toBe('>'.charCodeAt(0));
  });

  it('keeps the document readable', () => {
    expect(pdftotext(signed)).toBe(pdftotext(pdfFixture('chromium-korean-contract-a4.pdf')));
  });

  it('carries CAdES signed attributes: content-type, message-digest, signing-certificate-v2, no signing-time', () => {
    const signerInfo = signerInfoOf(extractSignature(signed).cms);
    expect(attributeOids(signerInfo.signedAttrs).sort()).toEqual([OID.contentType, OID.messageDigest, OID.signingCertificateV2].sort());
    const essAttr = signerInfo.signedAttrs!.attributes.find((a) => a.type === OID.signingCertificateV2)!;
    // SigningCertificateV2 → certs → ESSCertIDv2 → certHash
    const essCertId = (((essAttr.values[0] as asn1js.Sequence).valueBlock.value[0] as asn1js.Sequence).valueBlock.value[0] as asn1js.Sequence).valueBlock;
    const certHash = Buffer.from((essCertId.value[0] as asn1js.OctetString).valueBlock.valueHexView);
    const certificate = signerFromP12(identity.p12, identity.passphrase).certificate;
    expect(certHash.equals(sha256(certificate))).toBe(true);
    expect(signerInfo.unsignedAttrs).toBeUndefined();
  });

  it('is a CMS OpenSSL verifies over exactly the byte range, with signing-certificate-v2 and no signing-time', () => {
    const { cms, signedBytes } = extractSignature(signed);
    const verified = opensslCmsVerify(cms, signedBytes);
    expect(verified.output).toContain('CMS Verification successful');
    expect(verified.ok).toBe(true);
    // One byte of the signed range changed: the digest no longer matches.
    const altered = Buffer.from(signedBytes);
    altered[signedBytes.length - 10] ^= 0x01;
    expect(opensslCmsVerify(cms, altered).ok).toBe(false);

    const printed = opensslCmsPrint(cms);
    expect(printed).toContain('id-smime-aa-signingCertificateV2');
    expect(printed).toContain('messageDigest (1.2.840.113549.1.9.4)');
    expect(printed).not.toContain('signingTime');
    const parsed = opensslAsn1parse(cms);
    expect(parsed).toContain(':id-smime-aa-signingCertificateV2');
    expect(parsed).not.toContain(':signingTime');
    expect(parsed).toContain(':messageDigest');
    // The message digest printed by OpenSSL is the SHA-256 of the byte range.
    const digestLine = /messageDigest\s*\n.*?\[HEX DUMP\]:([0-9A-F]+)/s.exec(parsed);
    expect(digestLine?.[1].toLowerCase()).toBe(sha256(signedBytes).toString('hex'));
  });

  it('writes evidence entries into the information dictionary, under the signature', async () => {
    const withEvidence = await signPdf(pdfFixture('chromium-korean-contract-a4.pdf'), {
      p12: identity.p12,
      passphrase: identity.passphrase,
      evidence: { DojangChainHead: '{"revision":6,"hash":"ab"}' },
    });
    expect(await readPdfEvidence(withEvidence)).toEqual({ DojangChainHead: '{"revision":6,"hash":"ab"}' });
    expect(pdfsig(withEvidence)).toContain('Total document signed');
  });

  it('is reported broken when one byte inside the signed range changes', () => {
    const tampered = Buffer.from(signed);
    // Byte 10 sits in the binary comment after the header: the file still
    // parses, only the digest can notice.
    tampered[10] ^= 0x01;
    const report = pdfsig(tampered);
    expect(report).not.toContain('Signature is Valid');
    expect(report).toMatch(/Signature Validation: (Digest Mismatch|Signature is Invalid)/);
  });

  it('exposes sha256Hex', () => {
    expect(sha256Hex(Buffer.from('abc'))).toBe('ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
  });
});

describe('signPdf with an RFC 3161 timestamp', () => {
  let server: Server;
  let tsaUrl: string;
  const requests: Buffer[] = [];

  beforeAll(async () => {
    // The stand-in TSA may sign with the same key; nobody validates its chain here.
    const tsaSigner = signerFromP12(identity.p12, identity.passphrase);
    // A stand-in TSA: answers like RFC 3161 with a token over the request's imprint and nonce.
    server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      const answer = async () => {
        const request = Buffer.concat(chunks);
        requests.push(request);
        const req = pkijs.TimeStampReq.fromBER(new Uint8Array(request));
        const tstInfo = new pkijs.TSTInfo({
          version: 1,
          policy: '1.3.6.1.4.1.99999.1',
          messageImprint: req.messageImprint,
          serialNumber: new asn1js.Integer({ value: 42 }),
          genTime: new Date(),
          ...(req.nonce ? { nonce: req.nonce } : {}),
        });
        const tstDer = Buffer.from(tstInfo.toSchema().toBER());
        const token = await buildSignedData({ signer: tsaSigner, contentDigest: sha256(tstDer), contentType: OID.tstInfo, content: tstDer });
        const response = new pkijs.TimeStampResp({
          status: new pkijs.PKIStatusInfo({ status: pkijs.PKIStatus.granted }),
          timeStampToken: pkijs.ContentInfo.fromBER(new Uint8Array(token)),
        });
        res.writeHead(200, { 'Content-Type': 'application/timestamp-reply' });
        res.end(Buffer.from(response.toSchema().toBER()));
      };
      // A stand-in that fails answers 500, so the test sees a TSA error rather than a hang.
      req.on('end', () => {
        answer().catch(() => res.writeHead(500).end());
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    tsaUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/tsa`;
  });

  afterAll(async () => {
    await new Promise((resolve) => server.close(resolve));
  });

  it('adds the token over the signature value as an unsigned attribute', async () => {
    const signed = await signPdf(pdfFixture('chromium-korean-contract-letter.pdf'), { p12: identity.p12, passphrase: identity.passphrase, tsaUrl });
    expect(requests).toHaveLength(1);
    expect(pdfsig(signed)).toContain('Signature Validation: Signature is Valid.');

    const { cms, signedBytes } = extractSignature(signed);
    expect(opensslCmsVerify(cms, signedBytes).ok).toBe(true);
    const signerInfo = signerInfoOf(cms);
    const signatureValue = Buffer.from(signerInfo.signature.valueBlock.valueHexView);
    expect(attributeOids(signerInfo.unsignedAttrs)).toEqual([OID.signatureTimeStampToken]);
    const token = Buffer.from(signerInfo.unsignedAttrs!.attributes[0].values[0].toBER());
    const tst = readTstInfo(token);
    expect(tst.hashAlgorithm).toBe(OID.sha256);
    expect(tst.hashedMessage.equals(sha256(signatureValue))).toBe(true);
    expect(opensslCmsPrint(cms)).toContain('id-smime-aa-timeStampToken');
  });

  it('fails loudly when the TSA refuses', async () => {
    const refusing = createServer((_req, res) => {
      res.writeHead(200, { 'Content-Type': 'application/timestamp-reply' });
      res.end(Buffer.from(new pkijs.TimeStampResp({ status: new pkijs.PKIStatusInfo({ status: pkijs.PKIStatus.rejection }) }).toSchema().toBER()));
    });
    await new Promise<void>((resolve) => refusing.listen(0, '127.0.0.1', resolve));
    try {
      const url = `http://127.0.0.1:${(refusing.address() as AddressInfo).port}/`;
      await expect(signPdf(pdfFixture('chromium-korean-contract-a4.pdf'), { p12: identity.p12, passphrase: identity.passphrase, tsaUrl: url })).rejects.toThrow(
        /TSA refused the request \(status 2: rejection\)/,
      );
    } finally {
      await new Promise((resolve) => refusing.close(resolve));
    }
  });
});

describe('loadOrCreateSigningIdentity', () => {
  let dataDir: string;
  beforeEach(() => {
    dataDir = mkdtempSync(join(tmpdir(), 'dojang-id-'));
  });
  afterEach(() => rmSync(dataDir, { recursive: true, force: true }));

  it('creates one self-signed identity per data dir and reuses it, even when asked concurrently', async () => {
    const [a, b] = await Promise.all([1, 2].map(() => loadOrCreateSigningIdentity({ dataDir })));
    expect(b.certificatePem).toBe(a.certificatePem);
    const later = await loadOrCreateSigningIdentity({ dataDir });
    expect(later.p12.equals(a.p12)).toBe(true);
    expect(later.passphrase).toBe(a.passphrase);
    expect(a.certificatePem).toMatch(/^-----BEGIN CERTIFICATE-----/);
  });

  it.each([
    ['00 00 05', '000005'],
    ['00 f1', '00f1'],
    ['ff 00', 'ff00'],
    ['05 00', '0500'],
  ])('makes a positive, minimally encoded certificate serial from random bytes %s', (_bytes, hex) => {
    const serial = certificateSerialHex(Buffer.concat([Buffer.from(hex, 'hex'), Buffer.alloc(14, 0xab)]));
    const first = parseInt(serial.slice(0, 2), 16);
    // DER INTEGER: the first byte is neither a sign bit nor padding (0x00 before a byte < 0x80).
    expect(first).toBeGreaterThanOrEqual(0x01);
    expect(first).toBeLessThanOrEqual(0x7f);
    expect(serial).toHaveLength(hex.length + 28);
  });

  it('uses the configured SIGNING_P12 instead', async () => {
    const p12Path = join(dataDir, 'operator.p12');
    writeFileSync(p12Path, identity.p12);
    const configured = await loadOrCreateSigningIdentity({ dataDir, p12Path, p12Password: identity.passphrase });
    expect(configured.certificatePem).toBe(identity.certificatePem);
    expect(existsSync(join(dataDir, 'signing'))).toBe(false);
    await expect(loadOrCreateSigningIdentity({ dataDir, p12Path, p12Password: 'wrong' })).rejects.toThrow(/cannot open PKCS#12/);
  });
});
