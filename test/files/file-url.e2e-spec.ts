import * as http from 'http';
import { AddressInfo } from 'net';
import { expectError } from '../support/api-helpers';
import { bearer, startTestApp, TestApp, TestOrg } from '../support/test-app';
import { binary, pathOf, pdfFixture, sha256, uploadFixture } from './file-helpers';

const A4 = 'chromium-korean-contract-a4.pdf';
const HOUR = 60 * 60 * 1000;

/** Replaces one query parameter of a URL. */
function withParam(url: string, name: string, value: string): string {
  const u = new URL(url);
  u.searchParams.set(name, value);
  return u.toString();
}

describe('file URLs and file_url', () => {
  let t: TestApp;
  let org: TestOrg;
  const createWith = (key: string, file_url: unknown) => t.http.post('/v1/documents').set(bearer(key)).send({ title: '근로계약서', file_url });

  beforeAll(async () => {
    t = await startTestApp({ manualClock: true });
    org = await t.createOrg();
  });
  afterAll(() => t.close());

  it('issues a URL valid for one hour from the upload, by the service clock', async () => {
    const now = t.clock!.now().getTime();
    const file = await uploadFixture(t, org.test, A4);
    expect(file.expires_at).toBe(new Date(now + HOUR).toISOString());
    expect(new URL(file.url).searchParams.get('expires')).toBe(String((now + HOUR) / 1000));
  });

  it('creates a draft from a fresh file_url; the document keeps the file and its page count', async () => {
    const file = await uploadFixture(t, org.test, A4);
    const res = await createWith(org.test, file.url);
    expect(res.status).toBe(201);
    const doc = (await t.http.get(`/v1/documents/${res.body.id}`).set(bearer(org.test)).expect(200)).body;
    expect(doc).toMatchObject({ status: 'draft', page_count: 3, file: { id: file.id, sha256: sha256(pdfFixture(A4)), page_count: 3 } });
  });

  it('accepts the URL until its expiry and refuses it one second later (invalid_parameter, and the content link dies too)', async () => {
    const file = await uploadFixture(t, org.test, A4);
    t.clock!.advance(HOUR);
    expect((await createWith(org.test, file.url)).status).toBe(201);
    await t.http.get(pathOf(file.url)).buffer(true).parse(binary).expect(200);
    t.clock!.advance(1000);
    const err = expectError(await createWith(org.test, file.url), 400, 'invalid_parameter', 'file_url');
    expect(err.message).toMatch(/expired/);
    expectError(await t.http.get(pathOf(file.url)), 404, 'file_not_found');
    // A new URL for the same file can be had with the key.
    const fresh = (await t.http.get(`/v1/files/${file.id}`).set(bearer(org.test)).expect(200)).body;
    expect(Date.parse(fresh.expires_at)).toBe(t.clock!.now().getTime() + HOUR);
    expect((await createWith(org.test, fresh.url)).status).toBe(201);
  });

  it('refuses a tampered signature, a stretched expiry, and a missing one', async () => {
    const file = await uploadFixture(t, org.test, A4);
    const sig = new URL(file.url).searchParams.get('signature') as string;
    const flipped = (sig[0] === 'A' ? 'B' : 'A') + sig.slice(1);
    const later = String(Number(new URL(file.url).searchParams.get('expires')) + 24 * 3600);
    const noExpiry = new URL(file.url);
    noExpiry.searchParams.delete('expires');
    for (const url of [withParam(file.url, 'signature', flipped), withParam(file.url, 'expires', later), noExpiry.toString(), withParam(file.url, 'signature', '')]) {
      expectError(await createWith(org.test, url), 400, 'invalid_parameter', 'file_url');
      expectError(await t.http.get(pathOf(url)), 404, 'file_not_found');
    }
    // Another file's signature does not open this file.
    const other = await uploadFixture(t, org.test, 'chromium-korean-contract-letter.pdf');
    const swapped = file.url.replace(file.id, other.id);
    expectError(await createWith(org.test, swapped), 400, 'invalid_parameter', 'file_url');
    expectError(await t.http.get(pathOf(swapped)), 404, 'file_not_found');
  });

  it("refuses another organization's file, and the same organization's file in the other mode", async () => {
    const file = await uploadFixture(t, org.test, A4);
    const other = await t.createOrg('Other Corp');
    expectError(await createWith(other.test, file.url), 400, 'invalid_parameter', 'file_url');
    expectError(await createWith(org.live, file.url), 400, 'invalid_parameter', 'file_url');
  });

  it('refuses any URL it did not issue, and never fetches it', async () => {
    // A server that records whether anybody comes knocking.
    const hits: string[] = [];
    const bait = http.createServer((req, res) => {
      hits.push(req.url ?? '');
      res.setHeader('Content-Type', 'application/pdf');
      res.end(pdfFixture(A4));
    });
    await new Promise<void>((r) => bait.listen(0, '127.0.0.1', () => r()));
    const baitOrigin = `http://127.0.0.1:${(bait.address() as AddressInfo).port}`;
    try {
      const file = await uploadFixture(t, org.test, A4);
      const q = new URL(file.url).search;
      for (const url of [
        'http://169.254.169.254/latest/meta-data/iam/security-credentials/',
        `http://169.254.169.254/v1/files/${file.id}/content?expires=9999999999&signature=abc`,
        `${baitOrigin}/contract.pdf`,
        `${baitOrigin}/v1/files/${file.id}/content?expires=9999999999&signature=forged`,
        `${baitOrigin}/v1/files/file_0000000000000000000000aa/content${q}`,
        'file:///etc/passwd',
        'not a url',
        '',
      ]) {
        expectError(await createWith(org.test, url), 400, 'invalid_parameter', 'file_url');
      }
      expectError(await createWith(org.test, 42), 400, 'invalid_parameter', 'file_url');
      expect(hits).toEqual([]);
    } finally {
      await new Promise((r) => bait.close(r));
    }
  });

  it('serves the content without an API key, and only the bytes of that file', async () => {
    const file = await uploadFixture(t, org.test, 'rotated-page2-90.pdf');
    const res = await t.http.get(pathOf(file.url)).buffer(true).parse(binary).expect(200);
    expect(res.headers['content-type']).toBe('application/pdf');
    expect(res.headers['cache-control']).toBe('private, no-store');
    expect(res.headers['content-disposition']).toMatch(/^inline; filename="rotated-page2-90.pdf"/);
    expect(sha256(res.body)).toBe(sha256(pdfFixture('rotated-page2-90.pdf')));
  });
});

describe('FILE_HOST', () => {
  let t: TestApp;
  afterAll(() => t?.close());

  it('puts issued URLs on the configured host; a URL so issued is accepted as file_url', async () => {
    t = await startTestApp({ env: { FILE_HOST: 'https://files.dojang.example' } });
    const org = await t.createOrg();
    const file = await uploadFixture(t, org.test, A4);
    expect(file.url).toMatch(new RegExp(`^https://files\\.dojang\\.example/v1/files/${file.id}/content\\?expires=\\d+&signature=`));
    expect((await t.http.post('/v1/documents').set(bearer(org.test)).send({ title: '계약', file_url: file.url })).status).toBe(201);
  });
});
