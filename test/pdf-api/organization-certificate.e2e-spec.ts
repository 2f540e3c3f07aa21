import { execFileSync, spawnSync } from 'child_process';
import { createHash, X509Certificate } from 'crypto';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { documentStreamId, organizationStreamId } from '@dojang/domain';
import { DocumentPdfService, organizationSigningKeysOf } from '@dojang/application';
import { cmsCertificates, signatureContents } from '@dojang/evidence/pades-ltv';
import { pdfsig, pdftotext } from '@dojang/pdf/testing/poppler';
import { formatKst } from '@dojang/pdf/audit-certificate';
import { LocalPki, qpdfDss, startLocalPki } from '@dojang/evidence/testing/local-pki';
import { expectError, expectStatus } from '../support/api-helpers';
import { sentToOneSigner as sentDocument, SIGNATURE } from '../support/lifecycle';
import { bearer, startTestApp, TestApp, TestOrg } from '../support/test-app';
import { binary } from '../files/file-helpers';
import { unzipSync, zipSync } from 'fflate';
import { verifyBundle } from '@dojang/verifier';

jest.setTimeout(120_000);

/** Test certificates made with OpenSSL in a temporary directory: a CA and what it issues. */
class TestCa {
  readonly dir = fs.mkdtempSync(path.join(os.tmpdir(), 'dojang-org-ca-'));
  constructor() {
    this.openssl(['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', 'ca.key', '-out', 'ca.pem', '-days', '3650', '-sha256', '-subj', '/C=KR/O=Acme Test/CN=Acme Test Root CA']);
    fs.writeFileSync(this.file('index.txt'), '');
    fs.writeFileSync(this.file('serial'), '1000\n');
    fs.writeFileSync(
      this.file('ca.cnf'),
      [
        '[ ca ]',
        'default_ca = local',
        '[ local ]',
        'dir = .',
        'database = index.txt',
        'new_certs_dir = .',
        'serial = serial',
        'default_md = sha256',
        'policy = any',
        'unique_subject = no',
        'x509_extensions = leaf',
        '[ any ]',
        'commonName = supplied',
        'organizationName = optional',
        '[ leaf ]',
        'basicConstraints = CA:FALSE',
        'keyUsage = critical, digitalSignature, nonRepudiation',
        '',
      ].join('\n'),
    );
  }
  file(name: string) {
    return path.join(this.dir, name);
  }
  openssl(args: string[]): string {
    return execFileSync('openssl', args, { cwd: this.dir, encoding: 'utf8', stdio: ['pipe', 'pipe', 'pipe'] });
  }
  /** A key and a certificate for it issued by the CA, valid from `start` to `end` (openssl ca dates, YYYYMMDDHHMMSSZ). */
  issue(name: string, cn: string, start: string, end: string, organization = 'Acme HR'): void {
    // -utf8: the names as written (UTF8String), as Korean companies' certificates carry them.
    this.openssl(['req', '-new', '-newkey', 'rsa:2048', '-nodes', '-keyout', `${name}.key`, '-out', `${name}.csr`, '-utf8', '-subj', `/O=${organization}/CN=${cn}`]);
    this.openssl(['ca', '-batch', '-config', 'ca.cnf', '-cert', 'ca.pem', '-keyfile', 'ca.key', '-in', `${name}.csr`, '-out', `${name}.pem`, '-startdate', start, '-enddate', end, '-notext']);
  }
  /** `openssl pkcs12 -export` of the key (or another's) with its certificate and the CA. */
  p12(name: string, password: string, options: { key?: string; nocerts?: boolean; nokeys?: boolean } = {}): Buffer {
    const out = `${name}-${Math.random().toString(36).slice(2)}.p12`;
    const args = options.nokeys
      ? ['pkcs12', '-export', '-nokeys', '-in', `${name}.pem`, '-passout', `pass:${password}`, '-out', out]
      : options.nocerts
      ? ['pkcs12', '-export', '-nocerts', '-inkey', `${options.key ?? name}.key`, '-certfile', `${name}.pem`, '-passout', `pass:${password}`, '-out', out]
      : ['pkcs12', '-export', '-inkey', `${name}.key`, '-in', `${name}.pem`, '-certfile', 'ca.pem', '-passout', `pass:${password}`, '-out', out];
    this.openssl(args);
    return fs.readFileSync(this.file(out));
  }
  der(name: string): Buffer {
    return new X509Certificate(fs.readFileSync(this.file(`${name}.pem`))).raw;
  }
  close() {
    fs.rmSync(this.dir, { recursive: true, force: true });
  }
}

