import { createHash, createHmac, hkdfSync, randomBytes } from 'crypto';
import * as fs from 'fs';
import * as path from 'path';

/** The file calls loadServerSecret makes; tests interleave another process's calls between them. */
export type SecretFiles = Pick<typeof fs, 'readFileSync' | 'mkdirSync' | 'openSync' | 'writeSync' | 'fsyncSync' | 'closeSync' | 'linkSync' | 'unlinkSync'>;

/**
 * The server secret keys the HMACs that derive signing-link tokens and hash PINs. It is read from
 * SECRET_KEY, or created once in DATA_DIR so the CLI and every process on that directory agree.
 *
 * Created whole in a private temp file (0600), fsynced, then hard-linked into place: link() fails
 * when the key already exists, so of processes racing to create it the first link wins and the
 * others read the winner's key, and no reader ever finds the file empty or half written (which
 * would have keyed every HMAC with nothing).
 */
export function loadServerSecret(dataDir: string, fromEnv?: string, files: SecretFiles = fs): Buffer {
  if (fromEnv) return Buffer.from(fromEnv, 'utf8');
  const file = path.join(dataDir, 'secret.key');
  const existing = readKey(files, file);
  if (existing) return existing;

  files.mkdirSync(dataDir, { recursive: true });
  const tmp = `${file}.${process.pid}.${randomBytes(6).toString('hex')}.tmp`;
  const fd = files.openSync(tmp, 'wx', 0o600);
  try {
    files.writeSync(fd, randomBytes(32).toString('base64'));
    files.fsyncSync(fd);
  } finally {
    files.closeSync(fd);
  }
  try {
    files.linkSync(tmp, file);
    // The new name must survive a power cut too, or the next boot makes another key.
    fsyncDirectory(files, dataDir);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    // Another process linked its key first: use theirs.
  } finally {
    try {
      files.unlinkSync(tmp);
    } catch {
      // Left behind only if the directory vanished; nothing reads *.tmp.
    }
  }
  const key = readKey(files, file);
  if (!key) throw new Error(`${file} disappeared while it was being created`);
  return key;
}

/** The stored key; null when there is none yet. An empty file is refused, never used. */
function readKey(files: SecretFiles, file: string): Buffer | null {
  let text: string;
  try {
    text = files.readFileSync(file, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw err;
  }
  const key = Buffer.from(text.trim(), 'base64');
  if (key.length === 0) {
    throw new Error(
      `${file} is empty: restore it from a backup, or delete it to make a new key (open signing links, PIN codes and webhook secrets made with the old one stop working)`,
    );
  }
  return key;
}

function fsyncDirectory(files: SecretFiles, dir: string) {
  const fd = files.openSync(dir, 'r');
  try {
    files.fsyncSync(fd);
  } finally {
    files.closeSync(fd);
  }
}

export const sha256Hex = (value: string | Buffer) => createHash('sha256').update(value).digest('hex');

export class Secrets {
  constructor(private readonly secret: Buffer) {}

  /**
   * A signing link's token: 256 bits derived from the server secret, so the owning organization can
   * be shown its links on every read while only their SHA-256 is ever stored.
   */
  signingToken(documentId: string, participantId: string, version = 0): string {
    // Version 0 is the link made at send (the derivation every stored link since then used); a
    // correction after send moves the participant to the next version, so the old token, which
    // anyone may hold, can never be derived to be valid again.
    const label = version === 0 ? `signing-link:${documentId}:${participantId}` : `signing-link:${documentId}:${participantId}:v${version}`;
    return createHmac('sha256', this.secret).update(label).digest('base64url');
  }

  /** PINs have only a million values, so a plain hash would be reversible: key it. */
  pinHash(documentId: string, participantId: string, pin: string): string {
    return createHmac('sha256', this.secret).update(`pin:${documentId}:${participantId}:${pin}`).digest('hex');
  }

  /**
   * A 256-bit key for one purpose (HKDF-SHA256 of the server secret): encrypting what must be
   * stored but not read from a copy of the stores alone (organizations' signing keys).
   */
  derivedKey(purpose: string): Buffer {
    return Buffer.from(hkdfSync('sha256', this.secret, Buffer.from('dojang'), Buffer.from(purpose, 'utf8'), 32));
  }

  /** For expiring, signed URLs (uploaded files). */
  sign(value: string): string {
    return createHmac('sha256', this.secret).update(`url:${value}`).digest('base64url');
  }
}
