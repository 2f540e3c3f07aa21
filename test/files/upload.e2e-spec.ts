import { spawn } from 'child_process';
import * as http from 'http';
import { AddressInfo } from 'net';
import { MAX_FILE_BYTES } from '@dojang/domain';
import { FILES } from '@dojang/projections';
import { pdfinfo } from '@dojang/pdf/testing/poppler';
import { manyObjectsPdf, pdfLibManyObjects } from '@dojang/pdf/testing/fixtures';
import { REFUSED_BODY_DRAIN } from '../../apps/api/src/shared/refused-body';
import { expectError } from '../support/api-helpers';
import { sendEndlessBody } from '../support/endless-body';
import { bearer, startTestApp, TestApp, TestOrg } from '../support/test-app';
import { binary, blobFiles, pathOf, pdfFixture, sha256, uploadFile, uploadFixture } from './file-helpers';

const PNG_BYTES = pdfFixture('png-named.pdf'); // real PNG bytes, named .pdf

/** A valid PDF padded with a trailing comment to exactly `size` bytes. */
function pdfOfSize(size: number): Buffer {
  const base = pdfFixture('chromium-korean-contract-a4.pdf');
  const pad = size - base.length - 2;
  return Buffer.concat([base, Buffer.from('\n%'), Buffer.alloc(pad - 1, 0x41), Buffer.from('\n')]).subarray(0, size);
}

/**
 * Streams a multipart upload with chunked encoding (no Content-Length, so only counting the bytes
 * can stop it) and stops writing as soon as the server answers. Reports how much had been sent.
 */
