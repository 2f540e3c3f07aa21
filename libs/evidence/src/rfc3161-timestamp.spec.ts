import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildTimestampRequest } from './rfc3161-timestamp';

/** What `openssl ts -query -text` (OpenSSL's own TSA request parser) prints for a request, or its error. */
function opensslReadsRequest(request: Buffer): string {
  const dir = mkdtempSync(join(tmpdir(), 'dojang-tsq-'));
  try {
    writeFileSync(join(dir, 'req.tsq'), request);
    return execFileSync('openssl', ['ts', '-query', '-in', join(dir, 'req.tsq'), '-text'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
  } catch (error) {
    return `refused: ${String((error as { stderr?: string }).stderr ?? error)}`;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

describe('timestamp requests (RFC 3161) as a TSA parses them', () => {
  const imprint = Buffer.alloc(32, 7);

  it.each([
    ['an ordinary nonce', '1005aabbccddeeff', '0x1005AABBCCDDEEFF'],
    ['a nonce with its first bit set (a 0 keeps it positive)', '9005aabbccddeeff', '0x9005AABBCCDDEEFF'],
    // 1 random nonce in 256 starts with 0x00: it was sent as a non-minimal INTEGER, which OpenSSL
    // refuses as "illegal padding", so the TSA answered "rejection" and the signing failed.
    ['a nonce whose first byte is 0', '0005aabbccddeeff', '0x05AABBCCDDEEFF'],
    ['a nonce whose first bytes are 0 and then a high bit', '0000f1bbccddeeff', '0xF1BBCCDDEEFF'],
  ])('%s is minimal DER that OpenSSL reads back', (_case, nonceHex, printed) => {
    const text = opensslReadsRequest(buildTimestampRequest(imprint, Buffer.from(nonceHex, 'hex')));
    expect(text).toContain(`Nonce: ${printed}`);
    expect(text).toContain('Certificate required: yes');
  });
});
