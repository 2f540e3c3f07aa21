import { spawnSync } from 'node:child_process';
import { deflateSync, inflateRawSync } from 'node:zlib';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadOrCreateSigningIdentity, SigningIdentity } from '../../../evidence/src/signing-identity';
import { PADES_SUBFILTER, readPdfEvidence } from '../../../evidence/src/sign-pdf';
import { pdfFixture } from '../testing/fixtures';
import { opensslCmsVerify } from '../../../evidence/src/testing/openssl';
import { encodePng } from '../testing/png';
import { pdfsig, pdftotext, renderPage } from '../testing/poppler';
import buildFinalJob from './build-final.handler';

function qpdfCheck(pdf: Buffer): { ok: boolean; output: string } {
  const dir = mkdtempSync(join(tmpdir(), 'dojang-qpdf-'));
  try {
    writeFileSync(join(dir, 'final.pdf'), pdf);
    const run = spawnSync('qpdf', ['--check', join(dir, 'final.pdf')], { encoding: 'utf8' });
    return { ok: run.status === 0, output: `${run.stdout}${run.stderr}` };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

function signatureOf(pdf: Buffer): { cms: Buffer; signedBytes: Buffer; byteRange: number[] } {
  const match = /\/ByteRange\s*\[\s*(\d+)\s+(\d+)\s+(\d+)\s+(\d+)\s*\]/.exec(pdf.toString('latin1'));
  if (!match) throw new Error('no /ByteRange');
  const byteRange = match.slice(1).map(Number);
  const der = Buffer.from(pdf.toString('latin1', byteRange[1] + 1, byteRange[2] - 1), 'hex');
  // /Contents is zero-padded; openssl reads the DER and ignores what follows it.
  const signedBytes = Buffer.concat([pdf.subarray(byteRange[0], byteRange[0] + byteRange[1]), pdf.subarray(byteRange[2], byteRange[2] + byteRange[3])]);
  return { cms: der, signedBytes, byteRange };
}

describe('BUILD_FINAL (stamp and sign in one parse and one write)', () => {
  let dir: string;
  let identity: SigningIdentity;
  let final: Buffer;
  const original = pdfFixture('chromium-korean-contract-a4.pdf');
  const field = { page: 1, x: 55, y: 78, width: 35, height: 9 };

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'dojang-final-'));
    identity = await loadOrCreateSigningIdentity({ dataDir: dir });
    const red = encodePng(120, 40, () => [255, 0, 0, 255]);
    final = Buffer.from(
      await buildFinalJob({
        original,
        stamps: [{ ...field, image: red }],
        sign: { p12: identity.p12, passphrase: identity.passphrase, reason: 'Signed by all parties', name: 'Dojang', location: 'Seoul', evidence: { DojangChainHead: '{"hash":"ab"}' } },
      }),
    );
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('is one PAdES signature over the whole file, valid for pdfsig and OpenSSL', () => {
    const report = pdfsig(final);
    expect(report).toContain(`Signature Type: ${PADES_SUBFILTER}`);
    expect(report).toContain('Total document signed');
    expect(report).toContain('Signature Validation: Signature is Valid.');
    expect(report).not.toContain('Signature #2');
    const { cms, signedBytes, byteRange } = signatureOf(final);
    expect(byteRange[2] + byteRange[3]).toBe(final.length);
    expect(opensslCmsVerify(cms, signedBytes).ok).toBe(true);
  });

  it('passes qpdf --check, keeps the text and carries the evidence under the signature', async () => {
    const check = qpdfCheck(final);
    expect(check.output).toContain('No syntax or stream encoding errors found');
    expect(check.ok).toBe(true);
    expect(pdftotext(final)).toBe(pdftotext(original));
    expect(await readPdfEvidence(final)).toEqual({ DojangChainHead: '{"hash":"ab"}' });
  });

  it('shows the signature image inside its field', () => {
    const page = renderPage(final, 1, 30);
    const [r, g, b] = page.rgb(Math.round(((field.x + field.width / 2) / 100) * page.width), Math.round(((field.y + field.height / 2) / 100) * page.height));
    expect(r > 200 && g < 70 && b < 70).toBe(true);
  });

  it("writes pdf-lib's streams with Node's zlib; calls with options (another library's raw streams) stay with pako", () => {
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const pako = require('pako') as { deflate: ((input: Uint8Array, options?: object) => Uint8Array) & { native?: boolean } };
    const text = Buffer.from('BT /F1 12 Tf (Dojang) Tj ET\n'.repeat(50));
    expect(pako.deflate.native).toBe(true);
    expect(Buffer.from(pako.deflate(text)).equals(deflateSync(text))).toBe(true);
    expect(Buffer.from(inflateRawSync(pako.deflate(text, { raw: true }))).equals(text)).toBe(true);
  });
});
