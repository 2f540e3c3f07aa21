import { createHash, createHmac, randomBytes } from 'crypto';
import * as fs from 'fs';
import * as path from 'path';

/**
 * The server secret keys the HMACs that derive signing-link tokens and hash PINs. It is read from
 * SECRET_KEY, or created once in DATA_DIR so the CLI and every process on that directory agree.
 */
export function loadServerSecret(dataDir: string, fromEnv?: string): Buffer {
  if (fromEnv) return Buffer.from(fromEnv, 'utf8');
  const file = path.join(dataDir, 'secret.key');
  try {
    return Buffer.from(fs.readFileSync(file, 'utf8').trim(), 'base64');
  } catch {
    fs.mkdirSync(dataDir, { recursive: true });
    const secret = randomBytes(32).toString('base64');
    try {
      fs.writeFileSync(file, secret, { mode: 0o600, flag: 'wx' });
    } catch {
      // Another process created it first: use theirs.
    }
    return Buffer.from(fs.readFileSync(file, 'utf8').trim(), 'base64');
  }
}

export const sha256Hex = (value: string | Buffer) => createHash('sha256').update(value).digest('hex');

export class Secrets {
  constructor(private readonly secret: Buffer) {}

  /**
   * A signing link's token: 256 bits derived from the server secret, so the owning organization can
   * be shown its links on every read while only their SHA-256 is ever stored.
   */
  signingToken(documentId: string, participantId: string): string {
    return createHmac('sha256', this.secret).update(`signing-link:${documentId}:${participantId}`).digest('base64url');
  }

  /** PINs have only a million values, so a plain hash would be reversible: key it. */
  pinHash(documentId: string, participantId: string, pin: string): string {
    return createHmac('sha256', this.secret).update(`pin:${documentId}:${participantId}:${pin}`).digest('hex');
  }

  /** For expiring, signed URLs (uploaded files). */
  sign(value: string): string {
    return createHmac('sha256', this.secret).update(`url:${value}`).digest('base64url');
  }
}
