import { describe, expect, it } from '@jest/globals';
import { escapeHtml, html, Html } from './html.js';

describe('html escaping', () => {
  it('escapes every interpolated string, including attribute quotes', () => {
    const title = `<script>alert("x")</script> & 'y'`;
    expect(html`<a title="${title}">${title}</a>`.value).toBe(
      '<a title="&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt; &amp; &#39;y&#39;">&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt; &amp; &#39;y&#39;</a>',
    );
  });

  it('keeps nested Html as markup, joins arrays and drops empty values', () => {
    const items = ['a<b', 'c'].map((t) => html`<li>${t}</li>`);
    expect(html`<ul>${items}</ul>${null}${undefined}${false}${0}`.value).toBe('<ul><li>a&lt;b</li><li>c</li></ul>0');
    expect(html`${new Html('<br>')}`.value).toBe('<br>');
    expect(escapeHtml('plain')).toBe('plain');
  });
});
