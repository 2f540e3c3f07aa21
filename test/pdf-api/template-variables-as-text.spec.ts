import { markPlaceholders, sanitizeContentHtml } from '@dojang/pdf/rendering';
import { htmlToPdfmake } from '@dojang/pdf/html-to-pdfmake.converter';
import { renderTemplate } from '@dojang/seals';

/**
 * A substituted variable is text, through the whole chain a template body takes (issue 33 §13):
 * filled by libs/seals, sanitized and laid out by libs/pdf, whose placeholder search then finds
 * only the template's own fields. Here rather than in either library: each stands alone and may
 * not import the other, even in its tests.
 */
describe('template variables through the PDF layout', () => {
  it('the page shows a value\'s braces as written, and the only placeholders the PDF finds are the template\'s own', () => {
    const template = '<p>비고: {{note}}</p><p>근로자 서명: {{signature:emp}}</p>';
    const rendered = renderTemplate(template, { note: '{{signature:emp}} {{text:x}}' });
    if (!rendered.ok) throw new Error('not rendered');
    const content = htmlToPdfmake(sanitizeContentHtml(rendered.html), { contentWidth: 500 });
    expect(JSON.stringify(content)).not.toContain('{{signature:emp}} {{text:x}}');
    const text = (node: unknown): string => (typeof node === 'string' ? node : Array.isArray(node) ? node.map(text).join('') : node && typeof node === 'object' ? text((node as { text?: unknown }).text ?? '') : '');
    expect(text(content)).toContain('비고: {{signature:emp}} {{text:x}}');
    expect(markPlaceholders(content).placeholders).toEqual(['{{signature:emp}}']);
  });

});
