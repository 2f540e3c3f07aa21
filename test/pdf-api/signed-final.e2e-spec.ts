import * as fs from 'fs';
import * as path from 'path';
import { documentStreamId } from '@dojang/domain';
import { encodePng } from '@dojang/pdf/testing/png';
import { pdfinfo, pdfsig, pdftotext, renderPage } from '@dojang/pdf/testing/poppler';
import { addParticipant, client, Client, expectStatus } from '../support/api-helpers';
import { bearer, startTestApp, TestApp, TestOrg } from '../support/test-app';
import { binary, pdfFixture, sha256, uploadFixture } from '../files/file-helpers';

interface Field {
  page: number;
  x: number;
  y: number;
  width: number;
  height: number;
}

const A4 = { width: 594.96, height: 841.92 };
const LETTER = { width: 612, height: 792 };
const DPI = 40;

const isRed = ([r, g, b]: [number, number, number]) => r > 200 && g < 80 && b < 80;
const pageCount = (pdf: Buffer) => Number(/Pages:\s+(\d+)/.exec(pdfinfo(pdf))?.[1]);

/** A solid red signature shaped like the field as displayed, so it fills the field. */
function redSignature(field: Field, display: { width: number; height: number }): string {
  const w = 240;
  const h = Math.max(4, Math.round((w * (field.height / 100) * display.height) / ((field.width / 100) * display.width)));
  return `data:image/png;base64,${encodePng(w, h, () => [255, 0, 0, 255]).toString('base64')}`;
}

/** /ByteRange [a b c d] of the (only) signature. */
function byteRange(pdf: Buffer): number[] {
  const match = /\/ByteRange\s*\[\s*(\d+)\s+(\d+)\s+(\d+)\s+(\d+)\s*\]/.exec(pdf.toString('latin1'));
  if (!match) throw new Error('no /ByteRange in the PDF');
  return match.slice(1).map(Number);
}

const CASES: Array<{ fixture: string; field: Field; display: { width: number; height: number } }> = [
  // A4 contract: the signature block on page 3.
  { fixture: 'chromium-korean-contract-a4.pdf', field: { page: 3, x: 55, y: 20, width: 30, height: 8 }, display: A4 },
  // US Letter: percentages follow the page size.
  { fixture: 'chromium-korean-contract-letter.pdf', field: { page: 1, x: 10, y: 70, width: 25, height: 10 }, display: LETTER },
  // Page 2 has /Rotate 90: the signer sees it landscape, and the field is placed on that view.
  { fixture: 'rotated-page2-90.pdf', field: { page: 2, x: 60, y: 15, width: 30, height: 12 }, display: { width: A4.height, height: A4.width } },
];

