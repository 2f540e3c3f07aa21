import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { SecretFiles, loadServerSecret } from './secrets';

/**
 * Two processes starting on one fresh DATA_DIR both create the server secret. Process A's file
 * calls are run one by one, and process B runs whole between two of them, at every point in turn:
 * both must end up with the same, complete key. `writeFileSync` is split into the system calls it
 * makes (open, which creates the file, then write), since another process can run between those.
 */

function tempDir(): string {
  return fs.mkdtempSync(path.join(os.tmpdir(), 'dojang-secret-'));
}

/** Real file calls, with `before` run ahead of each one (writeFileSync counted as its syscalls). */
function steppedFiles(before: () => void): SecretFiles & { writeFileSync: typeof fs.writeFileSync } {
  const wrap =
    <F extends (...args: any[]) => any>(f: F) =>
    (...args: Parameters<F>): ReturnType<F> => {
      before();
      return f(...args);
    };
  const files = {
    readFileSync: wrap(fs.readFileSync),
    mkdirSync: wrap(fs.mkdirSync),
    openSync: wrap(fs.openSync),
    writeSync: wrap(fs.writeSync),
    fsyncSync: wrap(fs.fsyncSync),
    closeSync: wrap(fs.closeSync),
    linkSync: wrap(fs.linkSync),
    unlinkSync: wrap(fs.unlinkSync),
    writeFileSync: ((file: string, data: string, options: { mode?: number; flag?: string }) => {
      const fd = files.openSync(file, options.flag ?? 'w', options.mode);
      try {
        files.writeSync(fd, data);
      } finally {
        files.closeSync(fd);
      }
    }) as unknown as typeof fs.writeFileSync,
  };
  return files as never;
}

describe('loadServerSecret on a fresh data directory', () => {
  it('two processes racing to create the key get the same complete key, wherever the second one runs', () => {
    for (let point = 0; ; point++) {
      const dir = tempDir();
      let step = 0;
      let other: Buffer | Error | null = null;
      const files = steppedFiles(() => {
        if (step++ !== point) return;
        try {
          other = loadServerSecret(dir);
        } catch (err) {
          other = err as Error;
        }
      });
      const mine = loadServerSecret(dir, undefined, files);
      const ranBetween = other !== null;
      try {
        expect(mine).toHaveLength(32);
        if (ranBetween) {
          expect(other).toBeInstanceOf(Buffer);
          expect((other as unknown as Buffer).equals(mine)).toBe(true);
        }
        expect(loadServerSecret(dir).equals(mine)).toBe(true);
        expect(fs.readdirSync(dir)).toEqual(['secret.key']);
        expect(fs.statSync(path.join(dir, 'secret.key')).mode & 0o777).toBe(0o600);
      } finally {
        fs.rmSync(dir, { recursive: true, force: true });
      }
      // Every point in A's sequence was tried once the other process no longer runs.
      if (!ranBetween) break;
    }
  });

  it('refuses an empty key file instead of keying every HMAC with nothing', () => {
    const dir = tempDir();
    try {
      fs.writeFileSync(path.join(dir, 'secret.key'), '', { mode: 0o600 });
      expect(() => loadServerSecret(dir)).toThrow(/secret\.key is empty/);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it('SECRET_KEY wins over the file', () => {
    expect(loadServerSecret('/nonexistent', 'from-env').toString()).toBe('from-env');
  });
});
