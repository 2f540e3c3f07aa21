import { execFile, execFileSync } from 'node:child_process';
import { createServer, Server } from 'node:http';
import { AddressInfo } from 'node:net';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

/**
 * A certificate authority, a timestamp authority and an OCSP responder made with OpenSSL at test
 * time in a temporary directory (nothing downloaded): the root CA issues the document-signing
 * certificate, the TSA's certificate and the OCSP responder's; one small HTTP server answers
 * `POST /tsa` with `openssl ts -reply` and `POST /ocsp` with `openssl ocsp -reqin … -respout`, and
 * serves the CA's CRL at `GET /ca.crl`. The signer and TSA certificates name `/ocsp` in their
 * Authority Information Access and `/ca.crl` as their CRL distribution point.
 */
export interface LocalPki {
  dir: string;
  tsaUrl: string;
  ocspUrl: string;
  /** Root CA, PEM and DER. */
  caPem: string;
  caDer: Buffer;
  /** The document-signing identity issued by the CA, as a PKCS#12 with the CA in it. */
  p12: Buffer;
  passphrase: string;
  signerKeyPem: string;
  signerCertPem: string;
  /** Requests each endpoint answered. */
  served: { tsa: number; ocsp: number; crl: number };
  /** Makes every endpoint answer 503 (an authority down) until set back to false. */
  down: boolean;
  /** Makes only the OCSP responder answer 503 (the CRL is still served). */
  ocspDown: boolean;
  path(name: string): string;
  /**
   * Issues another document-signing certificate from the CA (AIA and CDP as the signer's), listed
   * valid in the responder's index; returns its PKCS#12 (with the CA, `passphrase`) and PEM.
   */
  /** `names_sources: false`: a certificate without AIA/CDP (only configured revocation sources can check it). */
  issueSigner(name: string, subject: string, options?: { names_sources?: boolean }): { p12: Buffer; certPem: string };
  /**
   * Marks `name`'s certificate (`signer`, `tsa` or one from issueSigner) revoked in the CA's index
   * as of `at` (default now, may be backdated) for `reason`; the OCSP responder answers revoked
   * from then on and the CRL is reissued listing it.
   */
  revoke(name: string, options?: { at?: Date; reason?: string }): void;
  close(): Promise<void>;
}

function openssl(dir: string, args: string[], input?: string): string {
  return execFileSync('openssl', args, { cwd: dir, encoding: 'utf8', input, stdio: ['pipe', 'pipe', 'pipe'] });
}

function issue(dir: string, name: string, subject: string, extensions: string, days = 365): void {
  openssl(dir, ['req', '-new', '-newkey', 'rsa:2048', '-nodes', '-keyout', `${name}.key`, '-out', `${name}.csr`, '-subj', subject]);
  writeFileSync(join(dir, `${name}.ext`), extensions);
  openssl(dir, ['x509', '-req', '-in', `${name}.csr`, '-CA', 'ca.pem', '-CAkey', 'ca.key', '-CAcreateserial', '-days', String(days), '-sha256', '-extfile', `${name}.ext`, '-out', `${name}.pem`]);
}

/** One line of an `openssl ca` index (what `openssl ocsp -index` answers from). */
const asnTime = (d: Date) => {
  const yy = (n: number) => String(n).padStart(2, '0');
  return `${yy(d.getUTCFullYear() % 100)}${yy(d.getUTCMonth() + 1)}${yy(d.getUTCDate())}${yy(d.getUTCHours())}${yy(d.getUTCMinutes())}${yy(d.getUTCSeconds())}Z`;
};

function certSerial(dir: string, cert: string): string {
  return openssl(dir, ['x509', '-in', cert, '-noout', '-serial']).trim().replace(/^serial=/, '');
}

function indexLine(dir: string, cert: string): string {
  const serial = openssl(dir, ['x509', '-in', cert, '-noout', '-serial']).trim().replace(/^serial=/, '');
  const end = new Date(openssl(dir, ['x509', '-in', cert, '-noout', '-enddate']).trim().replace(/^notAfter=/, ''));
  const yy = (n: number) => String(n).padStart(2, '0');
  const expiry = `${yy(end.getUTCFullYear() % 100)}${yy(end.getUTCMonth() + 1)}${yy(end.getUTCDate())}${yy(end.getUTCHours())}${yy(end.getUTCMinutes())}${yy(end.getUTCSeconds())}Z`;
  const subject = openssl(dir, ['x509', '-in', cert, '-noout', '-subject', '-nameopt', 'compat']).trim().replace(/^subject=\s*/, '');
  return `V\t${expiry}\t\t${serial}\tunknown\t${subject}\n`;
}