const stamp = (d: Date) => d.toISOString().replace(/[-:T]/g, '').slice(0, 14) + 'Z';
const DAY = 86_400_000;
const sha256 = (b: Buffer) => createHash('sha256').update(b).digest('hex');


const signIt = (t: TestApp, token: string) => t.http.post(`/v1/signing/${token}/sign`).send({ consent: true, signature: SIGNATURE });

const finalPdf = async (t: TestApp, key: string, id: string) =>
  (await t.http.get(`/v1/documents/${id}/file`).set(bearer(key)).buffer(true).parse(binary).expect(200)).body as Buffer;

async function completedDocument(t: TestApp, key: string, title: string): Promise<{ id: string; pdf: Buffer }> {
  const { id, token } = await sentDocument(t, key, title);
  expectStatus(await signIt(t, token), 200);
  return { id, pdf: await finalPdf(t, key, id) };
}

/**
 * The completion refused: 503 signing_unavailable with Retry-After, and nothing of the signature
 * recorded (the link's first opening, recorded before the signature is decided, aside).
 */
async function expectSigningUnavailable(t: TestApp, id: string, token: string, code = 'signing_unavailable'): Promise<string> {
  const before = (await t.infra.events.readStream(documentStreamId(id))).length;
  const res = await signIt(t, token);
  expectError(res, 503, code);
  expect(Number(res.headers['retry-after'])).toBeGreaterThan(0);
  const appended = (await t.infra.events.readStream(documentStreamId(id))).slice(before).map((e) => e.type);
  expect(appended.filter((type) => type !== 'SigningLinkOpened')).toEqual([]);
  return String(res.body.error.message);
}

/** The first signature's CMS and the bytes it signs (its /ByteRange). */
function firstSignature(pdf: Buffer): { cms: Buffer; content: Buffer } {
  const m = /\/ByteRange\s*\[\s*(\d+)\s+(\d+)\s+(\d+)\s+(\d+)\s*\]/.exec(pdf.toString('latin1'));
  if (!m) throw new Error('no /ByteRange');
  const [a, b, c, d] = m.slice(1).map(Number);
  return { cms: signatureContents(pdf)[0], content: Buffer.concat([pdf.subarray(a, a + b), pdf.subarray(c, c + d)]) };
}

