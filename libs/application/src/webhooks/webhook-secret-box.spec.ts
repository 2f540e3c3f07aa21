import { randomBytes } from 'crypto';
import { WebhookSecretBox } from './webhook-secret-box';

describe('WebhookSecretBox', () => {
  const server = randomBytes(32);
  const box = new WebhookSecretBox(server);
  const secret = 'whsec_' + randomBytes(24).toString('base64');

  it('seals a secret so that only the same server secret and endpoint open it', () => {
    const sealed = box.seal('whe_a', secret);
    expect(sealed).toMatch(/^v1\.[\w-]+\.[\w-]+\.[\w-]+$/);
    expect(sealed).not.toContain(secret.slice(6, 20));
    expect(box.open('whe_a', sealed)).toBe(secret);
    expect(new WebhookSecretBox(Buffer.from(server)).open('whe_a', sealed)).toBe(secret);
    expect(() => new WebhookSecretBox(randomBytes(32)).open('whe_a', sealed)).toThrow();
    expect(() => box.open('whe_b', sealed)).toThrow();
  });

  it('uses a fresh IV each time and detects tampering', () => {
    const a = box.seal('whe_a', secret);
    const b = box.seal('whe_a', secret);
    expect(a).not.toBe(b);
    const [v, iv, ct, tag] = a.split('.');
    const flipped = Buffer.from(ct, 'base64url');
    flipped[0] ^= 1;
    expect(() => box.open('whe_a', [v, iv, flipped.toString('base64url'), tag].join('.'))).toThrow();
    expect(() => box.open('whe_a', `v2.${iv}.${ct}.${tag}`)).toThrow(/format/);
    expect(() => box.open('whe_a', 'garbage')).toThrow(/format/);
  });
});