export async function startLocalPki(): Promise<LocalPki> {
  const dir = mkdtempSync(join(tmpdir(), 'dojang-pki-'));
  const served = { tsa: 0, ocsp: 0, crl: 0 };
  const pki = { down: false, ocspDown: false } as LocalPki;
  let tsaQueue: Promise<unknown> = Promise.resolve();
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const answer = async (): Promise<void> => {
        if (pki.down || (pki.ocspDown && req.url === '/ocsp')) {
          res.writeHead(503).end();
          return;
        }
        const id = `${Date.now()}-${Math.random().toString(36).slice(2)}`;
        if (req.method === 'POST' && req.url === '/tsa') {
          served.tsa++;
          writeFileSync(join(dir, `${id}.tsq`), Buffer.concat(chunks));
          // One reply at a time: `openssl ts -reply` reads and rewrites the serial file, and two at
          // once (the final PDF's signature and the document's seal) made one answer "rejection".
          const reply = tsaQueue.then(() => run('openssl', ['ts', '-reply', '-config', 'tsa.cnf', '-queryfile', `${id}.tsq`, '-out', `${id}.tsr`], { cwd: dir }));
          tsaQueue = reply.catch(() => undefined);
          await reply;
          res.writeHead(200, { 'Content-Type': 'application/timestamp-reply' }).end(readFileSync(join(dir, `${id}.tsr`)));
        } else if (req.method === 'POST' && req.url === '/ocsp') {
          served.ocsp++;
          writeFileSync(join(dir, `${id}.ocq`), Buffer.concat(chunks));
          await run('openssl', ['ocsp', '-index', 'index.txt', '-rsigner', 'ocsp.pem', '-rkey', 'ocsp.key', '-CA', 'ca.pem', '-reqin', `${id}.ocq`, '-respout', `${id}.ocr`, '-ndays', '7'], { cwd: dir });
          res.writeHead(200, { 'Content-Type': 'application/ocsp-response' }).end(readFileSync(join(dir, `${id}.ocr`)));
        } else if (req.method === 'GET' && req.url === '/ca.crl') {
          served.crl++;
          res.writeHead(200, { 'Content-Type': 'application/pkix-crl' }).end(readFileSync(join(dir, 'ca.crl')));
        } else {
          res.writeHead(404).end();
        }
      };
      answer().catch(() => res.writeHead(500).end());
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  openssl(dir, ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', 'ca.key', '-out', 'ca.pem', '-days', '3650', '-sha256', '-subj', '/C=KR/O=Dojang Test/CN=Dojang Test Root CA',
    '-addext', 'basicConstraints=critical,CA:TRUE', '-addext', 'keyUsage=critical,keyCertSign,cRLSign']);
  const revocation = `authorityInfoAccess=OCSP;URI:${origin}/ocsp\ncrlDistributionPoints=URI:${origin}/ca.crl\n`;
  issue(dir, 'ocsp', '/C=KR/O=Dojang Test/CN=Dojang Test OCSP Responder', 'basicConstraints=critical,CA:FALSE\nkeyUsage=critical,digitalSignature\nextendedKeyUsage=critical,OCSPSigning\nnoCheck=ignored\n');
  issue(dir, 'tsa', '/C=KR/O=Dojang Test/CN=Dojang Test TSA', `basicConstraints=critical,CA:FALSE\nkeyUsage=critical,digitalSignature\nextendedKeyUsage=critical,timeStamping\n${revocation}`);
  issue(dir, 'signer', '/C=KR/O=Dojang Test/CN=Dojang Test Document Signing', `basicConstraints=critical,CA:FALSE\nkeyUsage=critical,digitalSignature,nonRepudiation\n${revocation}`);
  writeFileSync(join(dir, 'index.txt'), indexLine(dir, 'tsa.pem') + indexLine(dir, 'signer.pem') + indexLine(dir, 'ocsp.pem'));
  writeFileSync(join(dir, 'crlnumber'), '01\n');
  writeFileSync(join(dir, 'tsaserial'), '01\n');
  writeFileSync(
    join(dir, 'ca.cnf'),
    `[ ca ]\ndefault_ca = local\n[ local ]\ndatabase = ${dir}/index.txt\ncrlnumber = ${dir}/crlnumber\ndefault_md = sha256\ndefault_crl_days = 30\n`,
  );
  openssl(dir, ['ca', '-config', 'ca.cnf', '-gencrl', '-keyfile', 'ca.key', '-cert', 'ca.pem', '-out', 'ca.crl.pem']);
  openssl(dir, ['crl', '-in', 'ca.crl.pem', '-outform', 'DER', '-out', 'ca.crl']);
  writeFileSync(
    join(dir, 'tsa.cnf'),
    [
      '[ tsa ]',
      'default_tsa = local',
      '[ local ]',
      `serial = ${dir}/tsaserial`,
      'crypto_device = builtin',
      `signer_cert = ${dir}/tsa.pem`,
      `certs = ${dir}/ca.pem`,
      `signer_key = ${dir}/tsa.key`,
      'signer_digest = sha256',
      'default_policy = 1.3.6.1.4.1.99999.1',
      'digests = sha256, sha384, sha512',
      'accuracy = secs:1',
      'ordering = yes',
      'tsa_name = yes',
      'ess_cert_id_chain = no',
      'ess_cert_id_alg = sha256',
      '',
    ].join('\n'),
  );
  const passphrase = 'local-pki-passphrase';
  openssl(dir, ['pkcs12', '-export', '-inkey', 'signer.key', '-in', 'signer.pem', '-certfile', 'ca.pem', '-passout', `pass:${passphrase}`, '-out', 'signer.p12']);
  const caPem = readFileSync(join(dir, 'ca.pem'), 'utf8');
  return Object.assign(pki, {
    dir,
    tsaUrl: `${origin}/tsa`,
    ocspUrl: `${origin}/ocsp`,
    caPem,
    caDer: Buffer.from(caPem.replace(/-----[A-Z ]+-----|\s+/g, ''), 'base64'),
    p12: readFileSync(join(dir, 'signer.p12')),
    passphrase,
    signerKeyPem: readFileSync(join(dir, 'signer.key'), 'utf8'),
    signerCertPem: readFileSync(join(dir, 'signer.pem'), 'utf8'),
    served,
    path: (name: string) => join(dir, name),
    issueSigner: (name: string, subject: string, options: { names_sources?: boolean } = {}) => {
      issue(dir, name, subject, `basicConstraints=critical,CA:FALSE\nkeyUsage=critical,digitalSignature,nonRepudiation\n${options.names_sources === false ? '' : revocation}`);
      writeFileSync(join(dir, 'index.txt'), readFileSync(join(dir, 'index.txt'), 'utf8') + indexLine(dir, `${name}.pem`));
      openssl(dir, ['pkcs12', '-export', '-inkey', `${name}.key`, '-in', `${name}.pem`, '-certfile', 'ca.pem', '-passout', `pass:${passphrase}`, '-out', `${name}.p12`]);
      return { p12: readFileSync(join(dir, `${name}.p12`)), certPem: readFileSync(join(dir, `${name}.pem`), 'utf8') };
    },
    revoke: (name: string, options: { at?: Date; reason?: string } = {}) => {
      const serial = certSerial(dir, `${name}.pem`);
      const lines = readFileSync(join(dir, 'index.txt'), 'utf8').split('\n');
      const revoked = lines.map((line) => {
        const fields = line.split('\t');
        if (fields[3] !== serial) return line;
        return ['R', fields[1], `${asnTime(options.at ?? new Date())},${options.reason ?? 'keyCompromise'}`, ...fields.slice(3)].join('\t');
      });
      writeFileSync(join(dir, 'index.txt'), revoked.join('\n'));
      openssl(dir, ['ca', '-config', 'ca.cnf', '-gencrl', '-keyfile', 'ca.key', '-cert', 'ca.pem', '-out', 'ca.crl.pem']);
      openssl(dir, ['crl', '-in', 'ca.crl.pem', '-outform', 'DER', '-out', 'ca.crl']);
    },
    close: async () => {
      await new Promise((resolve) => server.close(resolve));
      rmSync(dir, { recursive: true, force: true });
    },
  });
}

