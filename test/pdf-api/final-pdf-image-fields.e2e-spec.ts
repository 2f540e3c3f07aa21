import { renderPage } from '@dojang/pdf/testing/poppler';
import { client, expectStatus } from '../support/api-helpers';
import { solidPng } from '../support/png';
import { bearer, startTestApp, TestApp } from '../support/test-app';
import { binary } from '../files/file-helpers';

/**
 * In the final PDF a participant's signature goes in their signature fields and their seal in
 * their seal fields; their value fields show values, never one of the images. (Every value field of
 * a participant who signed with a seal once got the seal image stamped over its value.)
 */
describe('the final PDF: images only in image fields', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(() => t?.close());

  it('stamps the signature and the seal in their own fields and nowhere else', async () => {
    const org = await t.createOrg();
    const c = client(t, org.test);
    const doc = expectStatus(await c.post('/documents', { title: '도장 계약서', content: '<p>본문</p>' }), 201).body;
    const p = expectStatus(await c.post(`/documents/${doc.id}/participants`, { name: '홍길동', auth: 'none' }), 201).body;
    const at = (type: string, x: number, y: number, extra: object = {}) => ({ participant_id: p.id, type, page: 1, x, y, width: 20, height: 8, ...extra });
    const fields = [
      at('signature', 10, 40),
      at('seal', 60, 40),
      at('text', 10, 55, { label: '주소' }),
      at('initials', 60, 55, { label: '이니셜' }),
      at('checkbox', 10, 70, { label: '동의', width: 5, height: 4 }),
      at('name', 60, 70),
    ];
    const placed = expectStatus(await c.put(`/documents/${doc.id}/fields`, { fields }), 200).body.data as any[];
    const sent = expectStatus(await c.post(`/documents/${doc.id}/send`, {}), 200).body;
    const token = String(sent.participants[0].signing_url).split('/sign/')[1];
    const values = { [placed[2].id]: '서울', [placed[3].id]: 'HGD', [placed[4].id]: true };
    const signed = await t.http.post(`/v1/signing/${token}/sign`).send({ consent: true, signature: solidPng(80, 30, [0, 0, 255, 255]), seal_image: solidPng(40, 40, [255, 0, 0, 255]), values });
    expectStatus(signed, 200);
    expect(signed.body.document.status).toBe('completed');
    const final = (await t.http.get(`/v1/documents/${doc.id}/file`).set(bearer(org.test)).buffer(true).parse(binary).expect(200)).body as Buffer;

    const page = renderPage(final, 1, 72);
    const count = (f: { x: number; y: number; width: number; height: number }, pick: (rgb: number[]) => boolean) => {
      let n = 0;
      for (let y = Math.floor((f.y / 100) * page.height); y < ((f.y + f.height) / 100) * page.height; y++) {
        for (let x = Math.floor((f.x / 100) * page.width); x < ((f.x + f.width) / 100) * page.width; x++) if (pick(page.rgb(x, y))) n++;
      }
      return n;
    };
    const red = ([r, g, b]: number[]) => r > 200 && g < 80 && b < 80;
    const blue = ([r, g, b]: number[]) => b > 200 && r < 80 && g < 80;
    expect(placed.map((f) => [f.type, count(f, red) > 0, count(f, blue) > 0])).toEqual([
      ['signature', false, true],
      ['seal', true, false],
      ['text', false, false],
      ['initials', false, false],
      ['checkbox', false, false],
      ['name', false, false],
    ]);
  });
});