function streamUpload(port: number, key: string, fileBytes: number, headers: Record<string, string> = {}): Promise<{ status: number; body: any; sent: number }> {
  return new Promise((resolve, reject) => {
    const boundary = 'dojang-test-boundary-7d3f';
    const head = Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="huge.pdf"\r\nContent-Type: application/pdf\r\n\r\n%PDF-1.7\n`);
    const tail = Buffer.from(`\r\n--${boundary}--\r\n`);
    const req = http.request({
      host: '127.0.0.1',
      port,
      method: 'POST',
      path: '/v1/files',
      headers: { ...bearer(key), 'Content-Type': `multipart/form-data; boundary=${boundary}`, ...headers },
    });
    const chunk = Buffer.alloc(256 * 1024, 0x20);
    let sent = 0;
    let answered = false;
    req.on('response', (res) => {
      answered = true;
      const sentAtResponse = sent;
      binary(res, (err, body) => {
        req.destroy();
        if (err) reject(err);
        else resolve({ status: res.statusCode ?? 0, body: JSON.parse(body.toString('utf8')), sent: sentAtResponse });
      });
    });
    req.on('error', (err) => {
      if (!answered) reject(err);
    });
    if (headers['Content-Length']) {
      req.flushHeaders(); // headers only: the answer must not need a single body byte
      return;
    }
    const pump = () => {
      while (!answered && sent < fileBytes) {
        sent += chunk.length;
        if (!req.write(chunk)) {
          req.once('drain', pump);
          return;
        }
      }
      if (!answered) req.end(tail);
    };
    req.write(head);
    sent += head.length;
    pump();
  });
}

describe('POST /v1/files', () => {
  let t: TestApp;
  let org: TestOrg;
  let port: number;

  beforeAll(async () => {
    t = await startTestApp();
    org = await t.createOrg();
    const server: http.Server = t.app.getHttpServer();
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
    port = (server.address() as AddressInfo).port;
  });
  afterAll(() => t.close());

  describe('the fixtures behave as their README says', () => {
    it.each([
      ['chromium-korean-contract-a4.pdf', 3],
      ['chromium-korean-contract-letter.pdf', 3],
      ['rotated-page2-90.pdf', 3],
    ])('%s is accepted, with its page count and its exact bytes behind the url', async (name, pages) => {
      const bytes = pdfFixture(name);
      expect(pdfinfo(bytes)).toMatch(new RegExp(`Pages:\\s+${pages}\\n`));
      const before = Date.now();
      const file = await uploadFixture(t, org.test, name);
      const after = Date.now();
      expect(file).toMatchObject({ object: 'file', byte_size: bytes.length, page_count: pages, filename: name, sha256: sha256(bytes), livemode: false });
      expect(file.id).toMatch(/^file_[0-9a-f]{24}$/);
      // Signed, expiring, on the service's own origin (no FILE_HOST configured).
      expect(file.url).toMatch(new RegExp(`^http://localhost:3000/v1/files/${file.id}/content\\?expires=\\d+&signature=[A-Za-z0-9_-]+$`));
      const expires = Number(new URL(file.url).searchParams.get('expires'));
      expect(file.expires_at).toBe(new Date(expires * 1000).toISOString());
      // An hour from the moment the server signed it, which lies between before and after (to
      // the second: expires is whole seconds); bounded on both sides so a slow machine can't flake it.
      const expiresAt = Date.parse(file.expires_at);
      expect(expiresAt).toBeGreaterThanOrEqual(Math.floor(before / 1000) * 1000 + 60 * 60 * 1000);
      expect(expiresAt).toBeLessThanOrEqual(after + 60 * 60 * 1000);
      // The bytes are content-addressed in the blob store, and served back unchanged.
      expect(await t.infra.blobs.has(sha256(bytes))).toBe(true);
      const content = await t.http.get(pathOf(file.url)).buffer(true).parse(binary).expect(200);
      expect(content.headers['content-type']).toBe('application/pdf');
      expect(sha256(content.body)).toBe(sha256(bytes));
      // And the file object can be read again with the key.
      const again = (await t.http.get(`/v1/files/${file.id}`).set(bearer(org.test)).expect(200)).body;
      expect(again).toMatchObject({ id: file.id, object: 'file', byte_size: bytes.length, page_count: pages });
    });

    it.each(['encrypted-owner-only.pdf', 'encrypted-needs-password.pdf'])('%s is refused at upload with an error naming the AES-256 encryption', async (name) => {
      const bytes = pdfFixture(name);
      const err = expectError(await uploadFile(t, org.test, bytes, { filename: name }), 415, 'unsupported_file_type', 'file');
      expect(err.message).toMatch(/encrypt/i);
      expect(err.message).toMatch(/AES-256/);
      expect(await t.infra.blobs.has(sha256(bytes))).toBe(false);
    });

    it.each(['truncated.pdf', 'fake-header.pdf', 'png-named.pdf'])('%s is refused as unsupported_file_type (it does not parse as a PDF)', async (name) => {
      const bytes = pdfFixture(name);
      const err = expectError(await uploadFile(t, org.test, bytes, { filename: name }), 415, 'unsupported_file_type', 'file');
      expect(err.message).toMatch(/PDF/);
      expect(await t.infra.blobs.has(sha256(bytes))).toBe(false);
    });
  });

  describe('the bytes decide, not the Content-Type or the name', () => {
    it('accepts a real PDF sent as image/png named .png', async () => {
      const bytes = pdfFixture('chromium-korean-contract-a4.pdf');
      const res = await uploadFile(t, org.test, bytes, { filename: 'scan.png', contentType: 'image/png' });
      expect(res.status).toBe(201);
      expect(res.body).toMatchObject({ object: 'file', byte_size: bytes.length, page_count: 3 });
    });

    it('accepts a real PDF sent as application/octet-stream', async () => {
      const res = await uploadFile(t, org.test, pdfFixture('chromium-korean-contract-letter.pdf'), { contentType: 'application/octet-stream' });
      expect(res.status).toBe(201);
    });

    it('refuses PNG bytes sent as application/pdf named .pdf', async () => {
      expectError(await uploadFile(t, org.test, PNG_BYTES, { filename: 'contract.pdf', contentType: 'application/pdf' }), 415, 'unsupported_file_type', 'file');
    });

    it('refuses an empty file', async () => {
      expectError(await uploadFile(t, org.test, Buffer.alloc(0)), 415, 'unsupported_file_type', 'file');
    });
  });

  describe('request shape', () => {
    it('needs the part to be called file', async () => {
      expectError(await uploadFile(t, org.test, pdfFixture('chromium-korean-contract-a4.pdf'), { field: 'document' }), 400, 'missing_parameter', 'file');
    });

    it('needs a multipart body', async () => {
      expectError(await t.http.post('/v1/files').set(bearer(org.test)).send({ file: 'x' }), 400, 'missing_parameter', 'file');
      expectError(
        await t.http.post('/v1/files').set(bearer(org.test)).set('Content-Type', 'application/pdf').send(pdfFixture('chromium-korean-contract-a4.pdf')),
        400,
        'missing_parameter',
        'file',
      );
    });

    it('refuses a text field called file', async () => {
      expectError(await t.http.post('/v1/files').set(bearer(org.test)).field('file', '%PDF-1.7'), 400, 'invalid_parameter', 'file');
    });

    it('refuses two files in the file part', async () => {
      const bytes = pdfFixture('chromium-korean-contract-a4.pdf');
      const res = await t.http.post('/v1/files').set(bearer(org.test)).attach('file', bytes, 'a.pdf').attach('file', bytes, 'b.pdf');
      expectError(res, 400, 'invalid_parameter', 'file');
    });

    it('ignores other parts and keeps a Korean file name', async () => {
      const res = await t.http
        .post('/v1/files')
        .set(bearer(org.test))
        .field('purpose', 'contract')
        .attach('file', pdfFixture('chromium-korean-contract-a4.pdf'), { filename: '근로계약서 (최종).pdf', contentType: 'application/pdf' });
      expect(res.status).toBe(201);
      expect(res.body.filename).toBe('근로계약서 (최종).pdf');
    });

    it('needs an API key before reading anything', async () => {
      const res = await t.http.post('/v1/files').attach('file', pdfFixture('chromium-korean-contract-a4.pdf'), 'a.pdf');
      expectError(res, 401, 'missing_api_key');
    });

    it('replays the first upload for a repeated Idempotency-Key with the same file, and refuses it for another file', async () => {
      const send = (name: string) =>
        t.http.post('/v1/files').set(bearer(org.test)).set('Idempotency-Key', 'upload-once-1').attach('file', pdfFixture(name), { filename: name, contentType: 'application/pdf' });
      const first = await send('chromium-korean-contract-a4.pdf');
      expect(first.status).toBe(201);
      const again = await send('chromium-korean-contract-a4.pdf');
      expect(again.status).toBe(201);
      expect(again.headers['idempotent-replayed']).toBe('true');
      expect(again.body.id).toBe(first.body.id);
      const reused = await send('chromium-korean-contract-letter.pdf');
      expect(reused.status).toBe(400);
      expect(reused.body.error).toMatchObject({ type: 'idempotency_error', code: 'idempotency_key_reused' });
    });

    it('answers a used Idempotency-Key whose repeat never ends, and closes its connection within the refused-body bound (issue 33 §6-7)', async () => {
      // The repeat of a key whose first request was an upload is compared on its bytes. Before,
      // the comparison read the body to its end whatever came: an endless chunked body was read
      // forever and never answered. Now a body past the largest upload cannot match, so it is
      // refused at that point, and the reading counts against the refused-body bound.
      const MiB = 1024 * 1024;
      const key = 'upload-once-endless';
      const first = await t.http
        .post('/v1/files')
        .set(bearer(org.test))
        .set('Idempotency-Key', key)
        .attach('file', pdfFixture('chromium-korean-contract-a4.pdf'), { filename: 'a.pdf', contentType: 'application/pdf' });
      expect(first.status).toBe(201);
      const boundary = 'dojang-endless-boundary';
      const res = await sendEndlessBody({
        port,
        method: 'POST',
        path: '/v1/files',
        headers: { ...bearer(org.test), 'Idempotency-Key': key, 'Content-Type': `multipart/form-data; boundary=${boundary}` },
        head: Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="a.pdf"\r\nContent-Type: application/pdf\r\n\r\n%PDF-1.7\n`),
        filler: Buffer.alloc(256 * 1024, 0x20),
        maxBytes: MAX_FILE_BYTES + REFUSED_BODY_DRAIN.bytes + 64 * MiB,
      });
      expect(res.status).toBe(400);
      expect(JSON.parse(res.body).error).toMatchObject({ type: 'idempotency_error', code: 'idempotency_key_reused', param: 'Idempotency-Key' });
      expect(res.headers.connection).toBe('close');
      expect(res.closedByServer).toBe(true);
      // In all (compared, then read off after the answer): the bound, and what the two sockets'
      // kernel buffers held on top.
      expect(res.sent).toBeLessThan(REFUSED_BODY_DRAIN.bytes + 16 * MiB);
      // The key still replays its first upload.
      const again = await t.http
        .post('/v1/files')
        .set(bearer(org.test))
        .set('Idempotency-Key', key)
        .attach('file', pdfFixture('chromium-korean-contract-a4.pdf'), { filename: 'a.pdf', contentType: 'application/pdf' });
      expect(again.status).toBe(201);
      expect(again.headers['idempotent-replayed']).toBe('true');
      expect(again.body.id).toBe(first.body.id);
    });

    it('serves the legacy root too', async () => {
      const res = await t.http.post('/api/v1/files').set(bearer(org.test)).attach('file', pdfFixture('chromium-korean-contract-a4.pdf'), 'a.pdf');
      expect(res.status).toBe(201);
    });
  });

  describe('20 MB limit', () => {
    it('accepts a PDF of exactly 20 MB (20 × 1024 × 1024 bytes)', async () => {
      const bytes = pdfOfSize(MAX_FILE_BYTES);
      expect(bytes.length).toBe(20 * 1024 * 1024);
      const res = await uploadFile(t, org.test, bytes);
      expect(res.status).toBe(201);
      expect(res.body.byte_size).toBe(MAX_FILE_BYTES);
      expect(await t.infra.blobs.has(res.body.sha256)).toBe(true);
    });

    it('accepts it while CPU hogs run: the read budget counts the worker\'s CPU time, not the busy clock', async () => {
      // Two busy processes (one per core here) above the pool's lowered-priority workers: by the
      // clock the read stretches several-fold (a busy CI refused this very file when the limit
      // was wall time). A crafted slow PDF is still refused: the pool's own spec stops a spinning
      // job at its CPU budget under the same hogs.
      const hogs = [1, 2].map(() => spawn(process.execPath, ['-e', 'for(;;){}'], { stdio: 'ignore' }));
      try {
        const res = await uploadFile(t, org.test, pdfOfSize(MAX_FILE_BYTES));
        expect(res.status).toBe(201);
        expect(res.body.byte_size).toBe(MAX_FILE_BYTES);
      } finally {
        for (const hog of hogs) hog.kill('SIGKILL');
      }
    });

    it('refuses one byte more with 413 file_too_large, and stores nothing', async () => {
      const bytes = pdfOfSize(MAX_FILE_BYTES + 1);
      const blobsBefore = blobFiles(t).length;
      const filesBefore = (await t.infra.reads.find(FILES, {})).length;
      const err = expectError(await uploadFile(t, org.test, bytes), 413, 'file_too_large', 'file');
      expect(err.message).toMatch(/20 MB/);
      expect(blobFiles(t).length).toBe(blobsBefore);
      expect(await t.infra.blobs.has(sha256(bytes))).toBe(false);
      await t.infra.runner.catchUp();
      expect((await t.infra.reads.find(FILES, {})).length).toBe(filesBefore);
    });

    it('answers 413 while a much larger body is still streaming (chunked, no Content-Length)', async () => {
      const total = 400 * 1024 * 1024;
      const blobsBefore = blobFiles(t).length;
      const res = await streamUpload(port, org.test, total);
      expect(res.status).toBe(413);
      expect(res.body.error).toMatchObject({ type: 'invalid_request_error', code: 'file_too_large', param: 'file' });
      // The answer came after the limit was passed but long before the client finished.
      expect(res.sent).toBeGreaterThan(MAX_FILE_BYTES);
      expect(res.sent).toBeLessThan(total / 2);
      expect(blobFiles(t).length).toBe(blobsBefore);
    });

    it('closes the connection of an upload that never ends, after reading a bounded amount past its 413 (issue 33 §7)', async () => {
      // Before, the rest of a refused upload was read for 30 s whatever came: at loopback speed,
      // gigabytes. Now the 413 says Connection: close and the server stops reading at the bound.
      const MiB = 1024 * 1024;
      const boundary = 'dojang-endless-boundary';
      const res = await sendEndlessBody({
        port,
        method: 'POST',
        path: '/v1/files',
        headers: { ...bearer(org.test), 'Content-Type': `multipart/form-data; boundary=${boundary}` },
        head: Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="endless.pdf"\r\nContent-Type: application/pdf\r\n\r\n%PDF-1.7\n`),
        filler: Buffer.alloc(256 * 1024, 0x20),
        maxBytes: MAX_FILE_BYTES + REFUSED_BODY_DRAIN.bytes + 64 * MiB,
      });
      expect(res.status).toBe(413);
      expect(JSON.parse(res.body).error).toMatchObject({ type: 'invalid_request_error', code: 'file_too_large', param: 'file' });
      expect(res.headers.connection).toBe('close');
      expect(res.closedByServer).toBe(true);
      // Past the answer: the bound, and what the two sockets' kernel buffers held on top.
      expect(res.sent - (res.sentAtAnswer ?? 0)).toBeLessThan(REFUSED_BODY_DRAIN.bytes + 16 * MiB);
    });

    it('answers 413 from a declared Content-Length alone, before any body byte', async () => {
      const res = await streamUpload(port, org.test, 0, { 'Content-Length': String(100 * 1024 * 1024) });
      expect(res.status).toBe(413);
      expect(res.sent).toBe(0);
      expect(res.body.error.code).toBe('file_too_large');
    });

    it('lets Node\'s fetch read the 413 of a 21 MiB upload, which it sends whole, Content-Length declared (issue 33 §7)', async () => {
      // fetch (undici) writes the whole body before it reads the answer; a server that closes the
      // connection after answering early makes it fail with EPIPE instead of giving the 413.
      const form = new FormData();
      form.append('file', new Blob([Buffer.alloc(21 * 1024 * 1024, 0x20)], { type: 'application/pdf' }), 'big.pdf');
      const res = await fetch(`http://127.0.0.1:${port}/v1/files`, { method: 'POST', headers: bearer(org.test), body: form });
      expect(res.status).toBe(413);
      // The refusal closes the connection, after reading the rest off within a bound.
      expect(res.headers.get('connection')).toBe('close');
      expect(((await res.json()) as { error: { code: string } }).error.code).toBe('file_too_large');
    });

    it('lets Node\'s fetch read the 413 of a 21 MiB upload streamed without a Content-Length', async () => {
      const chunk = new Uint8Array(1024 * 1024).fill(0x20);
      const boundary = 'dojang-fetch-boundary';
      let sent = 0;
      const body = new ReadableStream<Uint8Array>({
        pull(controller) {
          if (sent === 0) controller.enqueue(new TextEncoder().encode(`--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="big.pdf"\r\nContent-Type: application/pdf\r\n\r\n%PDF-1.7\n`));
          if (sent >= 21) {
            controller.enqueue(new TextEncoder().encode(`\r\n--${boundary}--\r\n`));
            controller.close();
            return;
          }
          sent++;
          controller.enqueue(chunk);
        },
      });
      const res = await fetch(`http://127.0.0.1:${port}/v1/files`, {
        method: 'POST',
        headers: { ...bearer(org.test), 'Content-Type': `multipart/form-data; boundary=${boundary}` },
        body,
        duplex: 'half',
      } as RequestInit);
      expect(res.status).toBe(413);
      expect(((await res.json()) as { error: { code: string } }).error.code).toBe('file_too_large');
    });

    it('keeps serving after refusing a large upload', async () => {
      const res = await uploadFile(t, org.test, pdfFixture('chromium-korean-contract-a4.pdf'));
      expect(res.status).toBe(201);
    });
  });

  describe('GET /v1/files/:id', () => {
    it('is scoped to the organization and the mode', async () => {
      const file = await uploadFixture(t, org.test, 'chromium-korean-contract-a4.pdf');
      const other = await t.createOrg('Other Corp');
      expectError(await t.http.get(`/v1/files/${file.id}`).set(bearer(other.test)), 404, 'file_not_found');
      expectError(await t.http.get(`/v1/files/${file.id}`).set(bearer(org.live)), 404, 'file_not_found');
      expectError(await t.http.get('/v1/files/file_doesnotexist00000000').set(bearer(org.test)), 404, 'file_not_found');
      expectError(await t.http.get('/v1/files/not-a-file-id').set(bearer(org.test)), 404, 'file_not_found');
    });
  });
});