describe.each(CASES)('the final PDF of $fixture', ({ fixture, field, display }) => {
  let t: TestApp;
  let org: TestOrg;
  let c: Client;
  let docId: string;
  let finalSha: string;
  let final: Buffer;
  const original = pdfFixture(fixture);
  const download = (query = '') => t.http.get(`/v1/documents/${docId}/file${query}`).set(bearer(org.test)).buffer(true).parse(binary).expect(200);

  beforeAll(async () => {
    t = await startTestApp();
    org = await t.createOrg();
    c = client(t, org.test);
    const file = await uploadFixture(t, org.test, fixture);
    const doc = expectStatus(await c.post('/documents', { title: '표준 근로계약서 (서명본)', file_url: file.url }), 201).body;
    docId = doc.id;
    const p = await addParticipant(c, docId, { name: '홍길동', auth: 'none', phone: undefined });
    expectStatus(await c.put(`/documents/${docId}/fields`, { fields: [{ participant_id: p.id, type: 'signature', ...field }] }), 200);
    const sent = expectStatus(await c.post(`/documents/${docId}/send`, {}), 200).body;
    const token = String(sent.participants[0].signing_url).split('/sign/')[1];
    expectStatus(await t.http.get(`/v1/signing/${token}`), 200);
    expectStatus(await t.http.post(`/v1/signing/${token}/sign`).send({ consent: true, signature: redSignature(field, display) }), 200);
    const completed = expectStatus(await c.get(`/documents/${docId}`), 200).body;
    expect(completed.status).toBe('completed');
    finalSha = completed.final_pdf_sha256;
    final = (await download()).body;
  });
  afterAll(() => t.close());

  it('is served exactly as stored, its SHA-256 the one recorded in the completion event', async () => {
    expect(finalSha).toMatch(/^[0-9a-f]{64}$/);
    expect(sha256(final)).toBe(finalSha);
    const completedEvent = (await t.infra.events.readStream(documentStreamId(docId))).find((e) => e.type === 'DocumentCompleted');
    expect((completedEvent?.data.final_pdf as { sha256: string }).sha256).toBe(finalSha);
    expect(sha256((await download()).body)).toBe(finalSha); // built once, not on every download
    const res = await download();
    expect(res.headers['content-type']).toBe('application/pdf');
    expect(res.headers['content-disposition']).toContain(`filename*=UTF-8''${encodeURIComponent('표준 근로계약서 ')}%28${encodeURIComponent('서명본')}%29.pdf`);
  });

  it('carries a PAdES signature over the whole file that pdfsig finds intact', () => {
    const report = pdfsig(final);
    expect(report).toContain('Signature Validation: Signature is Valid.');
    expect(report).toContain('Total document signed');
    expect(report).toContain('Signature Type: ETSI.CAdES.detached');
    const [a, b, cc, d] = byteRange(final);
    expect(a).toBe(0);
    expect(cc + d).toBe(final.length);
    expect(final[b]).toBe('<'.charCodeAt(0));
    expect(final[cc - 1]).toBe('>'.charCodeAt(0));
  });

  it('is reported broken by pdfsig once a byte inside the signed range changes', () => {
    const tampered = Buffer.from(final);
    // A byte of the binary comment under the header: the file still parses, only the digest notices.
    const at = tampered.indexOf('\n%', 5, 'latin1') + 2;
    expect(at).toBeLessThan(byteRange(final)[1]);
    tampered[at] ^= 0x01;
    const report = pdfsig(tampered);
    expect(report).not.toContain('Signature is Valid');
    expect(report).toMatch(/Signature Validation: (Digest Mismatch|Signature is Invalid)/);
  });

  it('has the signature stamped where the field says, and nowhere else', () => {
    const page = renderPage(final, field.page, DPI);
    expect(page.width).toBeCloseTo((display.width * DPI) / 72, -1);
    expect(page.height).toBeCloseTo((display.height * DPI) / 72, -1);
    const x0 = (field.x / 100) * page.width;
    const y0 = (field.y / 100) * page.height;
    const x1 = ((field.x + field.width) / 100) * page.width;
    const y1 = ((field.y + field.height) / 100) * page.height;
    let inside = 0;
    let redInside = 0;
    const redOutside: string[] = [];
    for (let y = 0; y < page.height; y++) {
      for (let x = 0; x < page.width; x++) {
        const red = isRed(page.rgb(x, y));
        if (x >= x0 + 2 && x <= x1 - 2 && y >= y0 + 2 && y <= y1 - 2) {
          inside++;
          if (red) redInside++;
        } else if ((x < x0 - 3 || x > x1 + 3 || y < y0 - 3 || y > y1 + 3) && red) {
          redOutside.push(`${x},${y}`);
        }
      }
    }
    expect(inside).toBeGreaterThan(50);
    expect(redInside / inside).toBeGreaterThan(0.9);
    expect(redOutside.slice(0, 10)).toEqual([]);
    // The other pages carry no stamp.
    for (let n = 1; n <= 3; n++) {
      if (n === field.page) continue;
      const other = renderPage(final, n, 20);
      let red = 0;
      for (let y = 0; y < other.height; y++) for (let x = 0; x < other.width; x++) if (isRed(other.rgb(x, y))) red++;
      expect(red).toBe(0);
    }
  });

  it('keeps the Korean text layer of the upload untouched', () => {
    const text = pdftotext(final);
    expect(text).toContain('표준 근로계약서');
    expect(text).toContain('월 급여액은 3,500,000원으로 하며 매월 25일에 지급한다.');
    expect(text).toBe(pdftotext(original));
    expect(pageCount(final)).toBe(3);
  });

  it('with audit=true appends the audit-trail certificate: document id, both hashes, Korean labels', async () => {
    const res = await download('?audit=true');
    expect(res.headers['content-type']).toBe('application/pdf');
    expect(res.headers['content-disposition']).toMatch(/filename\*=UTF-8''.+%28audit%29\.pdf$/);
    const bundle: Buffer = res.body;
    expect(pageCount(bundle)).toBeGreaterThan(pageCount(final));
    const text = pdftotext(bundle);
    const pages = text.split('\f');
    expect(pages[0]).toContain('표준 근로계약서');
    const certificate = pages.slice(3).join('\n');
    for (const label of ['전자서명 감사 추적 인증서', '원본 문서 해시', '최종 문서 해시', '참여자', '처리 이력']) expect(certificate).toContain(label);
    expect(certificate).toContain('홍길동');
    const compact = certificate.replace(/\s+/g, '');
    expect(compact).toContain(docId);
    expect(compact).toContain(sha256(original)); // the original as uploaded and fixed at send
    expect(compact).toContain(finalSha);
  });

  it('is verified intact by the admin, and reported altered once the stored blob is overwritten', async () => {
    const intact = await t.admin.verifyDocument(docId);
    expect(intact).toMatchObject({ found: true, intact: true });
    expect(intact.found && intact.checks.find((c) => c.check === 'final_pdf')).toMatchObject({ status: 'ok', detail: expect.stringContaining(finalSha) });
    const blobPath = path.join(t.dataDir, 'blobs', finalSha.slice(0, 2), finalSha);
    expect(fs.readFileSync(blobPath).equals(final)).toBe(true);
    const altered = Buffer.from(final);
    altered[altered.length - 10] ^= 0x01;
    fs.chmodSync(blobPath, 0o644);
    fs.writeFileSync(blobPath, altered);
    const report = await t.admin.verifyDocument(docId);
    expect(report).toMatchObject({ found: true, intact: false, failure: { check: 'final_pdf', event: { type: 'DocumentCompleted' } } });
    expect(report.found && report.failure?.detail).toBe(`final PDF ${finalSha} altered (its SHA-256 differs)`);
  });
});
