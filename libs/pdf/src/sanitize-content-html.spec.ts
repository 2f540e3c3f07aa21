import { sanitizeContentHtml } from './sanitize-content-html';

const PNG_1PX =
  'data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==';

describe('sanitizeContentHtml', () => {
  it('keeps the contract formatting tags', () => {
    const html =
      '<h1>제1조</h1><h2>a</h2><h3>b</h3><h4>c</h4><h5>d</h5><h6>e</h6><p>갑과 <b>을</b>은 <strong>다음</strong>과 <i>같이</i> <em>계약</em><u>한다</u><s>.</s><br></p>' +
      '<ul><li>1</li></ul><ol start="2"><li>2</li></ol><table><thead><tr><th colspan="2">h</th></tr></thead><tbody><tr><td rowspan="1">x</td><td>y</td></tr></tbody></table>' +
      '<blockquote>q</blockquote><hr><div><span>s</span></div>';
    expect(sanitizeContentHtml(html)).toBe(
      '<h1>제1조</h1><h2>a</h2><h3>b</h3><h4>c</h4><h5>d</h5><h6>e</h6><p>갑과 <b>을</b>은 <strong>다음</strong>과 <i>같이</i> <em>계약</em><u>한다</u><s>.</s><br /></p>' +
        '<ul><li>1</li></ul><ol start="2"><li>2</li></ol><table><thead><tr><th colspan="2">h</th></tr></thead><tbody><tr><td rowspan="1">x</td><td>y</td></tr></tbody></table>' +
        '<blockquote>q</blockquote><hr /><div><span>s</span></div>',
    );
  });

  it('removes scripts, event handlers and javascript: URLs', () => {
    const out = sanitizeContentHtml(
      '<p onclick="steal()">본문<script>alert(1)</script></p><img src="x" onerror="alert(1)"><a href="javascript:alert(1)">link</a><style>p{}</style><iframe src="https://evil.example"></iframe>',
    );
    expect(out).toBe('<p>본문</p>link');
    expect(out).not.toMatch(/script|onerror|onclick|javascript|iframe|style/i);
  });

  it('drops every image that is not an inline PNG/JPEG data URL', () => {
    const sources = [
      'https://evil.example/track.png',
      'http://169.254.169.254/latest/meta-data',
      '//evil.example/x.png',
      '/etc/passwd',
      'file:///etc/passwd',
      'x.png',
      'data:image/svg+xml;base64,PHN2Zz48L3N2Zz4=',
      'data:text/html;base64,PGgxPmhpPC9oMT4=',
      'data:image/gif;base64,R0lGODlhAQABAAAAACw=',
    ];
    for (const src of sources) expect(sanitizeContentHtml(`<p>a<img src="${src}">b</p>`)).toBe('<p>ab</p>');
    expect(sanitizeContentHtml(`<img src="${PNG_1PX}" width="10" onload="x()">`)).toBe(`<img src="${PNG_1PX}" width="10" />`);
    expect(sanitizeContentHtml('<img src="data:image/jpeg;base64,/9j/4AAQ SkZJRg==">')).toBe('<img src="data:image/jpeg;base64,/9j/4AAQSkZJRg==" />');
  });

  it('allows only text-align in style attributes, so no url() can reach a renderer', () => {
    expect(sanitizeContentHtml('<p style="text-align: center; background: url(https://evil.example/x)">가</p>')).toBe(
      '<p style="text-align:center">가</p>',
    );
    expect(sanitizeContentHtml('<div style="background-image:url(http://x)">나</div>')).toBe('<div>나</div>');
  });

  it('drops links, forms, media and svg but keeps readable text', () => {
    expect(
      sanitizeContentHtml(
        '<a href="https://x.example">링크</a><form action="https://x"><input value="v"></form><video src="https://x/v.mp4"></video><svg><image href="https://x/i.png"/><text>t</text></svg><object data="https://x">o</object><link rel="stylesheet" href="https://x"><base href="https://x">',
      ),
    ).toBe('링크');
  });
});
