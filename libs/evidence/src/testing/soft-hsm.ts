import { execFileSync } from 'child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'fs';
import { tmpdir } from 'os';
import { join } from 'path';

export const SOFTHSM_MODULE = '/usr/lib/softhsm/libsofthsm2.so';

export interface SoftHsmToken {
  /** SOFTHSM2_CONF for child processes (servers, workers) that should see this token. */
  conf: string;
  dir: string;
  label: string;
  pin: string;
  remove(): void;
}

/**
 * A SoftHSM2 token of its own for one test file, usable in this process (and its pool threads)
 * even when an earlier file in the same jest worker used another token.
 *
 * Why it is not simply "write a config, set SOFTHSM2_CONF": SoftHSM2 reads SOFTHSM2_CONF with
 * getenv() in C_Initialize, and a jest worker runs many files in one process. jest's process.env
 * is a sandbox copy, so the variable has to go into the real environment with loadEnvFile — which
 * never overwrites a variable already set, so a second file kept the first file's (deleted)
 * config and C_Initialize failed with CKR_GENERAL_ERROR. And SoftHSM2 lists only the tokens that
 * existed at C_Initialize, so a library left initialized by the earlier file would not see this
 * one's. So: one config path per process (set once), rewritten per file, and the library
 * finalized so that the code under test initializes it again against this file's token.
 */
export function createSoftHsmToken(label: string, pin: string, keys: Array<{ pemKeyFile: string; label: string; id: string }>): SoftHsmToken {
  const conf = join(tmpdir(), `dojang-softhsm-${process.pid}.conf`);
  const dir = mkdtempSync(join(tmpdir(), 'dojang-hsm-'));
  mkdirSync(join(dir, 'tokens'));
  writeFileSync(conf, `directories.tokendir = ${join(dir, 'tokens')}\nobjectstore.backend = file\nlog.level = ERROR\n`);
  const envFile = join(dir, 'hsm.env');
  writeFileSync(envFile, `SOFTHSM2_CONF=${conf}\n`);
  (process as unknown as { loadEnvFile(path: string): void }).loadEnvFile(envFile);
  finalizeSoftHsm();
  const env = { ...process.env, SOFTHSM2_CONF: conf };
  execFileSync('softhsm2-util', ['--init-token', '--free', '--label', label, '--pin', pin, '--so-pin', `${pin}9`], { env, stdio: 'pipe' });
  for (const key of keys) {
    execFileSync('softhsm2-util', ['--import', key.pemKeyFile, '--token', label, '--label', key.label, '--id', key.id, '--pin', pin], { env, stdio: 'pipe' });
  }
  return {
    conf,
    dir,
    label,
    pin,
    remove() {
      finalizeSoftHsm();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** Leaves the process's SoftHSM2 library uninitialized (a no-op when it never was). */
function finalizeSoftHsm(): void {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const pkcs11js = require('pkcs11js') as { PKCS11: new () => { load(path: string): void; C_Finalize(): void } };
  const library = new pkcs11js.PKCS11();
  library.load(SOFTHSM_MODULE);
  try {
    library.C_Finalize();
  } catch (error) {
    if (!/CRYPTOKI_NOT_INITIALIZED/.test((error as Error).message)) throw error;
  }
}
