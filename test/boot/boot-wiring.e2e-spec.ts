import { execFileSync } from 'child_process';
import { createHash } from 'crypto';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { loadConfig, openInfrastructure } from '@dojang/application';
import { pdfFixture } from '@dojang/pdf/testing/fixtures';
import { startTestApp } from '../support/test-app';

/**
 * Every store configuration a process can be started with, opened the way the processes open it
 * (`openInfrastructure(loadConfig(env))`): the embedded default serves a request; a production
 * configuration whose servers do not answer fails at once with a message naming the store and its
 * variable (never a TypeError, never a hang until the first request); half a configuration is
 * refused. The compiled processes are booted the same way in boot-processes.e2e-spec.ts.
 */

/** Loopback port 1: nothing listens there, so a connection is refused at once. */
const UNREACHABLE = {
  EVENTSTORE_URL: 'esdb://127.0.0.1:1?tls=false',
  MONGO_URL: 'mongodb://127.0.0.1:1/dojang?serverSelectionTimeoutMS=500',
  DATABASE_URL: 'postgres://postgres@127.0.0.1:1/dojang',
};

let dataDir: string;
beforeEach(() => {
  dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'dojang-boot-'));
});
afterEach(() => fs.rmSync(dataDir, { recursive: true, force: true }));

function env(extra: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  return { NODE_ENV: 'test', DATA_DIR: dataDir, STORE_CONNECT_TIMEOUT_MS: '500', ...extra };
}

/** What opening the infrastructure threw: an Error, never a TypeError. */
async function bootFailure(extra: NodeJS.ProcessEnv): Promise<Error> {
  let infra: Awaited<ReturnType<typeof openInfrastructure>> | undefined;
  try {
    infra = await openInfrastructure(loadConfig(env(extra)));
  } catch (err) {
    expect(err).toBeInstanceOf(Error);
    expect(err).not.toBeInstanceOf(TypeError);
    return err as Error;
  }
  await infra.close();
  throw new Error(`booted with ${JSON.stringify(extra)}`);
}

describe('boot wiring: every store configuration', () => {
  it('no store URL: the embedded SQLite stores open and serve a request', async () => {
    const t = await startTestApp({ worker: false });
    try {
      expect(t.infra.storeKind).toBe('sqlite');
      const org = await t.createOrg();
      const health = await t.http.get('/v1/health');
      expect(health.status).toBe(200);
      const list = await t.http.get('/v1/documents').set('Authorization', `Bearer ${org.test}`);
      expect(list.status).toBe(200);
      expect(list.body).toMatchObject({ object: 'list', data: [] });
    } finally {
      await t.close();
    }
  });

  it('EVENTSTORE_URL + MONGO_URL with neither server answering: refused, naming both stores', async () => {
    const err = await bootFailure({ EVENTSTORE_URL: UNREACHABLE.EVENTSTORE_URL, MONGO_URL: UNREACHABLE.MONGO_URL });
    expect(err.message).toMatch(/EventStoreDB \(EVENTSTORE_URL\) is unreachable: .*UNAVAILABLE/);
    expect(err.message).toMatch(/MongoDB \(MONGO_URL\) is unreachable: .*ECONNREFUSED/);
  });

  it.each([
    ['MONGO_URL alone', { MONGO_URL: UNREACHABLE.MONGO_URL }],
    ['EVENTSTORE_URL alone', { EVENTSTORE_URL: UNREACHABLE.EVENTSTORE_URL }],
  ])('%s: refused before connecting, saying the two go together', async (_name, extra) => {
    const err = await bootFailure(extra);
    expect(err.message).toMatch(/EVENTSTORE_URL and MONGO_URL go together/);
  });

  it('DATABASE_URL beside the EventStoreDB URLs: refused, not mixed', async () => {
    const err = await bootFailure({ ...UNREACHABLE });
    expect(err.message).toMatch(/DATABASE_URL selects PostgreSQL for every store/);
  });

  it('DATABASE_URL with no server answering: refused, naming PostgreSQL and DATABASE_URL', async () => {
    const err = await bootFailure({ DATABASE_URL: UNREACHABLE.DATABASE_URL });
    expect(err.message).toMatch(/PostgreSQL/);
    expect(err.message).toMatch(/DATABASE_URL/);
    // The server's refusal, not a placeholder: the store was really asked.
    expect(err.message).toMatch(/unreachable|ECONNREFUSED/);
  });
});

