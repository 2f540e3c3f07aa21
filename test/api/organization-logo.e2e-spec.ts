import { createHash } from 'crypto';
import { DocumentPdfService } from '@dojang/application';
import { CHECK_LOGO } from '@dojang/pdf';
import { buildMinimalJpeg } from '../../libs/seals/src/testing/images';
import { bearer, useTestApp } from '../support/test-app';
import { API_TEST_OPTIONS, client, expectError, expectStatus } from '../support/api-helpers';
import { solidPngBytes } from '../support/png';

/** PUT /v1/organization/logo, DELETE it, and the public URL that serves it. */
describe('organization logo', () => {
  const t = useTestApp({ ...API_TEST_OPTIONS });

  const put = (key: string, bytes: Buffer, filename = 'logo.png', contentType = 'image/png') =>
    t.http.put('/v1/organization/logo').set(bearer(key)).attach('file', bytes, { filename, contentType });
  const pathOf = (url: string) => new URL(url).pathname;

  it('stores a PNG re-encoded, answers its URL in brand.logo, and serves it without a key, cached under its hash', async () => {
    const org = await t.createOrg('도장상사');
    const res = expectStatus(await put(org.test, solidPngBytes(120, 40, [26, 86, 219, 255])), 200);
    const logo = res.body.brand.logo;
    expect(logo).toMatchObject({ content_type: 'image/png', width: 120, height: 40 });
    expect(logo.sha256).toMatch(/^[0-9a-f]{64}$/);
    expect(pathOf(logo.url)).toBe(`/sign/brand/${org.id}/${logo.sha256}.png`);
    expect(expectStatus(await client(t, org.test).get('/organization'), 200).body.brand.logo).toEqual(logo);

    const served = await t.http.get(pathOf(logo.url)).buffer(true);
    expect(served.status).toBe(200);
    expect(served.headers['content-type']).toBe('image/png');
    expect(served.headers['cache-control']).toBe('public, max-age=31536000, immutable');
    expect(served.headers['x-content-type-options']).toBe('nosniff');
    const body = served.body as Buffer;
    expect(body.length).toBe(logo.byte_size);
    expect(createHash('sha256').update(body).digest('hex')).toBe(logo.sha256);
  });

  it('takes a JPEG as it is; replacing the logo retires the old URL', async () => {
    const org = await t.createOrg();
    const first = expectStatus(await put(org.test, solidPngBytes(10, 10)), 200).body.brand.logo;
    const jpeg = buildMinimalJpeg(64, 32);
    const second = expectStatus(await put(org.test, jpeg, 'logo.jpg', 'image/jpeg'), 200).body.brand.logo;
    expect(second).toMatchObject({ content_type: 'image/jpeg', width: 64, height: 32, byte_size: jpeg.length });
    expect(pathOf(second.url)).toMatch(/\.jpg$/);
    expect((await t.http.get(pathOf(second.url))).status).toBe(200);
    expectError(await t.http.get(pathOf(first.url)), 404, 'resource_not_found');
  });

  it('DELETE removes it: brand.logo null, the URL 404; removing none is fine', async () => {
    const org = await t.createOrg();
    const logo = expectStatus(await put(org.test, solidPngBytes(10, 10)), 200).body.brand.logo;
    expect(expectStatus(await t.http.delete('/v1/organization/logo').set(bearer(org.test)), 200).body.brand.logo).toBeNull();
    expectError(await t.http.get(pathOf(logo.url)), 404, 'resource_not_found');
    expect(expectStatus(await t.http.delete('/v1/organization/logo').set(bearer(org.test)), 200).body.brand.logo).toBeNull();
  });

  it('serves no blob by its hash alone: another organization\'s path, the wrong extension or an unknown hash is 404', async () => {
    const a = await t.createOrg();
    const b = await t.createOrg();
    const logo = expectStatus(await put(a.test, solidPngBytes(10, 10)), 200).body.brand.logo;
    expectError(await t.http.get(`/sign/brand/${b.id}/${logo.sha256}.png`), 404, 'resource_not_found');
    expectError(await t.http.get(`/sign/brand/${a.id}/${logo.sha256}.jpg`), 404, 'resource_not_found');
    expectError(await t.http.get(`/sign/brand/${a.id}/${'0'.repeat(64)}.png`), 404, 'resource_not_found');
  });

  it('refuses with a clear 4xx naming the part: an SVG, another type, too large, undecodable, none at all', async () => {
    const org = await t.createOrg();
    const svg = Buffer.from('<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10"><script>alert(1)</script></svg>');
    const e1 = expectError(await put(org.test, svg, 'logo.svg', 'image/svg+xml'), 415, 'unsupported_file_type', 'file');
    expect(String(e1.message)).toMatch(/SVG/);
    expectError(await put(org.test, Buffer.from('GIF89a\x01\x00\x01\x00\x00\x00\x00;', 'latin1'), 'logo.gif', 'image/png'), 415, 'unsupported_file_type', 'file');
    const big = Buffer.concat([solidPngBytes(10, 10), Buffer.alloc(600 * 1024, 1)]);
    expectError(await put(org.test, big), 413, 'file_too_large', 'file');
    const jpeg = buildMinimalJpeg(64, 32);
    const cut = jpeg.subarray(0, jpeg.indexOf(Buffer.from([0xff, 0xda])) + 4);
    expectError(await put(org.test, cut, 'logo.jpg', 'image/jpeg'), 400, 'invalid_image', 'file');
    const png = solidPngBytes(16, 16);
    const broken = Buffer.from(png);
    const idat = broken.indexOf(Buffer.from('IDAT', 'latin1'));
    broken.fill(0x41, idat + 4, idat + 20);
    expectError(await put(org.test, broken), 400, 'invalid_image', 'file');
    expectError(await put(org.test, solidPngBytes(3000, 1)), 400, 'invalid_image', 'file');
    expectError(await t.http.put('/v1/organization/logo').set(bearer(org.test)).field('other', 'x'), 400, 'missing_parameter', 'file');
    // Nothing was recorded by any of them.
    expect(expectStatus(await client(t, org.test).get('/organization'), 200).body.brand.logo).toBeNull();
  });

  it('decodes the logo in the PDF pool (image.logo), not on the API thread', async () => {
    const org = await t.createOrg();
    const run = jest.spyOn(t.app.get(DocumentPdfService).pool, 'run');
    try {
      expectStatus(await put(org.test, solidPngBytes(64, 64)), 200);
      expect(run.mock.calls.map(([job]) => (job as { id: string }).id)).toEqual([CHECK_LOGO.id]);
    } finally {
      run.mockRestore();
    }
  });

  it('requires a key', async () => {
    expectError(await t.http.put('/v1/organization/logo').attach('file', solidPngBytes(), 'logo.png'), 401, 'missing_api_key');
    expectError(await t.http.delete('/v1/organization/logo'), 401, 'missing_api_key');
  });
});
