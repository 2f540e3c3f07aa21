import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as asn1js from 'asn1js';
import { addDocumentTimestamp, collectValidationMaterial, DOCUMENT_TIMESTAMP_SUBFILTER, extendPades, LtvError, newestTimestampExpiry, readOcspResponse, signatureContents } from './pades-ltv';
import { OID, readSignedData } from './cades-cms';
import { signPdf } from './sign-pdf';
import { pdfFixture } from '../../pdf/src/testing/fixtures';
import { qpdfDss, startLocalPki, LocalPki } from './testing/local-pki';
import { pdfsig } from '../../pdf/src/testing/poppler';

/** The byte ranges and CMS of every signature dictionary, in file order. */
function signatures(pdf: Buffer): Array<{ cms: Buffer; signedBytes: Buffer }> {
  const text = pdf.toString('latin1');
  return [...text.matchAll(/\/ByteRange\s*\[\s*(\d+)\s+(\d+)\s+(\d+)\s+(\d+)\s*\]/g)].map((m) => {
    const [a, b, c, d] = m.slice(1).map(Number);
    const der = Buffer.from(text.slice(b + 1, c - 1), 'hex');
    const parsed = asn1js.fromBER(new Uint8Array(der));
    return { cms: der.subarray(0, parsed.offset), signedBytes: Buffer.concat([pdf.subarray(a, a + b), pdf.subarray(c, c + d)]) };
  });
}

