import { describe, expect, it } from '@jest/globals';
import {
  prepareFrontPage,
  renderAbout,
  renderArchive,
  renderArticle,
  renderCategory,
  renderNotFound,
  renderSearch,
  renderTooManySearches,
  type PageContext,
} from '@inntak/publishing';
import { describeWithEngine, htmlErrors } from '@inntak/test-support';

/**
 * Every page kind through the W3C Nu HTML Checker (npm vnu-jar, run by Java; README, "Optional
 * engines"): no errors. All pages go to one run of the checker (one JVM start).
 */

const MEDIA = ['0190a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b', '0190a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5c', '0190a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5d'];
const LONG_WORD = 'Donaudampfschifffahrtsgesellschaftskapitän'.repeat(5);
const MARKDOWN = [
  '- **Repository:** o/r',
  '- **Branch:** `main`',
  '',
  '* [`abc1234`](<https://github.com/o/r/commit/abc1234>) Fix #1 (ola)',
  '',
  '## Hvor finner du dem?',
  '',
  `> sitat med ${LONG_WORD} og https://eksempel.no/${'a'.repeat(200)}`,
  '',
  '| a | b |\n|---|---|\n| 1 | 2 |',
  '',
  '```\nkode <b>\n```',
  '',
  `![kart](/media/${MEDIA[0]}) <script>alert(1)</script>`,
].join('\n');

function pages(language: 'nb' | 'en'): Record<string, string> {
  const publication = { id: 'p', slug: 'fjordposten', title: 'Fjordposten & co', about: '**Lokalavis** for fjorden.', domains: [], language };
  const ctx: PageContext = { publication, base: '/pub/fjordposten', origin: 'https://inntak.example' };
  const summary = { id: 'a1', title: 'Brua åpner', excerpt: 'Den nye brua', publishedAt: new Date('2026-03-01T10:00:00Z') };
  const listing = { items: [summary, { ...summary, id: 'a2' }], page: 2, hasNext: true };
  const media = [
    { id: MEDIA[0]!, kind: 'audio' as const, mime: 'audio/wav', title: 'Opplesning' },
    { id: MEDIA[1]!, kind: 'image' as const, mime: 'image/png' },
    { id: MEDIA[2]!, kind: 'video' as const, mime: 'video/mp4' },
  ];
  const front = prepareFrontPage(ctx, { items: [{ ...summary, variants: [{ id: 'v1', variantType: 'headline', abStatus: 'testing', title: 'Endelig!', teaser: 'Åpner i morgen' }] }], page: 1, hasNext: false });
  return {
    front: front.render((entry) => entry.variants[0]),
    article: renderArticle(ctx, { ...summary, content: MARKDOWN, tags: ['Fiske', 'rust lang'], truncated: true, media }),
    category: renderCategory(ctx, 'fiske', listing),
    archive: renderArchive(ctx, listing),
    search: renderSearch(ctx, 'brua "<x>"', listing),
    'search-empty': renderSearch(ctx, 'ingenting', { items: [], page: 1, hasNext: false }),
    'search-form': renderSearch(ctx, '', undefined),
    about: renderAbout(ctx),
    'too-many': renderTooManySearches(ctx),
    'not-found': renderNotFound(ctx),
    'not-found-bare': renderNotFound(undefined),
  };
}

describeWithEngine('java', describe, 'the published pages are valid HTML', () => {
  it('the Nu HTML Checker reports no errors on any page kind, in nb and en', async () => {
    const all = Object.fromEntries((['nb', 'en'] as const).flatMap((language) => Object.entries(pages(language)).map(([name, html]) => [`${language}-${name}`, html])));
    expect(Object.keys(all)).toHaveLength(22);
    expect(await htmlErrors(all)).toEqual([]);
  }, 120_000);
});
