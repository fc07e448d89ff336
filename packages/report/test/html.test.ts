import { describe, expect, it } from 'vitest';
import { html, trustedHtml } from '../src/html.ts';

describe('html', () => {
  it('escapes every interpolated value, in text and in attributes', () => {
    const hostile = `</p><script>alert("x")</script>' onload='x`;
    expect(html`<p title="${hostile}">${hostile}</p>`.text).toMatchInlineSnapshot(
      `"<p title="&lt;/p&gt;&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;&#39; onload=&#39;x">&lt;/p&gt;&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;&#39; onload=&#39;x</p>"`,
    );
  });

  it('keeps nested markup, joins arrays, and renders null, undefined and false as nothing', () => {
    const items = ['a<b', 'c&d'].map((t) => html`<li>${t}</li>`);
    expect(html`<ul>${items}</ul>${null}${undefined}${false}${0}`.text).toBe(
      '<ul><li>a&lt;b</li><li>c&amp;d</li></ul>0',
    );
    expect(html`${trustedHtml('<b>kept</b>')}`.text).toBe('<b>kept</b>');
  });
});