/** The catalog's DSS as qpdf reads it: how many streams each array holds. */
export function qpdfDss(pdf: Buffer): Record<string, number> {
  const dir = mkdtempSync(join(tmpdir(), 'dojang-dss-'));
  try {
    writeFileSync(join(dir, 'doc.pdf'), pdf);
    const json = JSON.parse(execFileSync('qpdf', ['--json=2', '--json-key=qpdf', join(dir, 'doc.pdf')], { encoding: 'utf8', maxBuffer: 64 << 20 }));
    const objects = json.qpdf[1] as Record<string, { value?: Record<string, unknown> }>;
    const trailer = objects.trailer.value as { '/Root': string };
    const root = objects[`obj:${trailer['/Root']}`].value as Record<string, string>;
    const dssRef = root['/DSS'];
    if (!dssRef) return {};
    const dss = objects[`obj:${dssRef}`].value as Record<string, string | string[]>;
    const count = (key: string) => {
      const value = dss[key];
      const array = typeof value === 'string' ? (objects[`obj:${value}`].value as unknown as string[]) : value;
      return Array.isArray(array) ? array.filter((ref) => objects[`obj:${ref}`] && 'stream' in (objects[`obj:${ref}`] as object)).length : 0;
    };
    return { Certs: count('/Certs'), OCSPs: count('/OCSPs'), CRLs: count('/CRLs') };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

