import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from 'crypto';
import { AppConfig } from '../runtime/config';
import { loadServerSecret } from '../runtime/secrets';

const VERSION = 'v1';
const INFO = 'dojang webhook endpoint secrets v1';

/**
 * Encrypts webhook endpoint secrets for storage in events and read models. The worker must sign
 * every delivery with the plaintext secret, so it cannot be hashed like an API key; instead it is
 * sealed with AES-256-GCM under a key derived (HKDF-SHA256) from the server secret (SECRET_KEY or
 * DATA_DIR/secret.key, the same one that derives signing-link tokens). Whoever reads the event log,
 * an export of it or a read-store backup without that server secret learns nothing usable.
 *
 * Format: `v1.<iv base64url>.<ciphertext base64url>.<tag base64url>`; the endpoint id is bound in
 * as associated data, so a ciphertext copied onto another endpoint does not open.
 */
export class WebhookSecretBox {
  private readonly key: Buffer;

  constructor(serverSecret: Buffer) {
    this.key = Buffer.from(hkdfSync('sha256', serverSecret, Buffer.alloc(0), INFO, 32));
  }

  static fromConfig(config: Pick<AppConfig, 'dataDir' | 'secretKey'>): WebhookSecretBox {
    return new WebhookSecretBox(loadServerSecret(config.dataDir, config.secretKey ?? undefined));
  }

  seal(endpointId: string, secret: string): string {
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', this.key, iv);
    cipher.setAAD(Buffer.from(endpointId, 'utf8'));
    const ciphertext = Buffer.concat([cipher.update(secret, 'utf8'), cipher.final()]);
    return [VERSION, iv.toString('base64url'), ciphertext.toString('base64url'), cipher.getAuthTag().toString('base64url')].join('.');
  }

  open(endpointId: string, sealed: string): string {
    const [version, iv, ciphertext, tag] = sealed.split('.');
    if (version !== VERSION || !iv || !ciphertext || !tag) throw new Error('unrecognised webhook secret format');
    const decipher = createDecipheriv('aes-256-gcm', this.key, Buffer.from(iv, 'base64url'));
    decipher.setAAD(Buffer.from(endpointId, 'utf8'));
    decipher.setAuthTag(Buffer.from(tag, 'base64url'));
    return Buffer.concat([decipher.update(Buffer.from(ciphertext, 'base64url')), decipher.final()]).toString('utf8');
  }
}
