import { execFile, execFileSync } from 'child_process';
import * as fs from 'fs';
import * as path from 'path';
import { promisify } from 'util';
import { documentDecider, documentStreamId } from '@dojang/domain';
import { addDocumentTimestamp, addDss, extendPades } from '@dojang/evidence/pades-ltv';
import { runPdfWorkOnThisThread } from '@dojang/pdf';
import { LocalPki, startLocalPki } from '@dojang/evidence/testing/local-pki';
import { expectStatus } from '../support/api-helpers';
import { sentToOneSigner as sentDocument, SIGNATURE } from '../support/lifecycle';
import { bearer, startTestApp, TestApp, TestOrg } from '../support/test-app';
import { binary } from '../files/file-helpers';

/**
 * Revocation data embedded in a PDF (its DSS) judged the same by every verifier entry (issue 31,
 * "Bad input" and item 2), end to end: the final PDF of a real document, signed by an
 * organization's certificate from a local CA (OpenSSL, made at test time) with a signature
 * timestamp (B-T), is given a DSS carrying one kind of bad data and a document timestamp over it
 * (as an archive round does), recorded as the document's newest final PDF, and then judged by
 * - POST /v1/verify (what the public verify page shows: it renders this very answer),
 * - the evidence bundle's verifier as an auditor runs it (the dojang-verify program),
 * - `cli verify` (AdminService.verifyDocument, what the CLI prints).
 * An OCSP response or CRL that is malformed, stale (next update before the signature's proven
 * time), about another certificate or another issuer, or signed by the wrong key is no data:
 * every entry says "revocation unknown" and fails the signature, never "good". A response saying
 * revoked at the signature's time fails everywhere naming keyCompromise. A good response passes
 * everywhere, and every entry agrees on trust: with the installation's trust list
 * (VERIFY_TRUST_ANCHORS, the same PEM given to dojang-verify as --trust) "trusted", with another
 * anchor "untrusted issuer" and a failure, with none "untrusted issuer" said plainly.
 */
jest.setTimeout(240_000);

const run = promisify(execFile);
const VERIFY = path.join(__dirname, '..', '..', 'scripts', 'dojang-verify.js');
/** dojang-verify as a separate program: exit code and what it printed. */
const dojangVerify = (args: string[]) =>
  run(process.execPath, [VERIFY, ...args], { env: { PATH: process.env.PATH ?? '' }, timeout: 120_000 }).then(
    ({ stdout }) => ({ code: 0, stdout }),
    (err: { code?: number; stdout?: string }) => ({ code: err.code ?? -1, stdout: err.stdout ?? '' }),
  );
const der = (pem: string) => Buffer.from(pem.replace(/-----[A-Z ]+-----|\s+/g, ''), 'base64');
/** An OpenSSL time (YYYYMMDDHHMMSSZ). */
const asn1Time = (d: Date) => d.toISOString().replace(/[-:T]/g, '').replace(/\.\d+Z$/, 'Z');
const DAY = 86_400_000;

type Cli = { intact: boolean; checks: Array<{ check: string; status: string; detail: string }> };
type Signature = { kind: string; valid: boolean; revocation: string | null; standing_problem: string | null; trusted: boolean | null; trust: string | null; certificate_sha256: string; chain: unknown[]; proven_at: string | null };

