import { DocumentPdfService } from '@dojang/application';
import { documentStreamId } from '@dojang/domain';
import { CHECK_IMAGE, closeSharedPdfPools, encodePngPixels, RENDER_DOCUMENT, RENDER_SVG } from '@dojang/pdf';
import { client, Client, expectError, expectStatus } from '../support/api-helpers';
import { sentWith, signer, draftWith } from '../support/lifecycle';
import { bearer, startTestApp, TestApp, TestOrg } from '../support/test-app';
import { binary, sha256 } from '../files/file-helpers';

/** A PNG whose header claims width×height (budgets read headers; nothing here is decoded). */
function pngClaiming(width: number, height: number): string {
  const png = Buffer.from(encodePngPixels(1, 1, 4, new Uint8Array(4)));
  png.writeUInt32BE(width, 16);
  png.writeUInt32BE(height, 20);
  return `<img src="data:image/png;base64,${png.toString('base64')}">`;
}
/** Each under the per-image cap (10 MP); together over the document's 20 MP. */
const HEAVY_IMAGES = `<p>사진 첨부</p>${pngClaiming(3000, 3000)}${pngClaiming(3000, 3000)}${pngClaiming(3000, 3000)}`;

describe('PDF work in the worker pool: budgets, limits, render once, a free event loop', () => {
  jest.setTimeout(300_000);
  let t: TestApp;
  let org: TestOrg;
  let c: Client;
  let pdf: DocumentPdfService;
  const download = (id: string) => t.http.get(`/v1/documents/${id}/file`).set(bearer(org.test)).buffer(true).parse(binary);
  const eventTypes = async (id: string) => (await t.infra.events.readStream(documentStreamId(id))).map((e) => e.type);

  beforeAll(async () => {
    t = await startTestApp();
    org = await t.createOrg();
    c = client(t, org.test);
    pdf = t.app.get(DocumentPdfService);
  });
  afterAll(async () => {
    await t.close();
    await closeSharedPdfPools();
  });
  afterEach(() => {
    jest.restoreAllMocks();
    t.infra.config.pdfJobTimeoutMs = 120_000;
  });

  it('refuses content whose images add up past the per-document pixel budget at create, with 413 naming the budget', async () => {
    const before = expectStatus(await c.get('/documents?limit=100'), 200).body.data.length;
    const err = expectError(await c.post('/documents', { title: '사진 계약서', content: HEAVY_IMAGES }), 413, 'document_budget_exceeded', 'content');
    expect(err.message).toMatch(/27000000 pixels; at most 20000000/);
    expect(expectStatus(await c.get('/documents?limit=100'), 200).body.data.length).toBe(before);
  });

  it('refuses the same content at update and leaves the draft as it was', async () => {
    const doc = expectStatus(await c.post('/documents', { title: '계약서', content: '<p>본문</p>' }), 201).body;
    const events = await eventTypes(doc.id);
    expectError(await c.patch(`/documents/${doc.id}`, { content: HEAVY_IMAGES }), 413, 'document_budget_exceeded', 'content');
    expect(expectStatus(await c.get(`/documents/${doc.id}`), 200).body.content).toBe('<p>본문</p>');
    expect(await eventTypes(doc.id)).toEqual(events);
  });

  it('renders a draft once: every GET /file, the signing page and send reuse the stored render', async () => {
    const run = jest.spyOn(pdf.pool, 'run');
    const built = await draftWith(c, [{ name: '김철수' }], { title: '한 번만 그리는 계약서' });
    const first = (await download(built.id).expect(200)).body as Buffer;
    const second = (await download(built.id).expect(200)).body as Buffer;
    expect(sha256(second)).toBe(sha256(first));
    const sent = expectStatus(await c.post(`/documents/${built.id}/send`, {}), 200).body;
    const renders = run.mock.calls.filter(([job]) => job === RENDER_DOCUMENT);
    expect(renders).toHaveLength(1);
    // Send fixed exactly the bytes the draft showed.
    const signing = await signer(t, sent.participants[0].signing_url.split('/sign/')[1]).file();
    expect(sha256(Buffer.from(signing.body))).toBe(sha256(first));
  });

  it('refuses send with 413 when its render passes the time limit, and appends nothing', async () => {
    const built = await draftWith(c, [{ name: '이영희' }], { title: '시간 초과 계약서', content: '<p>제1조</p>'.repeat(200) });
    // Placing fields rendered the draft (its page count); a new body leaves send a render to do.
    expectStatus(await c.patch(`/documents/${built.id}`, { content: '<p>제2조</p>'.repeat(200) }), 200);
    const events = await eventTypes(built.id);
    t.infra.config.pdfJobTimeoutMs = 1;
    const err = expectError(await c.post(`/documents/${built.id}/send`, {}), 413, 'pdf_job_limit_exceeded');
    expect(err.message).toMatch(/time limit/);
    expect(expectStatus(await c.get(`/documents/${built.id}`), 200).body.status).toBe('draft');
    expect(await eventTypes(built.id)).toEqual(events);
    // Given its time (generous: the machine may be busy), the same send goes through.
    t.infra.config.pdfJobTimeoutMs = 120_000;
    expect(expectStatus(await c.post(`/documents/${built.id}/send`, {}), 200).body.status).toBe('sent');
  });

  it('refuses the completing signature with 413 when the final PDF passes the time limit, and records no signature', async () => {
    const built = await sentWith(c, [{ name: '박민수' }], { title: '서명 시간 초과' });
    const s = signer(t, built.p['박민수'].token);
    expectStatus(await s.view(), 200);
    const events = await eventTypes(built.id);
    t.infra.config.pdfJobTimeoutMs = 1;
    expectError(await s.sign(), 413, 'pdf_job_limit_exceeded');
    expect(await eventTypes(built.id)).toEqual(events);
    expect(expectStatus(await c.get(`/documents/${built.id}`), 200).body.status).toBe('sent');
    t.infra.config.pdfJobTimeoutMs = 120_000;
    expectStatus(await s.sign(), 200);
    expect(expectStatus(await c.get(`/documents/${built.id}`), 200).body.status).toBe('completed');
  });

  it('answers other requests while a PDF job is in flight: the API thread never renders', async () => {
    const long = '<p>갑과 을은 다음과 같이 계약을 체결하고 성실히 이행한다. 이 조항은 길게 반복된다.</p>'.repeat(600);
    const doc = expectStatus(await c.post('/documents', { title: '긴 계약서', content: long }), 201).body;
    let fileDone = false;
    const file = download(doc.id).then((res) => {
      fileDone = true;
      return res;
    });
    // Wait until the render is running in a worker.
    while (pdf.pool.load.running === 0 && !fileDone) await new Promise((resolve) => setTimeout(resolve, 5));
    const health = await t.http.get('/v1/health');
    expect(health.status).toBe(200);
    const list = await c.get('/documents?limit=1');
    expect(list.status).toBe(200);
    // Both answered while the render was still running.
    expect(fileDone).toBe(false);
    expect((await file).status).toBe(200);
  });

  describe('signature and seal images', () => {
    /** A 3162×3162 PNG: 45 KB on the wire, about a second to decode and re-encode. */
    const tenMegapixels = () => {
      const side = 3162;
      return `data:image/png;base64,${Buffer.from(encodePngPixels(side, side, 4, new Uint8Array(side * side * 4).fill(0xee))).toString('base64')}`;
    };
    const jobsRun = (run: jest.SpyInstance) => run.mock.calls.map(([job]) => (job as { id: string }).id);

    it('decodes a signature image in the pool, where the time limit refuses it and nothing is recorded', async () => {
      const built = await sentWith(c, [{ name: '최지우' }], { title: '큰 서명 이미지' });
      const s = signer(t, built.p['최지우'].token);
      expectStatus(await s.view(), 200);
      const events = await eventTypes(built.id);
      const run = jest.spyOn(pdf.pool, 'run');
      t.infra.config.pdfJobTimeoutMs = 1;
      const err = expectError(await s.sign({ consent: true, signature: tenMegapixels() }), 413, 'pdf_job_limit_exceeded');
      expect(err.message).toMatch(/time limit/);
      // The first job of the request is the image check: before it, nothing decoded the image.
      expect(jobsRun(run)[0]).toBe(CHECK_IMAGE.id);
      expect(await eventTypes(built.id)).toEqual(events);
      t.infra.config.pdfJobTimeoutMs = 120_000;
      expectStatus(await s.sign({ consent: true, signature: tenMegapixels() }), 200);
      expect(jobsRun(run).filter((id) => id === CHECK_IMAGE.id)).toHaveLength(2);
    });

    it('answers other requests while a signature image is being decoded', async () => {
      const built = await sentWith(c, [{ name: '정하늘' }], { title: '큰 서명, 다른 요청' });
      const s = signer(t, built.p['정하늘'].token);
      let done = false;
      const signing = s.sign({ consent: true, signature: tenMegapixels() }).then((res) => ((done = true), res));
      while (pdf.pool.load.running === 0 && !done) await new Promise((resolve) => setTimeout(resolve, 5));
      expect((await t.http.get('/v1/health')).status).toBe(200);
      expect(done).toBe(false);
      expectStatus(await signing, 200);
    });

    it('refuses an image the stamper could not decode with 400 naming the parameter', async () => {
      const built = await sentWith(c, [{ name: '한결' }], { title: '깨진 서명' });
      const png = Buffer.from(encodePngPixels(40, 20, 4, new Uint8Array(40 * 20 * 4).fill(0x40)));
      png[png.length - 20] ^= 0xff; // inside the image data: the header still reads
      const broken = `data:image/png;base64,${png.toString('base64')}`;
      expectError(await signer(t, built.p['한결'].token).sign({ consent: true, signature: broken }), 400, 'invalid_parameter', 'signature');
    });

    it('renders a generated seal in the pool and checks an uploaded one there', async () => {
      const run = jest.spyOn(pdf.pool, 'run');
      const generated = expectStatus(await c.post('/seals', { source: 'generated', company_name: '주식회사 도장' }), 201).body;
      expect(jobsRun(run)).toEqual([RENDER_SVG.id]);
      const image = (await t.http.get(`/v1/seals/${generated.id}/image`).set(bearer(org.test)).buffer(true).parse(binary).expect(200)).body as Buffer;
      expect(image.subarray(1, 4).toString()).toBe('PNG');
      run.mockClear();
      expectStatus(await c.post('/seals', { source: 'uploaded', name: '올린 직인', image: `data:image/png;base64,${image.toString('base64')}` }), 201);
      expect(jobsRun(run)).toEqual([CHECK_IMAGE.id]);
    });
  });
});
