import { spawnSync } from 'child_process';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { PDFDocument } from 'pdf-lib';
import { signChainHead } from '@dojang/application/verification/chain-head-proof';
import { evidenceKeyOf, loadOrCreateSigningIdentity, signPdf, SigningIdentity } from '@dojang/evidence';
import { ChainHeadStatement, chainHeadProofProblem } from './chain-head-proof';
import { main } from './main';
import { pdfChainHead, pemCertificates, verifyPades } from './pades';

/**
 * The verifier rebuilds by itself what the server signs (libs/application, libs/pdf): these
 * specs sign with the server's code and check with the verifier's, so the two cannot drift apart
 * unnoticed.
 */
describe('libs/verifier against what the server signs', () => {
  let dir: string;
  let identity: SigningIdentity;
  let certificate: Buffer;

  beforeAll(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'dojang-verifier-'));
    identity = await loadOrCreateSigningIdentity({ dataDir: dir });
    certificate = pemCertificates(identity.certificatePem)[0];
  });
  afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

  const statement: ChainHeadStatement = {
    document_id: '7f0c7f9e-9a55-4a36-8c1c-6a1f4a7e2b10',
    head: { revision: 9, hash: 'a'.repeat(64), event_count: 10, completed_event_count: 12 },
    signer: { participant_id: 'p1', signature_sha256: 'b'.repeat(64), seal_sha256: null, ip: '203.0.113.7', user_agent: 'Mozilla/5.0' },
    original_sha256: 'c'.repeat(64),
    final_pdf_sha256: 'd'.repeat(64),
  };

  it("accepts a chain head the server's signChainHead sealed, and nothing else", () => {
    const proof = signChainHead(statement, evidenceKeyOf(identity));
    expect(chainHeadProofProblem(statement, proof, certificate)).toBeNull();
    expect(chainHeadProofProblem({ ...statement, signer: { ...statement.signer, ip: '198.51.100.1' } }, proof, certificate)).toMatch(/does not match/);
    expect(chainHeadProofProblem({ ...statement, head: { ...statement.head, completed_event_count: 11 } }, proof, certificate)).toMatch(/does not match/);
    expect(chainHeadProofProblem(statement, { ...proof, certificate_sha256: '0'.repeat(64) }, certificate)).toMatch(/another|certificate/);
  });

  it('checks a PAdES signature signPdf made, reads its DojangChainHead, and refuses a changed byte', async () => {
    const doc = await PDFDocument.create();
    doc.addPage([200, 200]);
    const head = { document_id: statement.document_id, ...statement.head };
    const signed = await signPdf(Buffer.from(await doc.save()), {
      p12: identity.p12,
      passphrase: identity.passphrase,
      evidence: { DojangChainHead: JSON.stringify(head) },
    });
    expect(verifyPades(signed, certificate)).toMatchObject({ ok: true });
    expect(pdfChainHead(signed)).toEqual(head);

    const altered = Buffer.from(signed);
    altered[100] ^= 0x01;
    expect(verifyPades(altered, certificate)).toEqual({ ok: false, detail: expect.stringMatching(/altered/) });

    const stranger = await loadOrCreateSigningIdentity({ dataDir: path.join(dir, 'other') });
    expect(verifyPades(signed, pemCertificates(stranger.certificatePem)[0])).toEqual({ ok: false, detail: expect.stringMatching(/another certificate/) });
  });
});

describe('dojang-verify: a missing or unreadable input is one line and exit 2', () => {
  const run = async (argv: string[]) => {
    let out = '';
    let err = '';
    const sink = (add: (s: string) => void) => ({ write: (s: string) => (add(s), true) }) as unknown as NodeJS.WritableStream;
    const code = await main(argv, sink((s) => (out += s)), sink((s) => (err += s)));
    return { code, out, err };
  };

  it('names the file and the reason, never a stack trace: missing, a directory, not a ZIP, a missing or wrong --trust file', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'dojang-verify-input-'));
    try {
      const notZip = path.join(dir, 'bundle.zip');
      fs.writeFileSync(notZip, 'not a zip');
      const notPem = path.join(dir, 'anchors.pem');
      fs.writeFileSync(notPem, 'not a certificate');
      const cases: Array<[string[], RegExp]> = [
        [[path.join(dir, 'missing.zip')], /^읽을 수 없습니다 \/ cannot read .*missing\.zip: ENOENT: no such file or directory/],
        [[dir], /^읽을 수 없습니다 \/ cannot read .*: EISDIR/],
        [[notZip], /^증거 번들을 읽을 수 없습니다 \/ unreadable evidence bundle: not a readable ZIP/],
        [['--trust', path.join(dir, 'missing.pem'), notZip], /^신뢰 앵커를 읽을 수 없습니다 \/ cannot read trust anchors .*missing\.pem: ENOENT/],
        [['--trust', notPem, notZip], /^신뢰 앵커를 읽을 수 없습니다 \/ cannot read trust anchors .*anchors\.pem: /],
        [['--trust'], /^사용법 \/ usage: dojang-verify \[--trust anchors\.pem\]\.\.\. <bundle\.zip>/],
      ];
      for (const [argv, expected] of cases) {
        const { code, out, err } = await run(argv);
        expect({ argv, code, out }).toEqual({ argv, code: 2, out: '' });
        expect(err).toMatch(expected);
        expect(err.trim().split('\n')).toHaveLength(1);
      }
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('npm run pack:verifier: a destination that cannot take the tarball is one line and exit 2 (issue 31 item 8)', () => {
  it('names a missing directory and a file given as the directory, before building anything', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'dojang-pack-verifier-'));
    try {
      const file = path.join(dir, 'a-file');
      fs.writeFileSync(file, '');
      const script = path.join(__dirname, '..', '..', '..', 'scripts', 'build-verifier.js');
      for (const [destination, reason] of [
        [path.join(dir, 'missing'), 'no such directory'],
        [file, 'not a directory'],
      ]) {
        const run = spawnSync(process.execPath, [script, '--pack', destination], { encoding: 'utf8', timeout: 60_000 });
        expect({ destination, status: run.status, stdout: run.stdout }).toEqual({ destination, status: 2, stdout: '' });
        expect(run.stderr).toBe(`pack:verifier: cannot pack into ${destination}: ${reason}\n`);
      }
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
