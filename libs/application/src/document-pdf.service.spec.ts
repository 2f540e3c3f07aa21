import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { FileBlobStore } from '@dojang/blob-store/file';
import { PdfLimitError, PdfPool } from '@dojang/pdf';
import { loadConfig } from './runtime/config';
import { DocumentPdfService } from './document-pdf.service';

describe('DocumentPdfService remembers refusals (issue 24, item 16)', () => {
  let dir: string;
  beforeAll(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'dojang-pdf-service-'));
  });
  afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

  /** A pool whose every job is stopped at the time limit, as a pathological body's render was. */
  function refusingPool() {
    const run = jest.fn(async () => {
      throw new PdfLimitError('pdf_job_limit_exceeded', 'time', 'The PDF work (pdf.render-document) took longer than its time limit of 30 s and was stopped.');
    });
    return { pool: { run } as unknown as PdfPool, run };
  }

  const draft = { title: '계약서', content: '<p>본문</p>', content_format: 'html' as const, created_at: '2026-03-02T09:00:00.000Z', organization_id: 'org_a', file: null, original_pdf: null };

  it('a render refused once is refused again from memory, without a second job', async () => {
    const { pool, run } = refusingPool();
    const service = new DocumentPdfService(new FileBlobStore(dir), loadConfig({ DATA_DIR: dir, NODE_ENV: 'test' }), null, pool);
    await expect(service.original(draft)).rejects.toMatchObject({ code: 'pdf_job_limit_exceeded', limit: 'time' });
    await expect(service.original(draft)).rejects.toMatchObject({ code: 'pdf_job_limit_exceeded', limit: 'time' });
    await expect(service.rendered(draft)).rejects.toMatchObject({ code: 'pdf_job_limit_exceeded' });
    expect(run).toHaveBeenCalledTimes(1);
    expect(service.refusalsRemembered).toBe(2);
    // Counted against the document's organization in the pool.
    expect(run.mock.calls[0]).toEqual([expect.anything(), expect.anything(), expect.objectContaining({ tenant: 'org_a' })]);
    // Other content is rendered (tried) as usual.
    await expect(service.original({ ...draft, content: '<p>다른 본문</p>' })).rejects.toMatchObject({ limit: 'time' });
    expect(run).toHaveBeenCalledTimes(2);
  });

  it('a time refusal is tried again once the time limit is raised', async () => {
    const { pool, run } = refusingPool();
    const config = loadConfig({ DATA_DIR: dir, NODE_ENV: 'test' });
    const service = new DocumentPdfService(new FileBlobStore(dir), config, null, pool);
    const other = { ...draft, content: '<p>세 번째 본문</p>' };
    await expect(service.original(other)).rejects.toMatchObject({ limit: 'time' });
    await expect(service.original(other)).rejects.toMatchObject({ limit: 'time' });
    expect(run).toHaveBeenCalledTimes(1);
    config.pdfJobTimeoutMs *= 2;
    await expect(service.original(other)).rejects.toMatchObject({ limit: 'time' });
    expect(run).toHaveBeenCalledTimes(2);
  });

  it('a refused signature placement is not laid out again either', async () => {
    const { pool, run } = refusingPool();
    const service = new DocumentPdfService(new FileBlobStore(dir), loadConfig({ DATA_DIR: dir, NODE_ENV: 'test' }), null, pool);
    const input = { title: '계약서', content: `<p>${'a'.repeat(12_000)}</p>`, format: 'html' as const, signer_name: '홍길동' };
    await expect(service.placeSignature(input, 'org_a')).rejects.toMatchObject({ code: 'pdf_job_limit_exceeded' });
    await expect(service.placeSignature(input, 'org_a')).rejects.toMatchObject({ code: 'pdf_job_limit_exceeded' });
    expect(run).toHaveBeenCalledTimes(1);
  });
});