/** `openssl cms -verify` with the chain checked up to `caFile`; answers the signer certificate it reports. */
function opensslVerifyChain(pdf: Buffer, caFile: string): { ok: boolean; output: string; signer: string } {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'dojang-cms-'));
  try {
    const { cms, content } = firstSignature(pdf);
    fs.writeFileSync(path.join(dir, 'sig.der'), cms);
    fs.writeFileSync(path.join(dir, 'content.bin'), content);
    const run = spawnSync(
      'openssl',
      ['cms', '-verify', '-binary', '-inform', 'DER', '-in', 'sig.der', '-content', 'content.bin', '-CAfile', caFile, '-purpose', 'any', '-signer', 'signer.pem', '-out', 'out.bin'],
      { cwd: dir, encoding: 'utf8' },
    );
    const signer = fs.existsSync(path.join(dir, 'signer.pem')) ? fs.readFileSync(path.join(dir, 'signer.pem'), 'utf8') : '';
    return { ok: run.status === 0, output: `${run.stdout}${run.stderr}`, signer };
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

describe("an organization's own signing certificate", () => {
  let ca: TestCa;
  let t: TestApp;
  let acme: TestOrg;
  let other: TestOrg;
  const now = Date.now();

  beforeAll(async () => {
    ca = new TestCa();
    ca.issue('acme', 'Acme HR Document Signing', stamp(new Date(now - DAY)), stamp(new Date(now + 365 * DAY)));
    ca.issue('expired', 'Acme Expired', stamp(new Date(now - 400 * DAY)), stamp(new Date(now - DAY)));
    ca.issue('future', 'Acme Future', stamp(new Date(now + 10 * DAY)), stamp(new Date(now + 400 * DAY)));
    ca.openssl(['genrsa', '-out', 'stranger.key', '2048']);
    t = await startTestApp();
    acme = await t.createOrg('Acme');
    other = await t.createOrg('Other');
  });
  afterAll(async () => {
    await t.close();
    ca.close();
  });

  const put = (key: string, body: Record<string, unknown>) => t.http.put('/v1/organization/signing_certificate').set(bearer(key)).send(body);

  it('GET shows the platform certificate while the organization has none', async () => {
    const res = expectStatus(await t.http.get('/v1/organization/signing_certificate').set(bearer(acme.test)), 200).body;
    expect(res).toMatchObject({ object: 'signing_certificate', source: 'platform', subject: 'C=KR, O=Dojang, CN=Dojang Document Signing', uploaded_at: null });
    expect(res.sha256_fingerprint).toBe(sha256(new X509Certificate(res.chain_pem[0]).raw));
  });

  it('refuses each file that cannot sign with a 400 naming the problem and the field, and records nothing', async () => {
    const cases: Array<[Record<string, unknown>, string, string]> = [
      [{ p12: ca.p12('acme', 'right').toString('base64'), password: 'wrong' }, 'signing_certificate_wrong_password', 'password'],
      [{ p12: Buffer.from(fs.readFileSync(ca.file('acme.pem'))).toString('base64'), password: 'x' }, 'signing_certificate_unsupported_format', 'p12'],
      [{ p12: Buffer.from('%PDF-1.7 not a certificate').toString('base64'), password: 'x' }, 'signing_certificate_unsupported_format', 'p12'],
      [{ p12: ca.p12('acme', 'pw', { key: 'stranger', nocerts: true }).toString('base64'), password: 'pw' }, 'signing_certificate_key_mismatch', 'p12'],
      [{ p12: ca.p12('acme', 'pw', { nokeys: true }).toString('base64'), password: 'pw' }, 'signing_certificate_no_private_key', 'p12'],
      [{ p12: ca.p12('expired', 'pw').toString('base64'), password: 'pw' }, 'signing_certificate_expired', 'p12'],
      [{ p12: ca.p12('future', 'pw').toString('base64'), password: 'pw' }, 'signing_certificate_not_yet_valid', 'p12'],
      [{ p12: 'not base64!', password: 'pw' }, 'invalid_parameter', 'p12'],
      [{ password: 'pw' }, 'invalid_parameter', 'p12'],
    ];
    for (const [body, code, param] of cases) {
      const res = await put(acme.test, body);
      expectError(res, 400, code, param);
    }
    const events = await t.infra.events.readStream(organizationStreamId(acme.id));
    expect(events.map((e) => e.type)).not.toContain('SigningCertificateUploaded');
  });

  it('an auditor key may not upload', async () => {
    const auditor = await t.admin.issueKey(acme.id, 'test', 'auditor');
    const res = await put(auditor.secret, { p12: ca.p12('acme', 'pw').toString('base64'), password: 'pw' });
    expect(res.status).toBe(403);
    expect(res.body.error).toMatchObject({ type: 'permission_error', code: 'insufficient_permissions' });
  });

  describe('once uploaded', () => {
    const password = 'Acme-p12-pass-7731';
    let p12: Buffer;
    let uploaded: Record<string, any>;

    beforeAll(async () => {
      p12 = ca.p12('acme', password);
      uploaded = expectStatus(await put(acme.test, { p12: p12.toString('base64'), password }), 200).body;
    });

    it('shows subject, issuer, validity, SHA-256 fingerprint and the chain', async () => {
      const der = ca.der('acme');
      expect(uploaded).toMatchObject({
        object: 'signing_certificate',
        source: 'organization',
        subject: 'CN=Acme HR Document Signing, O=Acme HR',
        issuer: 'C=KR, O=Acme Test, CN=Acme Test Root CA',
        sha256_fingerprint: sha256(der),
      });
      expect(uploaded.chain_pem.map((p: string) => new X509Certificate(p).raw.equals(der))).toEqual([true, false]);
      expect(new X509Certificate(uploaded.chain_pem[1]).raw.equals(ca.der('ca'))).toBe(true);
      expect(Date.parse(uploaded.not_after)).toBe(Date.parse(new X509Certificate(der).validTo));
      expect(expectStatus(await t.http.get('/v1/organization/signing_certificate').set(bearer(acme.test)), 200).body).toEqual(uploaded);
      // Another organization is not affected.
      expect(expectStatus(await t.http.get('/v1/organization/signing_certificate').set(bearer(other.test)), 200).body.source).toBe('platform');
    });

    it('records the fingerprint on the organization stream; the key and password are stored only encrypted', async () => {
      const events = await t.infra.events.readStream(organizationStreamId(acme.id));
      const event = events.find((e) => e.type === 'SigningCertificateUploaded');
      expect((event?.data as any).certificate.sha256_fingerprint).toBe(uploaded.sha256_fingerprint);
      const logText = JSON.stringify(events);
      expect(logText).not.toContain(password);
      expect(logText).not.toContain(p12.toString('base64').slice(0, 40));
      const envelope = await t.infra.blobs.get((event?.data as any).key_blob);
      expect(envelope).not.toBeNull();
      expect(envelope!.includes(Buffer.from(password))).toBe(false);
      expect(envelope!.includes(p12.subarray(0, 64))).toBe(false);
      expect(envelope!.toString('latin1')).not.toContain(p12.toString('base64').slice(0, 40));
    });

    /** A document completed while the organization's certificate signed. */
    let signedByAcme: string;

    it("signs the organization's final PDFs with its certificate and prints its fingerprint on the audit certificate", async () => {
      const { id, pdf } = await completedDocument(t, acme.test, '근로계약서');
      signedByAcme = id;
      expect(pdfsig(pdf)).toMatch(/Signer Certificate Common Name: Acme HR Document Signing[\s\S]*Signature Validation: Signature is Valid\./);
      const verified = opensslVerifyChain(pdf, ca.file('ca.pem'));
      expect(verified.output).toContain('Verification successful');
      expect(verified.ok).toBe(true);
      expect(new X509Certificate(verified.signer).raw.equals(ca.der('acme'))).toBe(true);
      // The whole chain of the file is embedded in the signature: the signer and its CA.
      const embedded = cmsCertificates(firstSignature(pdf).cms);
      expect(embedded.some((c) => c.equals(ca.der('acme')))).toBe(true);
      expect(embedded.some((c) => c.equals(ca.der('ca')))).toBe(true);
      const audit = (await t.http.get(`/v1/documents/${id}/file?audit=true`).set(bearer(acme.test)).buffer(true).parse(binary).expect(200)).body as Buffer;
      expect(pdftotext(audit).replace(/\s+/g, '')).toContain(`서명인증서지문${uploaded.sha256_fingerprint}SigningcertificateSHA-256`);
      expect(pdftotext(audit).replace(/\s+/g, '')).toContain(`서명인증서유효기간${formatKst(uploaded.not_after).replace(/\s+/g, '')}`);
      // The evidence bundle names the organization's certificate (final-signing-chain.pem, in the
      // signed manifest) and dojang-verify checks final.pdf's signature with it.
      const zip = (await t.http.get(`/v1/documents/${id}/evidence`).set(bearer(acme.test)).buffer(true).parse(binary).expect(200)).body as Buffer;
      const verdict = verifyBundle(zip);
      expect(verdict.checks.filter((c) => c.status === 'fail')).toEqual([]);
      expect(verdict.ok).toBe(true);
      expect(verdict.checks.find((c) => c.id === 'pades')?.en).toContain(`organization's own certificate (SHA-256 ${uploaded.sha256_fingerprint}`);
      const files = unzipSync(new Uint8Array(zip));
      expect(new X509Certificate(Buffer.from(files['final-signing-chain.pem'])).raw.equals(ca.der('acme'))).toBe(true);
      // Without that file the platform certificate does not verify the organization's signature.
      delete files['final-signing-chain.pem'];
      expect(verifyBundle(zipSync(files)).checks.find((c) => c.id === 'pades')?.status).toBe('fail');
    });

    it("leaves another organization's documents signed by the platform key", async () => {
      const { pdf } = await completedDocument(t, other.test, '위임장');
      expect(pdfsig(pdf)).toMatch(/Signer Certificate Common Name: Dojang Document Signing[\s\S]*Signature Validation: Signature is Valid\./);
      expect(opensslVerifyChain(pdf, ca.file('ca.pem')).ok).toBe(false);
    });

    it('DELETE reverts to the platform key, recorded with the fingerprint that stopped signing', async () => {
      const res = expectStatus(await t.http.delete('/v1/organization/signing_certificate').set(bearer(acme.test)), 200).body;
      expect(res.source).toBe('platform');
      const removed = (await t.infra.events.readStream(organizationStreamId(acme.id))).filter((e) => e.type === 'SigningCertificateRemoved');
      expect(removed.map((e) => (e.data as any).sha256_fingerprint)).toEqual([uploaded.sha256_fingerprint]);
      // Idempotent: nothing more to record.
      expectStatus(await t.http.delete('/v1/organization/signing_certificate').set(bearer(acme.test)), 200);
      expect((await t.infra.events.readStream(organizationStreamId(acme.id))).filter((e) => e.type === 'SigningCertificateRemoved')).toHaveLength(1);
      const { id, pdf } = await completedDocument(t, acme.test, '근로계약서 2');
      expect(pdfsig(pdf)).toContain('Signer Certificate Common Name: Dojang Document Signing');
      // Each audit certificate names the certificate that signed its own final PDF, not the one
      // signing now: the earlier document's still names the organization's.
      const auditText = async (documentId: string) =>
        pdftotext((await t.http.get(`/v1/documents/${documentId}/file?audit=true`).set(bearer(acme.test)).buffer(true).parse(binary).expect(200)).body as Buffer).replace(/\s+/g, '');
      expect(await auditText(signedByAcme)).toContain(`서명인증서지문${uploaded.sha256_fingerprint}`);
      const platform = expectStatus(await t.http.get('/v1/organization/signing_certificate').set(bearer(acme.test)), 200).body.sha256_fingerprint;
      expect(platform).not.toBe(uploaded.sha256_fingerprint);
      expect(await auditText(id)).toContain(`서명인증서지문${platform}`);
    });
  });

  it('reads a Korean subject as written in the API, the event, the audit certificate and pdfsig (issue 31, item 4)', async () => {
    ca.issue('hanbit', '홍길동', stamp(new Date(now - DAY)), stamp(new Date(now + 365 * DAY)), '주식회사 한빛소프트');
    const hanbit = await t.createOrg('주식회사 한빛소프트');
    const uploaded = expectStatus(await put(hanbit.test, { p12: ca.p12('hanbit', 'pw').toString('base64'), password: 'pw' }), 200).body;
    // In the certificate's own order (the CA's policy puts the common name first).
    const subject = 'CN=홍길동, O=주식회사 한빛소프트';
    expect(uploaded.subject).toBe(subject);
    expect(expectStatus(await t.http.get('/v1/organization/signing_certificate').set(bearer(hanbit.test)), 200).body.subject).toBe(subject);
    const event = (await t.infra.events.readStream(organizationStreamId(hanbit.id))).find((e) => e.type === 'SigningCertificateUploaded');
    expect((event?.data as any).certificate.subject).toBe(subject);
    const { id, pdf } = await completedDocument(t, hanbit.test, '근로계약서');
    expect(pdfsig(pdf)).toMatch(/Signer Certificate Common Name: 홍길동[\s\S]*Signature Validation: Signature is Valid\./);
    const audit = (await t.http.get(`/v1/documents/${id}/file?audit=true`).set(bearer(hanbit.test)).buffer(true).parse(binary).expect(200)).body as Buffer;
    expect(pdftotext(audit).replace(/\s+/g, '')).toContain(`서명인증서${subject.replace(/\s+/g, '')}Signingcertificate`);
  });

  it('stores and shows a 4 KB subject with control and bidi characters escaped and whole, never garbled (issue 31, bad input)', async () => {
    // 70 units of 20 syllables (60 UTF-8 bytes each: an attribute holds at most 64 characters),
    // a bell and a right-to-left override; issued by the CA as the CSR names it (openssl x509 -req).
    const units = Array.from({ length: 70 }, (_, i) => `${String(i).padStart(2, '0')}${'가'.repeat(18)}`);
    const subject = `/O=evil\u202egnp${units.map((u) => `/OU=${u}`).join('')}/CN=Bell\u0007Signer`;
    ca.openssl(['req', '-new', '-newkey', 'rsa:2048', '-nodes', '-keyout', 'long.key', '-out', 'long.csr', '-utf8', '-subj', subject]);
    ca.openssl(['x509', '-req', '-in', 'long.csr', '-CA', 'ca.pem', '-CAkey', 'ca.key', '-CAcreateserial', '-days', '30', '-sha256', '-out', 'long.pem']);
    const escaped = `O=evil\\E2\\80\\AEgnp, ${units.map((u) => `OU=${u}`).join(', ')}, CN=Bell\\07Signer`;
    expect(Buffer.byteLength(escaped)).toBeGreaterThan(4096);
    const org = await t.createOrg('Long Names');
    const uploaded = expectStatus(await put(org.test, { p12: ca.p12('long', 'pw').toString('base64'), password: 'pw' }), 200).body;
    expect(uploaded.subject).toBe(escaped);
    expect(expectStatus(await t.http.get('/v1/organization/signing_certificate').set(bearer(org.test)), 200).body.subject).toBe(escaped);
    const event = (await t.infra.events.readStream(organizationStreamId(org.id))).find((e) => e.type === 'SigningCertificateUploaded');
    expect((event?.data as any).certificate.subject).toBe(escaped);
    expect(JSON.stringify(event?.data)).not.toMatch(/[\u0007\u202e]/);
    // The audit certificate of a document it signs shows it escaped too, every part of it.
    const { id } = await completedDocument(t, org.test, '근로계약서');
    const audit = pdftotext((await t.http.get(`/v1/documents/${id}/file?audit=true`).set(bearer(org.test)).buffer(true).parse(binary).expect(200)).body as Buffer);
    expect(audit).not.toMatch(/[\u0007\u202e]/);
    // pdftotext reads the row's English label ("Signing certificate") between its value's lines.
    expect(audit.replace(/\s+/g, '').replace('서명인증서', '').replace('Signingcertificate', '')).toContain(escaped.replace(/\s+/g, ''));
  });
});

describe("an organization's own certificate at B-LTA (local TSA and OCSP responder)", () => {
  let pki: LocalPki;
  let t: TestApp;
  beforeAll(async () => {
    pki = await startLocalPki();
    t = await startTestApp({ env: { TSA_URL: pki.tsaUrl } });
  }, 180_000);
  afterAll(async () => {
    await t?.close();
    await pki?.close();
  });

  it('embeds its chain in the signature and in the DSS with its revocation data', async () => {
    const org = await t.createOrg('Acme');
    expectStatus(await t.http.put('/v1/organization/signing_certificate').set(bearer(org.test)).send({ p12: pki.p12.toString('base64'), password: pki.passphrase }), 200);
    const { pdf } = await completedDocument(t, org.test, '근로계약서');
    const report = pdfsig(pdf);
    expect(report).toMatch(/Signature #1:[\s\S]*Signer Certificate Common Name: Dojang Test Document Signing[\s\S]*Signature Validation: Signature is Valid\./);
    // signer, CA, TSA and OCSP responder certificates; an OCSP response for the signer and for the TSA.
    expect(qpdfDss(pdf)).toEqual({ Certs: 4, OCSPs: 2, CRLs: 0 });
    expect(opensslVerifyChain(pdf, pki.path('ca.pem')).ok).toBe(true);
  });
});

describe("an organization's certificate that stops being valid after its upload", () => {
  let ca: TestCa;
  let t: TestApp;
  let start: number;
  const put = (key: string, name: string) => t.http.put('/v1/organization/signing_certificate').set(bearer(key)).send({ p12: ca.p12(name, 'pw').toString('base64'), password: 'pw' });
  const get = async (key: string) => expectStatus(await t.http.get('/v1/organization/signing_certificate').set(bearer(key)), 200).body;

  beforeAll(async () => {
    t = await startTestApp({ manualClock: true, config: { metricsToken: 'metrics-secret' } });
    start = t.clock!.now().getTime();
    ca = new TestCa();
    // Valid for a day from the test clock's now; then one valid for a year.
    ca.issue('short', 'Acme Short-lived', stamp(new Date(start - DAY)), stamp(new Date(start + DAY)));
    ca.issue('renewed', 'Acme Renewed', stamp(new Date(start - DAY)), stamp(new Date(start + 365 * DAY)));
  });
  afterAll(async () => {
    await t?.close();
    ca?.close();
  });

  it('refuses to complete with it (503 signing_certificate_invalid as issue 31 item 1 says, nothing recorded, no other key) until a valid one is uploaded', async () => {
    t.clock!.set(new Date(start));
    const org = await t.createOrg('Acme');
    const uploaded = expectStatus(await put(org.test, 'short'), 200).body;
    expect(uploaded).toMatchObject({ source: 'organization', validity: 'valid', expired: false });
    const { id, token } = await sentDocument(t, org.test, '근로계약서');

    t.clock!.advance(2 * DAY);
    expect(await get(org.test)).toMatchObject({ source: 'organization', sha256_fingerprint: uploaded.sha256_fingerprint, validity: 'expired', expired: true });
    const message = await expectSigningUnavailable(t, id, token, 'signing_certificate_invalid');
    expect(message).toContain(`expired on ${uploaded.not_after}`);
    expect(message).toContain('upload a valid certificate');
    expect(message).toContain('remove it (DELETE /v1/organization/signing_certificate) to sign with the platform key');
    // Asked again, the same answer: it never falls back to the platform key.
    await expectSigningUnavailable(t, id, token, 'signing_certificate_invalid');
    // Counted as a revoked certificate's refusal is, under its reason.
    const metrics = (await t.http.get('/metrics').set('Authorization', 'Bearer metrics-secret').expect(200)).text;
    expect(metrics).toMatch(/dojang_signing_certificate_refusals_total\{reason="expired"\} 2/);

    const renewed = expectStatus(await put(org.test, 'renewed'), 200).body;
    expect(renewed).toMatchObject({ validity: 'valid', expired: false });
    expectStatus(await signIt(t, token), 200);
    expect(pdfsig(await finalPdf(t, org.test, id))).toContain('Signer Certificate Common Name: Acme Renewed');
  });

  it('completes with the platform key once the expired certificate is removed', async () => {
    t.clock!.set(new Date(start));
    const org = await t.createOrg('Beta');
    expectStatus(await put(org.test, 'short'), 200);
    const { id, token } = await sentDocument(t, org.test, '위임장');
    t.clock!.advance(2 * DAY);
    await expectSigningUnavailable(t, id, token, 'signing_certificate_invalid');
    expect(expectStatus(await t.http.delete('/v1/organization/signing_certificate').set(bearer(org.test)), 200).body).toMatchObject({ source: 'platform' });
    expectStatus(await signIt(t, token), 200);
    expect(pdfsig(await finalPdf(t, org.test, id))).toContain('Signer Certificate Common Name: Dojang Document Signing');
  });
});

describe("an organization's key that cannot be opened", () => {
  let ca: TestCa;
  let t: TestApp;
  const first = Buffer.alloc(32, 1).toString('base64');
  const other = Buffer.alloc(32, 2).toString('base64');

  beforeAll(async () => {
    ca = new TestCa();
    const now = Date.now();
    ca.issue('acme', 'Acme HR Document Signing', stamp(new Date(now - DAY)), stamp(new Date(now + 365 * DAY)));
    t = await startTestApp({ env: { KEY_ENCRYPTION_KEY: first } });
  });
  afterAll(async () => {
    await t?.close();
    ca?.close();
  });

  /** The process reconfigured with another KEY_ENCRYPTION_KEY (as a restart with another value would be), or back. */
  const reconfigure = (kek: string) => {
    t.app.get(DocumentPdfService, { strict: false }).organizationKeys = organizationSigningKeysOf({ ...t.infra, config: { ...t.infra.config, keyEncryptionKey: kek } });
  };

  it('answers 503 signing_unavailable and records nothing under another KEY_ENCRYPTION_KEY; completes with its own key once it is back', async () => {
    const org = await t.createOrg('Acme');
    expectStatus(await t.http.put('/v1/organization/signing_certificate').set(bearer(org.test)).send({ p12: ca.p12('acme', 'pw').toString('base64'), password: 'pw' }), 200);
    const { id, token } = await sentDocument(t, org.test, '근로계약서');

    reconfigure(other);
    const message = await expectSigningUnavailable(t, id, token);
    expect(message).toContain('cannot be decrypted');
    expect(message).toContain('KEY_ENCRYPTION_KEY');

    reconfigure(first);
    expectStatus(await signIt(t, token), 200);
    const pdf = await finalPdf(t, org.test, id);
    expect(pdfsig(pdf)).toContain('Signer Certificate Common Name: Acme HR Document Signing');
    expect(opensslVerifyChain(pdf, ca.file('ca.pem')).ok).toBe(true);
  });

  it('answers 503 signing_unavailable when its encrypted key blob is missing', async () => {
    const org = await t.createOrg('Beta');
    expectStatus(await t.http.put('/v1/organization/signing_certificate').set(bearer(org.test)).send({ p12: ca.p12('acme', 'pw').toString('base64'), password: 'pw' }), 200);
    const { id, token } = await sentDocument(t, org.test, '위임장');
    // The organization's certificate now points to a blob the store does not have.
    const keys = t.app.get(DocumentPdfService, { strict: false }).organizationKeys!;
    const real = keys.certificate.bind(keys);
    keys.certificate = async (organizationId) => {
      const c = await real(organizationId);
      return c && organizationId === org.id ? { ...c, key_blob: 'f'.repeat(64) } : c;
    };
    try {
      expect(await expectSigningUnavailable(t, id, token)).toContain('missing from the blob store');
    } finally {
      keys.certificate = real;
    }
    expectStatus(await signIt(t, token), 200);
  });
});