describe('PAdES B-LT and B-LTA with a local TSA, CA and OCSP responder', () => {
  let pki: LocalPki;
  let lta: Buffer;
  let tmp: string;

  beforeAll(async () => {
    pki = await startLocalPki();
    tmp = mkdtempSync(join(tmpdir(), 'dojang-lta-'));
    const bt = await signPdf(pdfFixture('chromium-korean-contract-a4.pdf'), { p12: pki.p12, passphrase: pki.passphrase, tsaUrl: pki.tsaUrl, reason: 'Signed by all parties: 근로계약서' });
    lta = await extendPades(bt, { tsaUrl: pki.tsaUrl, level: 'B-LTA' });
  }, 60_000);

  afterAll(async () => {
    rmSync(tmp, { recursive: true, force: true });
    await pki.close();
  });

  it('is a signature with a timestamp, a DSS and a document timestamp that pdfsig reads as valid', () => {
    const report = pdfsig(lta);
    expect(report).toContain('Signature #1');
    expect(report).toContain('Signature #2');
    expect(report).toContain('Signer Certificate Common Name: Dojang Test Document Signing');
    expect(report).toContain('Signature Type: ETSI.CAdES.detached');
    expect(report.match(/Signature Validation: Signature is Valid\./g)).toHaveLength(1);
    // Poppler 22 lists a document timestamp (its TSA as signer, the whole file covered) but does not
    // validate the RFC 3161 subfilter ("unknown", "not yet verified"): openssl ts -verify does, below.
    expect(report).toMatch(/Signature #2:\n\s+- Signature Field Name: Signature2\n\s+- Signer Certificate Common Name: Dojang Test TSA/);
    expect(report).toMatch(/Signature #2:[\s\S]*Total document signed/);
  });

  it('holds the chain and OCSP responses for the signer and the TSA in the DSS (qpdf --json)', () => {
    const dss = qpdfDss(lta);
    // Signer, TSA, root and the OCSP responder's certificate; one response each for signer and TSA.
    expect(dss.Certs).toBe(4);
    expect(dss.OCSPs).toBe(2);
    // Five questions: the signer before it signs, the TSA at the signature timestamp, signer and
    // TSA again for the DSS, the TSA at the document timestamp (each certificate is checked before
    // it is used, revocation-check.ts); the DSS keeps one answer each.
    expect(pki.served.ocsp).toBe(5);
  });

  it('verifies with openssl: the CAdES signature up to the root, its timestamp and the document timestamp', () => {
    const [signature, docTs] = signatures(lta);
    writeFileSync(join(tmp, 'sig.der'), signature.cms);
    writeFileSync(join(tmp, 'content.bin'), signature.signedBytes);
    const cms = spawnSync('openssl', ['cms', '-verify', '-binary', '-inform', 'DER', '-in', join(tmp, 'sig.der'), '-content', join(tmp, 'content.bin'), '-CAfile', pki.path('ca.pem'), '-purpose', 'any', '-out', join(tmp, 'out.bin')], { encoding: 'utf8' });
    expect(cms.stderr).toContain('Verification successful');

    // The signature-time-stamp token covers the signature value (RFC 3161 over SignerInfo.signature).
    const info = readSignedData(signature.cms).signerInfos[0];
    const token = Buffer.from(info.unsignedAttrs!.attributes.find((a) => a.type === OID.signatureTimeStampToken)!.values[0].toBER());
    writeFileSync(join(tmp, 'sigts.tsr'), token);
    writeFileSync(join(tmp, 'sigvalue.bin'), Buffer.from(info.signature.valueBlock.valueHexView));
    const sigTs = spawnSync('openssl', ['ts', '-verify', '-token_in', '-in', join(tmp, 'sigts.tsr'), '-data', join(tmp, 'sigvalue.bin'), '-CAfile', pki.path('ca.pem')], { encoding: 'utf8' });
    expect(sigTs.stdout).toContain('Verification: OK');

    writeFileSync(join(tmp, 'docts.tsr'), docTs.cms);
    writeFileSync(join(tmp, 'doc.bin'), docTs.signedBytes);
    const ts = spawnSync('openssl', ['ts', '-verify', '-token_in', '-in', join(tmp, 'docts.tsr'), '-data', join(tmp, 'doc.bin'), '-CAfile', pki.path('ca.pem')], { encoding: 'utf8' });
    expect(ts.stdout).toContain('Verification: OK');
    expect(lta.toString('latin1')).toContain(`/SubFilter /${DOCUMENT_TIMESTAMP_SUBFILTER}`);
    expect(lta.toString('latin1')).toContain('/Type /DocTimeStamp');
  });

  it('archives: a new DSS round and document timestamp; every earlier signature stays valid', async () => {
    const before = signatureContents(lta).length;
    const archived = await extendPades(lta, { tsaUrl: pki.tsaUrl, level: 'B-LTA' });
    expect(archived.subarray(0, lta.length).equals(lta)).toBe(true);
    expect(signatureContents(archived)).toHaveLength(before + 1);
    const report = pdfsig(archived);
    expect(report.match(/Signature Validation: Signature is Valid\./g)).toHaveLength(1);
    expect(report).toMatch(/Signature #3:\n\s+- Signature Field Name: Signature3\n\s+- Signer Certificate Common Name: Dojang Test TSA/);
    // Each document timestamp still verifies over its own revision.
    for (const [i, ts] of signatures(archived).slice(1).entries()) {
      writeFileSync(join(tmp, `a${i}.tsr`), ts.cms);
      writeFileSync(join(tmp, `a${i}.bin`), ts.signedBytes);
      expect(spawnSync('openssl', ['ts', '-verify', '-token_in', '-in', join(tmp, `a${i}.tsr`), '-data', join(tmp, `a${i}.bin`), '-CAfile', pki.path('ca.pem')], { encoding: 'utf8' }).stdout).toContain('Verification: OK');
    }
    expect(newestTimestampExpiry(archived)).toEqual(expect.any(Date));
  });

  it('refuses (LtvError) when no responder and no CRL answers, and adds nothing', async () => {
    pki.down = true;
    try {
      await expect(collectValidationMaterial(signatureContents(lta).flatMap((c) => readSignedData(c).certificates!.map((x) => Buffer.from(x.toSchema().toBER()))))).rejects.toBeInstanceOf(LtvError);
      await expect(addDocumentTimestamp(lta, pki.tsaUrl)).rejects.toThrow(/TSA .* answered HTTP 503/);
    } finally {
      pki.down = false;
    }
  });

  it('falls back to the CRL when the OCSP responder does not answer', async () => {
    const der = Buffer.from(pki.signerCertPem.replace(/-----[A-Z ]+-----|\s+/g, ''), 'base64');
    pki.ocspDown = true;
    try {
      const material = await collectValidationMaterial([der, pki.caDer]);
      expect(material.ocsps).toHaveLength(0);
      expect(material.crls).toHaveLength(1);
    } finally {
      pki.ocspDown = false;
    }
    const answered = await collectValidationMaterial([der, pki.caDer]);
    expect(answered.ocsps).toHaveLength(1);
    expect(answered.crls).toHaveLength(0);
    const basic = readOcspResponse(answered.ocsps[0]);
    expect(basic.tbsResponseData.responses[0].certStatus.idBlock.tagNumber).toBe(0); // good
  });
});
