import { createHash } from 'crypto';
import * as fs from 'fs';
import * as path from 'path';
import { Response } from 'supertest';
import { pdfFixture, pdfFixturesDir } from '@dojang/pdf/testing/fixtures';
import { bearer, TestApp } from '../support/test-app';

export { pdfFixture, pdfFixturesDir };

export const sha256 = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');

/** POST /v1/files with `bytes` as the multipart part `file` (name and claimed type as given). */
export function uploadFile(
  t: TestApp,
  key: string,
  bytes: Buffer,
  options: { filename?: string; contentType?: string; field?: string } = {},
): Promise<Response> {
  return t.http
    .post('/v1/files')
    .set(bearer(key))
    .attach(options.field ?? 'file', bytes, { filename: options.filename ?? 'contract.pdf', contentType: options.contentType ?? 'application/pdf' })
    .then((r) => r);
}

/** Uploads a fixture and returns the file object, failing loudly when it is not accepted. */
export async function uploadFixture(t: TestApp, key: string, name: string): Promise<Record<string, any>> {
  const res = await uploadFile(t, key, pdfFixture(name), { filename: name });
  if (res.status !== 201) throw new Error(`upload of ${name}: expected 201, got ${res.status}: ${JSON.stringify(res.body)}`);
  return res.body;
}

/** Path and query of an absolute URL, for supertest (which talks to the app directly). */
export const pathOf = (url: string) => {
  const u = new URL(url);
  return `${u.pathname}${u.search}`;
};

/** Every blob the embedded blob store holds (files under DATA_DIR/blobs/<ab>/<sha>). */
export function blobFiles(t: TestApp): string[] {
  const root = path.join(t.dataDir, 'blobs');
  if (!fs.existsSync(root)) return [];
  return fs.readdirSync(root).flatMap((dir) => fs.readdirSync(path.join(root, dir)).map((f) => path.join(root, dir, f)));
}

/** Buffers a binary supertest response body. */
export function binary(res: any, cb: (err: Error | null, body: Buffer) => void) {
  const chunks: Buffer[] = [];
  res.on('data', (c: Buffer) => chunks.push(c));
  res.on('end', () => cb(null, Buffer.concat(chunks)));
  res.on('error', (e: Error) => cb(e, Buffer.alloc(0)));
}
