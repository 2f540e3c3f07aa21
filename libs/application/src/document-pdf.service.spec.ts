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
