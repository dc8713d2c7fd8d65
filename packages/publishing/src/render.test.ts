import { describe, expect, it } from '@jest/globals';
import { clipArticle, excerptOf, EXCERPT_LENGTH, MAX_ARTICLE_CHARS } from './models.js';
import { prepareFrontPage, renderArchive, renderArticle, renderFrontPage, renderNotFound, renderSearch } from './render.js';

const publication = { id: 'p', slug: 'nyheter', title: 'Nyheter & <Co>', about: '', domains: [], language: 'nb' as const };
const article = { id: 'a1', title: '<b>Fet</b>', excerpt: 'Start "sitat"', publishedAt: new Date('2026-03-01T10:00:00Z') };

describe('page rendering', () => {
  it('escapes titles, excerpts, variants and search words from the graph', () => {
    const front = renderFrontPage(
      { publication, base: '/pub/nyheter' },
      { items: [{ article, variant: { id: 'v1', variantType: 'headline', abStatus: 'testing', title: '<img src=x onerror=1>', teaser: null } }], page: 1, hasNext: false },
    );
    expect(front).not.toContain('<img');
    expect(front).toContain('&lt;img src=x onerror=1&gt;');
    expect(front).toContain('Nyheter &amp; &lt;Co&gt;');
    expect(front).toContain('href="/pub/nyheter/t/a1?v=v1"');
    const search = renderSearch({ publication, base: '' }, '"><script>', { items: [], page: 1, hasNext: false });
    expect(search).not.toContain('<script>');
    expect(search).toContain('value="&quot;&gt;&lt;script&gt;"');
  });

  it('links stay under /pub/{slug}, or at the root on a custom domain', () => {
    const own = renderArticle({ publication, base: '/pub/nyheter' }, { ...article, content: 'a\n\nb', tags: ['rust lang'] });
    expect(own).toContain('href="/pub/nyheter/kategori/rust%20lang"');
    expect(own).toContain('href="/pub/nyheter/arkiv"');
    expect(own).toContain('<p>a</p>');
    const custom = renderArchive({ publication, base: '' }, { items: [article], page: 2, hasNext: true });
    expect(custom).toContain('href="/arkiv?side=3"');
    expect(custom).toContain('href="/arkiv"'); // page 1 carries no ?side=
    expect(custom).toContain('href="/artikkel/a1"');
    expect(custom).toContain('mars 2026');
  });

  it('pages are HTML5 documents for phones, 404 included', () => {
    for (const page of [renderNotFound(undefined), renderNotFound({ publication, base: '' })]) {
      expect(page.startsWith('<!doctype html>')).toBe(true);
      expect(page).toContain('<meta name="viewport" content="width=device-width, initial-scale=1">');
      expect(page).toContain('Siden finnes ikke');
    }
  });

  it('an excerpt is cut at a word near EXCERPT_LENGTH', () => {
    const long = 'ord '.repeat(200);
    const cut = excerptOf(long);
    expect(cut.length).toBeLessThanOrEqual(EXCERPT_LENGTH + 1);
    expect(cut.endsWith('ord…')).toBe(true);
    expect(excerptOf(null)).toBe('');
  });

  it('a prepared front page shows the variant each render chooses, or the article’s own title', () => {
    const variants = ['v1', 'v2'].map((id) => ({ id, variantType: 'headline', abStatus: 'testing' as const, title: `Tittel ${id}`, teaser: null }));
    const other = { ...article, id: 'a2', title: 'Uten varianter' };
    const prepared = prepareFrontPage({ publication, base: '/pub/nyheter' }, { items: [{ ...article, variants }, { ...other, variants: [] }], page: 1, hasNext: false });
    const first = prepared.render((entry) => entry.variants[0]);
    const second = prepared.render((entry) => entry.variants[1]);
    const none = prepared.render(() => undefined);
    expect(first).toContain('href="/pub/nyheter/t/a1?v=v1">Tittel v1</a>');
    expect(first).not.toContain('Tittel v2');
    expect(second).toContain('href="/pub/nyheter/t/a1?v=v2">Tittel v2</a>');
    expect(none).toContain('href="/pub/nyheter/artikkel/a1">&lt;b&gt;Fet&lt;/b&gt;</a>');
    for (const page of [first, second, none]) {
      expect(page).toContain('href="/pub/nyheter/artikkel/a2">Uten varianter</a>');
      expect(page.indexOf('/a1')).toBeLessThan(page.indexOf('/a2'));
      expect(page).not.toContain('\u0000');
    }
  });
});

describe('article size (issue 22)', () => {
  it('content beyond MAX_ARTICLE_CHARS is cut at a word with … and the page says it was shortened', () => {
    const long = 'ord '.repeat(MAX_ARTICLE_CHARS);
    const clipped = clipArticle(long);
    expect(clipped.truncated).toBe(true);
    expect(clipped.content.length).toBeLessThanOrEqual(MAX_ARTICLE_CHARS + 1);
    expect(clipped.content.endsWith('ord…')).toBe(true);
    expect(clipArticle('kort')).toEqual({ content: 'kort', truncated: false });
    // A cut never leaves half of a surrogate pair.
    expect(clipArticle('x'.repeat(MAX_ARTICLE_CHARS - 1) + '😀😀').content).toBe(`${'x'.repeat(MAX_ARTICLE_CHARS - 1)}…`);
    const page = renderArticle({ publication, base: '' }, { ...article, ...clipped, tags: [] });
    expect(page).toContain('Artikkelen er forkortet');
    expect(page.length).toBeLessThan(MAX_ARTICLE_CHARS + 5_000);
  });
});
