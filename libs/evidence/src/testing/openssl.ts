import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * OpenSSL as an independent CMS reader: what it accepts was not merely read back by the library
 * that wrote it.
 */

function withFiles<T>(files: Record<string, Buffer | string>, fn: (path: (name: string) => string) => T): T {
  const dir = mkdtempSync(join(tmpdir(), 'dojang-cms-'));
  try {
    for (const [name, content] of Object.entries(files)) writeFileSync(join(dir, name), content);
    return fn((name) => join(dir, name));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * `openssl cms -verify` of a detached CMS over `content`: checks the message digest against the
 * content and the signature with the embedded certificate (`-noverify` skips only the chain, since
 * a self-signed installation certificate chains to nothing). Returns success and what it printed.
 */
export function opensslCmsVerify(cms: Buffer, content: Buffer): { ok: boolean; output: string } {
  return withFiles({ 'sig.der': cms, 'content.bin': content }, (p) => {
    const run = spawnSync(
      'openssl',
      ['cms', '-verify', '-binary', '-inform', 'DER', '-in', p('sig.der'), '-content', p('content.bin'), '-noverify', '-out', p('out.bin')],
      { encoding: 'utf8' },
    );
    // OpenSSL reports success on stderr.
    return { ok: run.status === 0, output: `${run.stdout}${run.stderr}` };
  });
}

/** `openssl cms -cmsout -print`: the structure with OpenSSL's names for every attribute. */
export function opensslCmsPrint(cms: Buffer): string {
  return withFiles({ 'sig.der': cms }, (p) =>
    execFileSync('openssl', ['cms', '-cmsout', '-print', '-inform', 'DER', '-in', p('sig.der')], { encoding: 'utf8' }),
  );
}

/** `openssl asn1parse` of DER. */
export function opensslAsn1parse(der: Buffer): string {
  return withFiles({ 'x.der': der }, (p) => execFileSync('openssl', ['asn1parse', '-inform', 'DER', '-in', p('x.der')], { encoding: 'utf8' }));
}
