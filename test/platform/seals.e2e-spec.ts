import { inspectSealImage } from '@dojang/seals';
import { solidPng } from './images';
import { client, Client } from '../support/api-helpers';
import { TestOrg, useTestApp } from '../support/test-app';

/** A JPEG header with a frame of the given size: enough for the byte checks. */
function tinyJpeg(width = 16, height = 16): string {
  const sof = Buffer.from([0xff, 0xc0, 0x00, 0x11, 0x08, height >> 8, height & 0xff, width >> 8, width & 0xff, 0x03, 1, 0x22, 0, 2, 0x11, 1, 3, 0x11, 1]);
  return `data:image/jpeg;base64,${Buffer.concat([Buffer.from([0xff, 0xd8]), sof, Buffer.from([0xff, 0xd9])]).toString('base64')}`;
}

describe('seals', () => {
  const t = useTestApp();
  let org: TestOrg;
  let c: Client;
  beforeAll(async () => {
    org = await t.createOrg();
    c = client(t, org.test);
  });

  it('generates a round red seal PNG from the company name on the server', async () => {
    const res = await c.post('/seals', { source: 'generated', company_name: '주식회사 도장' });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ object: 'seal', name: '주식회사 도장', type: 'corporate', source: 'generated', restricted: false, company_name: '주식회사 도장' });
    expect(res.body.id).toMatch(/^seal_[0-9a-f]{24}$/);
    expect(res.body.image).toMatchObject({ content_type: 'image/png', width: 300, height: 300 });
    const img = await t.http.get(`/v1/seals/${res.body.id}/image`).set({ Authorization: `Bearer ${org.test}` }).buffer(true);
    expect(img.status).toBe(200);
    expect(img.headers['content-type']).toBe('image/png');
    const png = img.body as Buffer;
    expect(inspectSealImage(`data:image/png;base64,${png.toString('base64')}`)).toMatchObject({ mime: 'image/png', width: 300, height: 300 });
  });

  it('takes an uploaded PNG or JPEG, judged by its bytes, and lists seals with id, name, type, source, restricted', async () => {
    const png = await c.post('/seals', { source: 'uploaded', name: '사용인감', type: 'usage', image: solidPng(64, 64, [200, 0, 0, 255]) });
    expect(png.status).toBe(201);
    expect(png.body).toMatchObject({ source: 'uploaded', type: 'usage', company_name: null, image: { content_type: 'image/png', width: 64, height: 64 } });
    // Labelled PNG, but the bytes are a JPEG: the bytes win.
    const jpeg = await c.post('/seals', { source: 'uploaded', name: '직인 스캔', image: tinyJpeg().replace('image/jpeg', 'image/png'), restricted: true });
    expect(jpeg.status).toBe(201);
    expect(jpeg.body.image.content_type).toBe('image/jpeg');
    const list = (await c.get('/seals')).body;
    expect(list.object).toBe('list');
    const mine = list.data.filter((s: any) => [png.body.id, jpeg.body.id].includes(s.id));
    expect(mine.map((s: any) => ({ id: s.id, name: s.name, type: s.type, source: s.source, restricted: s.restricted }))).toEqual([
      { id: jpeg.body.id, name: '직인 스캔', type: 'corporate', source: 'uploaded', restricted: true },
      { id: png.body.id, name: '사용인감', type: 'usage', source: 'uploaded', restricted: false },
    ]);
    expect((await client(t, org.live).get('/seals')).body.data).toEqual([]);
  });

  it('refuses images that are not PNG or JPEG, over 1 MB, or damaged; and missing inputs', async () => {
    const gif = `data:image/gif;base64,${Buffer.from('GIF89a\x01\x00\x01\x00\x00\x00\x00;').toString('base64')}`;
    const cases: Array<[Record<string, unknown>, number, string, string]> = [
      [{ source: 'uploaded', name: 'x', image: gif }, 415, 'unsupported_file_type', 'image'],
      [{ source: 'uploaded', name: 'x', image: `data:image/png;base64,${Buffer.alloc(1024 * 1024 + 1, 1).toString('base64')}` }, 413, 'file_too_large', 'image'],
      [{ source: 'uploaded', name: 'x', image: solidPng().slice(0, 80) }, 400, 'invalid_parameter', 'image'],
      [{ source: 'uploaded', name: 'x', image: 'not a data url' }, 400, 'invalid_parameter', 'image'],
      [{ source: 'uploaded', image: solidPng() }, 400, 'missing_parameter', 'name'],
      [{ source: 'uploaded', name: 'x' }, 400, 'missing_parameter', 'image'],
      [{ source: 'generated' }, 400, 'missing_parameter', 'company_name'],
      [{ source: 'generated', company_name: 'x'.repeat(31) }, 400, 'invalid_parameter', 'company_name'],
      [{ source: 'generated', company_name: '도장', image: solidPng() }, 400, 'invalid_parameter', 'image'],
      [{ company_name: '도장' }, 400, 'missing_parameter', 'source'],
      [{ source: 'drawn' }, 400, 'invalid_parameter', 'source'],
      [{ source: 'generated', company_name: '도장', type: 'personal' }, 400, 'invalid_parameter', 'type'],
    ];
    for (const [body, status, code, param] of cases) {
      const res = await c.post('/seals', body);
      expect({ body, status: res.status, code: res.body.error?.code, param: res.body.error?.param }).toEqual({ body, status, code, param });
    }
  });

  it('lets a representative stamp seal fields with an organization seal, never a restricted one, or with an uploaded image', async () => {
    const seal = (await c.post('/seals', { source: 'generated', company_name: '도장' })).body;
    const restricted = (await c.post('/seals', { source: 'generated', company_name: '비밀', restricted: true })).body;

    const sign = async (body: Record<string, unknown>) => {
      const doc = (await c.post('/documents', { title: '용역계약서', content: '<p>본문</p>' })).body;
      const p = (await c.post(`/documents/${doc.id}/participants`, { name: '김대표', auth: 'none', representative: true })).body;
      await c.put(`/documents/${doc.id}/fields`, {
        fields: [
          { participant_id: p.id, type: 'signature', page: 1, x: 10, y: 70, width: 20, height: 8 },
          { participant_id: p.id, type: 'seal', page: 1, x: 60, y: 70, width: 15, height: 10 },
        ],
      });
      const sent = (await c.post(`/documents/${doc.id}/send`, {})).body;
      const token = String(sent.participants[0].signing_url).split('/sign/')[1];
      const res = await t.http.post(`/v1/signing/${token}/sign`).send({ consent: true, signature: solidPng(), ...body });
      return { doc, res };
    };

    const byId = await sign({ seal_id: seal.id });
    expect(byId.res.status).toBe(200);
    expect(byId.res.body.document.status).toBe('completed');
    const signed = (await t.infra.events.readStream(`document-${byId.doc.id}`)).find((e) => e.type === 'ParticipantSigned');
    expect(signed?.data.seal).toMatchObject({ seal_id: seal.id, image: { sha256: seal.image.sha256 } });

    const refused = await sign({ seal_id: restricted.id });
    expect(refused.res.status).toBe(400);
    expect(refused.res.body.error).toMatchObject({ code: 'invalid_parameter', param: 'seal_id' });

    const uploaded = await sign({ seal_image: solidPng(50, 50, [220, 0, 0, 255]) });
    expect(uploaded.res.status).toBe(200);
    expect(uploaded.res.body.document.status).toBe('completed');
  });
});
