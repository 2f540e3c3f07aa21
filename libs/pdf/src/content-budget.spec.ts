import { checkDocumentBudget, countImagePixels, DOCUMENT_BUDGETS } from './content-budget';
import { encodePngPixels } from './png-encode';
import { isPdfLimitError, PdfLimitError } from './pool/pdf-limit.error';

/** A PNG whose header claims width×height: the budget reads headers only, never pixels. */
function pngHeader(width: number, height: number): Buffer {
  const real = encodePngPixels(1, 1, 4, new Uint8Array(4));
  const out = Buffer.from(real);
  out.writeUInt32BE(width, 16);
  out.writeUInt32BE(height, 20);
  return out;
}
const img = (bytes: Buffer) => `<img src="data:image/png;base64,${bytes.toString('base64')}">`;

function refusal(fn: () => void): PdfLimitError {
  try {
    fn();
  } catch (err) {
    if (isPdfLimitError(err)) return err;
    throw err;
  }
  throw new Error('expected a PdfLimitError');
}

describe('document budgets', () => {
  it('adds up the pixels of every embedded image from their headers', () => {
    expect(countImagePixels(`<p>a</p>${img(pngHeader(1000, 2000))}<p>b</p>${img(pngHeader(300, 300))}`)).toEqual({ images: 2, total: 2_090_000 });
  });

  it('refuses images that add up to more pixels than a document may have, though each is under the per-image cap', () => {
    const content = Array.from({ length: 3 }, () => img(pngHeader(3000, 3000))).join('');
    const err = refusal(() => checkDocumentBudget(content, 'html'));
    expect({ code: err.code, limit: err.limit, param: err.param }).toEqual({ code: 'document_budget_exceeded', limit: 'image_pixels', param: 'content' });
    expect(err.message).toContain(String(DOCUMENT_BUDGETS.max_image_pixels));
    expect(() => checkDocumentBudget(img(pngHeader(3000, 3000)) + img(pngHeader(3000, 3000)), 'html')).not.toThrow();
  });

  it('refuses more images than a document may have', () => {
    const content = img(pngHeader(2, 2)).repeat(DOCUMENT_BUDGETS.max_images + 1);
    expect(refusal(() => checkDocumentBudget(content, 'html')).limit).toBe('images');
  });

  it('refuses text certainly longer than the page budget, and leaves plain text alone otherwise', () => {
    expect(refusal(() => checkDocumentBudget('가'.repeat(1_700_000), 'text')).limit).toBe('pages');
    expect(() => checkDocumentBudget('가'.repeat(100_000), 'text')).not.toThrow();
  });

  it('refuses, before any layout, more text than a render can lay out in its time (issue 24, item 16)', () => {
    const err = refusal(() => checkDocumentBudget(`<p>${'가나다 '.repeat(150_000)}</p>`, 'html'));
    expect({ code: err.code, limit: err.limit, param: err.param }).toEqual({ code: 'document_budget_exceeded', limit: 'layout', param: 'content' });
    expect(err.message).toContain(String(DOCUMENT_BUDGETS.max_layout_chars));
    expect(() => checkDocumentBudget('가'.repeat(DOCUMENT_BUDGETS.max_layout_chars), 'text')).not.toThrow();
    // Text is not HTML: a data URL in it is words, not an image.
    expect(() => checkDocumentBudget(img(pngHeader(9000, 9000)), 'text')).not.toThrow();
  });
});