/**
 * VERIFY_TRUST_ANCHORS, the trust list POST /v1/verify judges signatures against: read at boot, so
 * a wrong file stops the process naming the variable and the file, never a server that says
 * "untrusted issuer" for every signature for a reason nobody sees.
 */
describe('boot wiring: the verify trust list (VERIFY_TRUST_ANCHORS)', () => {
  /** A self-signed CA certificate made here with OpenSSL: PEM and DER. */
  const anchor = (dir: string) => {
    execFileSync('openssl', ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', path.join(dir, 'a.key'), '-out', path.join(dir, 'anchor.pem'), '-days', '30', '-subj', '/C=KR/O=Boot Test/CN=Boot Test Anchor'], { stdio: 'pipe' });
    const pem = fs.readFileSync(path.join(dir, 'anchor.pem'), 'utf8');
    return { file: path.join(dir, 'anchor.pem'), pem, der: Buffer.from(pem.replace(/-----[A-Z ]+-----|\s+/g, ''), 'base64') };
  };

  it.each([
    ['a missing file', () => path.join(dataDir, 'nowhere.pem'), /VERIFY_TRUST_ANCHORS=.*nowhere\.pem: cannot read the file \(ENOENT/],
    ['a directory', () => dataDir, /VERIFY_TRUST_ANCHORS=.*: cannot read the file \(EISDIR/],
    ['a file with no PEM certificate (DER bytes)', () => {
      const { der } = anchor(dataDir);
      fs.writeFileSync(path.join(dataDir, 'anchor.der'), der);
      return path.join(dataDir, 'anchor.der');
    }, /VERIFY_TRUST_ANCHORS=.*anchor\.der: no PEM certificate in it/],
    ['a PEM block that is not a certificate', () => {
      fs.writeFileSync(path.join(dataDir, 'junk.pem'), '-----BEGIN CERTIFICATE-----\nbm90IGEgY2VydGlmaWNhdGU=\n-----END CERTIFICATE-----\n');
      return path.join(dataDir, 'junk.pem');
    }, /VERIFY_TRUST_ANCHORS=.*junk\.pem: certificate 1 of 1 is not a readable X\.509 certificate/],
  ])('%s: refused at boot, naming the variable and the file', async (_what, file, message) => {
    const err = await bootFailure({ VERIFY_TRUST_ANCHORS: file() });
    expect(err.message).toMatch(message);
  });

  it('a PEM bundle: the server boots and POST /v1/verify names the anchors it judges with; without one it names none', async () => {
    const a = anchor(dataDir);
    // A bundle of two: the anchor and another certificate after some text (as CA bundles carry).
    const other = fs.mkdtempSync(path.join(os.tmpdir(), 'dojang-boot-other-'));
    const b = anchor(other);
    fs.writeFileSync(path.join(dataDir, 'bundle.pem'), `# anchors\n${a.pem}\nsecond:\n${b.pem}`);
    fs.rmSync(other, { recursive: true, force: true });
    const pdf = pdfFixture('chromium-korean-contract-a4.pdf');
    const fingerprint = (der: Buffer) => createHash('sha256').update(der).digest('hex');
    const t = await startTestApp({ worker: false, env: { VERIFY_TRUST_ANCHORS: path.join(dataDir, 'bundle.pem') } });
    try {
      const res = await t.http.post('/v1/verify').attach('file', pdf, { filename: 'a.pdf', contentType: 'application/pdf' });
      expect(res.status).toBe(200);
      expect(res.body.trust_anchors).toEqual([
        { subject: 'C=KR, O=Boot Test, CN=Boot Test Anchor', sha256: fingerprint(a.der) },
        { subject: 'C=KR, O=Boot Test, CN=Boot Test Anchor', sha256: fingerprint(b.der) },
      ]);
    } finally {
      await t.close();
    }
    const plain = await startTestApp({ worker: false });
    try {
      const res = await plain.http.post('/v1/verify').attach('file', pdf, { filename: 'a.pdf', contentType: 'application/pdf' });
      expect(res.status).toBe(200);
      expect(res.body.trust_anchors).toEqual([]);
    } finally {
      await plain.close();
    }
  });
});