describe('POST /v1/files with a PDF of too many objects (issue 24, item 17)', () => {
  let t: TestApp;
  let org: TestOrg;

  beforeAll(async () => {
    t = await startTestApp();
    org = await t.createOrg();
  });
  afterAll(() => t.close());

  it('refuses it with 413 file_too_complex (param file) and stores nothing', async () => {
    const heavy = await pdfLibManyObjects(60_000);
    const err = expectError(await uploadFile(t, org.test, heavy, { filename: 'heavy.pdf' }), 413, 'file_too_complex', 'file');
    expect(err.message).toMatch(/holds 6\d{4} objects; at most 50000 are accepted/);
    expect(await t.infra.blobs.has(sha256(heavy))).toBe(false);
  });
});

describe('POST /v1/files with a PDF that takes too long to read', () => {
  let t: TestApp;
  let org: TestOrg;

  beforeAll(async () => {
    t = await startTestApp({ env: { PDF_READ_TIMEOUT_MS: '300' } });
    org = await t.createOrg();
  });
  afterAll(() => t.close());

  it('refuses it with 415 naming the time limit and stores nothing', async () => {
    // Under the object budget (50,000), yet slower to read than this test's 0.3 s limit.
    const slow = manyObjectsPdf(45_000);
    const err = expectError(await uploadFile(t, org.test, slow, { filename: 'slow.pdf' }), 415, 'unsupported_file_type', 'file');
    expect(err.message).toMatch(/took longer than 0\.3 s to read/);
    expect(await t.infra.blobs.has(sha256(slow))).toBe(false);
    // And the pool still reads PDFs afterwards (a small one: 0.3 s is this test's limit, not a real one).
    expect((await uploadFile(t, org.test, manyObjectsPdf(3), { filename: 'small.pdf' })).status).toBe(201);
  });
});