describe('DocumentPdfService renders the pages after page 1 ahead of the signer (issue 35 item 5)', () => {
  let dir: string;
  beforeAll(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'dojang-pdf-warm-'));
  });
  afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

  async function serviceWith(run: jest.Mock, pageImagesAtSend = 'true') {
    const blobs = new FileBlobStore(dir);
    const pdf = await blobs.put(Buffer.from('%PDF-1.7 warm-up test'));
    return { service: new DocumentPdfService(blobs, loadConfig({ DATA_DIR: dir, NODE_ENV: 'test', PAGE_IMAGES_AT_SEND: pageImagesAtSend }), null, { run } as unknown as PdfPool), pdf: pdf.sha256 };
  }
  const until = async (done: () => boolean) => {
    while (!done()) await new Promise((r) => setTimeout(r, 5));
  };

  it('renders pages 2… once per PDF, width and format, one after the other', async () => {
    const run = jest.fn(async (_job: unknown, input: { page: number; width: number; webp?: boolean }) => ({ page_count: 3, webp: Buffer.from(`page ${input.page}`), width: 960, height: 1358 }));
    const { service, pdf } = await serviceWith(run);
    service.warmFollowingPages(pdf, 3, 960, 'webp', () => undefined);
    service.warmFollowingPages(pdf, 3, 960, 'webp', () => undefined);
    await until(() => run.mock.calls.length >= 2);
    await new Promise((r) => setTimeout(r, 20));
    expect(run.mock.calls.map(([, input]) => [input.page, input.width, input.webp])).toEqual([
      [2, 960, true],
      [3, 960, true],
    ]);
    expect((await service.pageImage(pdf, 3, 960, 'webp'))?.toString()).toBe('page 3');
    expect(run).toHaveBeenCalledTimes(2);
    // A one-page document, or a width not offered, has nothing to warm.
    service.warmFollowingPages(pdf, 1, 720, 'webp', () => undefined);
    service.warmFollowingPages(pdf, 3, 123, 'webp', () => undefined);
    await new Promise((r) => setTimeout(r, 20));
    expect(run).toHaveBeenCalledTimes(2);
  });

  it('reports a failed render once, leaves the rest to their own requests, and warms again on the next page 1', async () => {
    let fail = true;
    const run = jest.fn(async (_job: unknown, input: { page: number }) => {
      if (fail) throw new Error('pool is down');
      return { page_count: 3, webp: Buffer.from(`page ${input.page}`), width: 720, height: 1018 };
    });
    const { service, pdf } = await serviceWith(run);
    const errors: unknown[] = [];
    service.warmFollowingPages(pdf, 3, 720, 'webp', (err) => errors.push(err));
    await until(() => errors.length > 0);
    expect(errors).toEqual([expect.objectContaining({ message: 'pool is down' })]);
    // Stopped at its first failure: page 3 was not tried.
    expect(run).toHaveBeenCalledTimes(1);
    fail = false;
    service.warmFollowingPages(pdf, 3, 720, 'webp', (err) => errors.push(err));
    await until(() => run.mock.calls.length >= 3);
    expect(run.mock.calls.slice(1).map(([, input]) => input.page)).toEqual([2, 3]);
    expect(errors).toHaveLength(1);
  });

  it('renders nothing ahead with PAGE_IMAGES_AT_SEND=false, which leaves every page to its own request', async () => {
    const run = jest.fn();
    const { service, pdf } = await serviceWith(run, 'false');
    service.warmFollowingPages(pdf, 3, 720, 'webp', () => undefined);
    await new Promise((r) => setTimeout(r, 20));
    expect(run).not.toHaveBeenCalled();
  });

  it('stops at the next page once the service is closed, reporting nothing', async () => {
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    const run = jest.fn(async (_job: unknown, input: { page: number }) => {
      await gate;
      return { page_count: 5, webp: Buffer.from(`page ${input.page}`), width: 720, height: 1018 };
    });
    const { service, pdf } = await serviceWith(run);
    const errors: unknown[] = [];
    service.warmFollowingPages(pdf, 5, 720, 'webp', (err) => errors.push(err));
    await until(() => run.mock.calls.length === 1);
    await service.close();
    release();
    await new Promise((r) => setTimeout(r, 20));
    expect(run).toHaveBeenCalledTimes(1);
    expect(errors).toEqual([]);
  });
});