describe('revocation data embedded in a PDF, judged by every verifier entry', () => {
  let pki: LocalPki;
  let t: TestApp;
  let org: TestOrg;
  let documentId: string;
  /** The final PDF as completed: B-T, no DSS. */
  let signedPdf: Buffer;
  let acme: Buffer;
  let ca: Buffer;
  let provenAt: Date;

  const openssl = (args: string[], options: { faketime?: string } = {}) =>
    execFileSync(options.faketime ? 'faketime' : 'openssl', options.faketime ? ['-f', options.faketime, 'openssl', ...args] : args, { cwd: pki.dir, stdio: 'pipe' });
  /** `openssl ocsp` answering about `subject` (a PEM in the PKI's directory) from `index`, signed by `rsigner`. */
  const ocsp = (subject: string, options: { rsigner?: string; index?: string; faketime?: string; days?: number } = {}) => {
    const name = `ocsp-${Math.random().toString(36).slice(2)}`;
    openssl(['ocsp', '-issuer', 'ca.pem', '-cert', subject, '-no_nonce', '-reqout', `${name}.req`]);
    const rsigner = options.rsigner ?? 'ocsp';
    openssl(['ocsp', '-index', options.index ?? 'index.txt', '-rsigner', `${rsigner}.pem`, '-rkey', `${rsigner}.key`, '-CA', 'ca.pem', '-reqin', `${name}.req`, '-respout', `${name}.der`, '-ndays', String(options.days ?? 7)], options);
    return fs.readFileSync(pki.path(`${name}.der`));
  };
  /** The CA's CRL (acme not on it) with the given update times. */
  const crl = (options: { lastUpdate?: Date; nextUpdate?: Date } = {}) => {
    const name = `crl-${Math.random().toString(36).slice(2)}`;
    const times = options.lastUpdate && options.nextUpdate ? ['-crl_lastupdate', asn1Time(options.lastUpdate), '-crl_nextupdate', asn1Time(options.nextUpdate)] : [];
    openssl(['ca', '-config', 'ca.cnf', '-gencrl', '-keyfile', 'ca.key', '-cert', 'ca.pem', ...times, '-out', `${name}.pem`]);
    openssl(['crl', '-in', `${name}.pem`, '-outform', 'DER', '-out', `${name}.der`]);
    return fs.readFileSync(pki.path(`${name}.der`));
  };
  /** A CRL of another certificate authority, well formed and current, listing nothing. */
  const otherIssuersCrl = () => {
    openssl(['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', 'other-ca.key', '-out', 'other-ca.pem', '-days', '30', '-subj', '/C=KR/O=Elsewhere/CN=Another Root CA']);
    fs.writeFileSync(pki.path('other-index.txt'), '');
    fs.writeFileSync(pki.path('other-ca.cnf'), `[ ca ]\ndefault_ca = other\n[ other ]\ndatabase = ${pki.path('other-index.txt')}\ndefault_md = sha256\ndefault_crl_days = 30\n`);
    openssl(['ca', '-config', 'other-ca.cnf', '-gencrl', '-keyfile', 'other-ca.key', '-cert', 'other-ca.pem', '-out', 'other-ca.crl.pem']);
    openssl(['crl', '-in', 'other-ca.crl.pem', '-outform', 'DER', '-out', 'other-ca.crl']);
    return fs.readFileSync(pki.path('other-ca.crl'));
  };
  /** A copy of the CA's index with acme revoked (keyCompromise) at `at`: the live responder is untouched. */
  const revokedIndex = (at: Date) => {
    const serial = openssl(['x509', '-in', 'acme.pem', '-noout', '-serial']).toString().trim().replace(/^serial=/, '');
    const lines = fs.readFileSync(pki.path('index.txt'), 'utf8').split('\n').map((line) => {
      const f = line.split('\t');
      return f[3] === serial ? ['R', f[1], `${asn1Time(at).slice(2)},keyCompromise`, ...f.slice(3)].join('\t') : line;
    });
    fs.writeFileSync(pki.path('index-revoked.txt'), lines.join('\n'));
    return 'index-revoked.txt';
  };

  const finalPdf = async (id: string) => (await t.http.get(`/v1/documents/${id}/file`).set(bearer(org.test)).buffer(true).parse(binary).expect(200)).body as Buffer;
  const publicVerify = async (pdf: Buffer) => expectStatus(await t.http.post('/v1/verify').attach('file', pdf, { filename: 'final.pdf', contentType: 'application/pdf' }), 200).body;
  const bundleFile = async (id: string, name: string) => {
    const zip = (await t.http.get(`/v1/documents/${id}/evidence`).set(bearer(org.test)).buffer(true).parse(binary).expect(200)).body as Buffer;
    const file = path.join(pki.dir, `${name}.zip`);
    fs.writeFileSync(file, zip);
    return file;
  };

  /** Records `pdf` as the document's newest final PDF, as an archive round does. */
  async function recordFinal(pdf: Buffer): Promise<void> {
    const blob = await t.infra.blobs.put(pdf);
    const { state } = await t.infra.commands.load(documentDecider, documentStreamId(documentId));
    const now = new Date().toISOString();
    await t.infra.commands.decide(
      documentDecider,
      documentStreamId(documentId),
      {
        type: 'ArchiveTimestampDocument',
        now,
        previous_final_sha256: state.final_pdf!.sha256,
        final_pdf: { sha256: blob.sha256, byte_size: blob.byte_size },
        timestamped_at: now,
        tsa_certificate_expires_at: new Date(Date.now() + 300 * DAY).toISOString(),
      },
      { actor: 'system', organization_id: org.id, livemode: false },
      () => new Date().toISOString(),
    );
    await t.infra.projections.catchUp();
  }

  /** The signed PDF with a DSS holding exactly `data` (and the chain), then a document timestamp over it. */
  const withDss = (data: { ocsps?: Buffer[]; crls?: Buffer[] }) =>
    runPdfWorkOnThisThread(async () => addDocumentTimestamp(await addDss(signedPdf, { certs: [acme, ca], ocsps: data.ocsps ?? [], crls: data.crls ?? [] }), pki.tsaUrl));

  /** Every entry's verdict on the document's newest final PDF. */
  async function everyEntry(pdf: Buffer, name: string, trustFile = pki.path('ca.pem')) {
    const api = await publicVerify(pdf);
    const signature = (api.signatures as Signature[]).filter((s) => s.kind === 'signature').pop()!;
    const program = await dojangVerify(['--trust', trustFile, await bundleFile(documentId, name)]);
    const cli = (await t.admin.verifyDocument(documentId)) as Cli;
    return { api, signature, program, cli, cliCheck: cli.checks.find((c) => c.check === 'final_pdf_signature')! };
  }

  beforeAll(async () => {
    pki = await startLocalPki();
    t = await startTestApp({
      env: { TSA_URL: pki.tsaUrl, PADES_LEVEL: 'B-T', SIGNING_P12: pki.path('signer.p12'), SIGNING_P12_PASSWORD: pki.passphrase, VERIFY_TRUST_ANCHORS: pki.path('ca.pem') },
    });
    org = await t.createOrg();
    const issued = pki.issueSigner('acme', '/C=KR/O=Acme/CN=Acme Document Signing');
    acme = der(issued.certPem);
    ca = pki.caDer;
    expectStatus(await t.http.put('/v1/organization/signing_certificate').set(bearer(org.test)).send({ p12: issued.p12.toString('base64'), password: pki.passphrase }), 200);
    const { id, token } = await sentDocument(t, org.test, '임대차계약서');
    expectStatus(await t.http.post(`/v1/signing/${token}/sign`).send({ consent: true, signature: SIGNATURE }), 200);
    documentId = id;
    signedPdf = await finalPdf(id);
    provenAt = new Date((await publicVerify(signedPdf)).signatures[0].proven_at);
  }, 180_000);
  afterAll(async () => {
    await t.close();
    await pki.close();
  });

  it('a good response: every entry passes, names the signer, fingerprint, chain and proven time, and agrees on trust with the list, another anchor and none', async () => {
    const good = await runPdfWorkOnThisThread(() => extendPades(signedPdf, { tsaUrl: pki.tsaUrl, level: 'B-LTA' }));
    await recordFinal(good);
    const { api, signature, program, cliCheck } = await everyEntry(good, 'good');
    expect(api).toMatchObject({ verdict: 'issued_unchanged', trust_anchors: [{ subject: 'C=KR, O=Dojang Test, CN=Dojang Test Root CA' }] });
    expect(signature).toMatchObject({ valid: true, trusted: true, trust: expect.stringMatching(/^trusted: the chain reaches the anchor C=KR, O=Dojang Test, CN=Dojang Test Root CA/), revocation: expect.stringMatching(/^OCSP good at/), standing_problem: null, proven_at: provenAt.toISOString() });
    expect(signature.chain).toHaveLength(2);
    expect(program.code).toBe(0);
    expect(program.stdout).toContain(`C=KR, O=Acme, CN=Acme Document Signing (SHA-256 ${signature.certificate_sha256})`);
    expect(program.stdout).toContain('trusted: the chain reaches the anchor C=KR, O=Dojang Test, CN=Dojang Test Root CA');
    expect(program.stdout).toContain(`proven to exist at ${provenAt.toISOString()}`);
    // cli verify without --trust judges with the installation's list, as the API does.
    expect(cliCheck).toMatchObject({ status: 'ok', detail: expect.stringContaining('trusted: the chain reaches the anchor C=KR, O=Dojang Test, CN=Dojang Test Root CA') });
    expect(cliCheck.detail).toContain(`proven to exist at ${provenAt.toISOString()}`);

    // Another anchor (a look-alike: the platform's own signing certificate): untrusted, failed, everywhere.
    const config = t.infra.config as { verifyTrustAnchors: { file: string; certificates: Buffer[] } | null };
    const configured = config.verifyTrustAnchors;
    const otherAnchor = path.join(pki.dir, 'look-alike.pem');
    fs.writeFileSync(otherAnchor, pki.signerCertPem);
    try {
      config.verifyTrustAnchors = { file: otherAnchor, certificates: [der(pki.signerCertPem)] };
      const other = await everyEntry(good, 'other-anchor', otherAnchor);
      expect(other.api.verdict).toBe('issued_signature_invalid');
      expect(other.signature).toMatchObject({ valid: false, trusted: false, trust: expect.stringMatching(/^untrusted issuer: the chain does not reach any trust anchor given/) });
      expect(other.program.code).toBe(1);
      expect(other.program.stdout).toContain('untrusted issuer: the chain does not reach any trust anchor given');
      expect(other.cliCheck).toMatchObject({ status: 'failed', detail: expect.stringContaining('untrusted issuer: the chain does not reach any trust anchor given') });

      // No list: "untrusted issuer" said plainly by all, nothing implied; the signature itself holds.
      config.verifyTrustAnchors = null;
      const api = await publicVerify(good);
      expect(api.trust_anchors).toEqual([]);
      expect(api.signatures[0]).toMatchObject({ valid: true, trusted: false, trust: expect.stringMatching(/^untrusted issuer: no trust anchor given/) });
      const plain = await dojangVerify([await bundleFile(documentId, 'no-anchor')]);
      expect(plain.code).toBe(0);
      expect(plain.stdout).toContain('untrusted issuer: no trust anchor given');
      const cli = (await t.admin.verifyDocument(documentId)) as Cli;
      expect(cli.checks.find((c) => c.check === 'final_pdf_signature')).toMatchObject({ status: 'ok', detail: expect.stringContaining('untrusted issuer: no trust anchor given') });
    } finally {
      config.verifyTrustAnchors = configured;
    }
  });

  it.each([
    ['a malformed OCSP response', () => ({ ocsps: [Buffer.from('not an OCSP response')] }), /revocation unknown: the OCSP response is unreadable/],
    ['a malformed CRL', () => ({ crls: [Buffer.from([0x30, 0x03, 0x02, 0x01, 0x00])] }), /revocation unknown: the CRL is unreadable/],
    // Issued three days ago for one day (libfaketime): its next update is before the signature's proven time.
    ['a stale OCSP response', () => ({ ocsps: [ocsp('acme.pem', { faketime: '-3d', days: 1 })] }), /revocation unknown: the OCSP response is stale \(next update/],
    ['a stale CRL', () => ({ crls: [crl({ lastUpdate: new Date(Date.now() - 3 * DAY), nextUpdate: new Date(Date.now() - 2 * DAY) })] }), /revocation unknown: the CRL is stale \(next update/],
    ["an OCSP response about another certificate (the TSA's)", () => ({ ocsps: [ocsp('tsa.pem')] }), /revocation unknown: the revocation data added after the signature \(DSS\) is about other certificates only/],
    ["another issuer's CRL", () => ({ crls: [otherIssuersCrl()] }), /revocation unknown: the revocation data added after the signature \(DSS\) is about other certificates only/],
    ['an OCSP response signed by the wrong key (the document-signing key, not authorized for OCSP)', () => ({ ocsps: [ocsp('acme.pem', { rsigner: 'signer' })] }), /revocation unknown: the OCSP response is not signed by the certificate's issuer or a responder it authorized/],
    ['a CRL whose signature does not verify', () => {
      const forged = Buffer.from(crl());
      forged[forged.length - 1] ^= 0xff;
      return { crls: [forged] };
    }, /revocation unknown: the CRL is not signed by the certificate's issuer/],
  ])('%s: every entry says "revocation unknown" and fails the signature, never "good"', async (name, data, reason) => {
    const pdf = await withDss(data());
    await recordFinal(pdf);
    const { api, signature, program, cli, cliCheck } = await everyEntry(pdf, name.replace(/\W+/g, '-'));

    expect(api.verdict).toBe('issued_signature_invalid');
    expect(api.ltv).toMatchObject({ dss: true, revocation_data: true, document_timestamp: true });
    expect(signature).toMatchObject({ valid: false, revocation: expect.stringMatching(reason), standing_problem: expect.stringMatching(reason), trusted: true });
    expect(signature.revocation).not.toMatch(/good/);

    expect(program.code).toBe(1);
    expect(program.stdout).toMatch(reason);
    // The final PDF's signature first. Data that cannot be told to be about someone else (malformed,
    // or the issuer's stale or forged CRL) fails the audit certificate's countersignature as well:
    // that file embeds the same DSS, and the same judge fails closed for its signer too.
    expect(program.stdout).toMatch(/Verdict: verification FAILED \(pades[,)]/);

    expect(cli.intact).toBe(false);
    expect(cliCheck).toMatchObject({ status: 'failed', detail: expect.stringMatching(reason) });
    expect(cli.checks.filter((c) => c.status === 'failed').map((c) => c.check)).toEqual(['final_pdf_signature']);
  });

  it('a response saying revoked (keyCompromise) before the signature: every entry fails, naming the revocation and its reason', async () => {
    const pdf = await withDss({ ocsps: [ocsp('acme.pem', { index: revokedIndex(new Date(provenAt.getTime() - 60_000)) })] });
    await recordFinal(pdf);
    const { api, signature, program, cli, cliCheck } = await everyEntry(pdf, 'revoked');
    const reason = /the signing certificate was revoked at the signature's time: OCSP: revoked .*\(keyCompromise\)/;
    expect(api.verdict).toBe('issued_signature_invalid');
    expect(signature).toMatchObject({ valid: false, revocation: expect.stringMatching(/^OCSP: revoked .*\(keyCompromise\)/), standing_problem: expect.stringMatching(reason) });
    expect(program.code).toBe(1);
    expect(program.stdout).toMatch(reason);
    expect(cli.intact).toBe(false);
    expect(cliCheck).toMatchObject({ status: 'failed', detail: expect.stringMatching(reason) });
  });

  it('revoked only after the signature: good at its time, every entry passes', async () => {
    const pdf = await withDss({ ocsps: [ocsp('acme.pem', { index: revokedIndex(new Date(provenAt.getTime() + 60_000)) })] });
    await recordFinal(pdf);
    const { api, signature, program, cliCheck } = await everyEntry(pdf, 'revoked-later');
    expect(api.verdict).toBe('issued_unchanged');
    expect(signature).toMatchObject({ valid: true, revocation: expect.stringMatching(/^OCSP: good at .*, revoked later/), standing_problem: null });
    expect(program.code).toBe(0);
    expect(cliCheck).toMatchObject({ status: 'ok', detail: expect.stringMatching(/revocation: OCSP: good at .*, revoked later/) });
  });
});
