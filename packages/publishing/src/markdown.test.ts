import { describe, expect, it } from '@jest/globals';
import { plainText, renderMarkdown } from './markdown.js';
import { excerptOf } from './models.js';
import { renderAbout, renderArticle } from './render.js';

const publication = { id: 'p', slug: 'nyheter', title: 'Nyheter', about: '**Lokalavis** for fjorden.\n\n## Hvor finner du oss?\n\n- Kaia\n- Torget', domains: [], language: 'nb' as const };
const MEDIA_ID = '0190a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b';

describe('article content is Markdown, rendered safely', () => {
  it('headings, bold, lists, quotes and code become HTML; line breaks inside a paragraph are kept', () => {
    const out = renderMarkdown('## Hvor finner du dem?\n\n**Årets sesong** er `god`.\nNy linje.\n\n- en\n- to\n\n> sitat');
    expect(out).toContain('<h2>Hvor finner du dem?</h2>');
    expect(out).toContain('<strong>Årets sesong</strong>');
    expect(out).toContain('<code>god</code>.<br>\nNy linje.');
    expect(out).toContain('<ul>\n<li>en</li>\n<li>to</li>\n</ul>');
    expect(out).toContain('<blockquote>');
  });

  it('raw HTML is shown as text, never run', () => {
    const out = renderMarkdown('<script>alert(1)</script> <img src=x onerror=alert(1)>\n\n<div onclick="x">a</div>');
    expect(out).not.toMatch(/<script|<img|<div/);
    expect(out).toContain('&lt;script&gt;alert(1)&lt;/script&gt;');
  });

  it('links go only to http(s) and mailto, each with rel="nofollow ugc noopener"', () => {
    const out = renderMarkdown('[a](https://fjord.no/x) [b](mailto:red@fjord.no) [c](javascript:alert(1)) [d](data:text/html,x) [e](/admin) [f](ftp://x) <https://auto.no>');
    expect(out).toContain('<a href="https://fjord.no/x" rel="nofollow ugc noopener">a</a>');
    expect(out).toContain('<a href="mailto:red@fjord.no" rel="nofollow ugc noopener">b</a>');
    expect(out).toContain('<a href="https://auto.no" rel="nofollow ugc noopener">https://auto.no</a>');
    expect(out.match(/<a /g)).toHaveLength(3);
    expect(out).not.toMatch(/href="(?:javascript|data|ftp|\/admin)/);
  });

  it('images show only from /media; any other source is its alt text', () => {
    const out = renderMarkdown(`![kart](/media/${MEDIA_ID}) ![sporing](https://tracker.example/p.gif) ![x](javascript:1)`);
    expect(out).toContain(`<img src="/media/${MEDIA_ID}" alt="kart" loading="lazy">`);
    expect(out).not.toContain('tracker.example');
    expect(out).toContain('sporing');
    expect(out.match(/<img /g)).toHaveLength(1);
    // A link to /media is not a web link: the text stays, the link goes.
    expect(renderMarkdown(`[fil](/media/${MEDIA_ID})`)).toBe('<p>fil</p>\n');
  });

  it('an article page and the about page render their Markdown', () => {
    const article = renderArticle(
      { publication, base: '/pub/nyheter' },
      { id: 'a1', title: 'Push', excerpt: '', publishedAt: new Date('2026-03-01T10:00:00Z'), content: '- **Repository:** o/r\n\n* [`abc1234`](<https://github.com/o/r/commit/abc1234>) Fix', tags: [] },
    );
    expect(article).toContain('<li><strong>Repository:</strong> o/r</li>');
    expect(article).toContain('<a href="https://github.com/o/r/commit/abc1234" rel="nofollow ugc noopener"><code>abc1234</code></a> Fix');
    const about = renderAbout({ publication, base: '/pub/nyheter' });
    expect(about).toContain('<strong>Lokalavis</strong> for fjorden.');
    expect(about).toContain('<h2>Hvor finner du oss?</h2>');
    expect(about).toContain('<li>Kaia</li>');
  });

  it('excerpts and descriptions are the words without the markup', () => {
    expect(plainText('- **Repository:** o/r\n- **Branch:** `main`\n\n* [`abc`](<https://x.no>) Fix #1')).toBe('Repository: o/r Branch: main abc Fix #1');
    expect(excerptOf('## Tittel\n\n**Fet** tekst')).toBe('Tittel Fet tekst');
  });
});
