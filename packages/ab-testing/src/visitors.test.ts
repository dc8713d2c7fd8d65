import { describe, expect, it } from '@jest/globals';
import { selectVariant } from './selection.js';
import { countsAsView, notAViewReason, stickyRandom } from './visitors.js';

const variants = ['a', 'b', 'c'].map((id) => ({ id, variantType: 'headline', abStatus: 'testing' as const }));

describe('one variant per visitor', () => {
  it('a visitor sees the same variant of an article every time', () => {
    for (let v = 0; v < 50; v++) {
      const first = selectVariant(variants, stickyRandom(`visitor-${v}`, 'article-1'))!.id;
      for (let i = 0; i < 20; i++) expect(selectVariant(variants, stickyRandom(`visitor-${v}`, 'article-1'))!.id).toBe(first);
    }
  });

  it('visitors are split evenly between the variants (chi-square below the 0.999 quantile, 13.82 at 2 df)', () => {
    const counts: Record<string, number> = { a: 0, b: 0, c: 0 };
    const n = 30_000;
    for (let v = 0; v < n; v++) counts[selectVariant(variants, stickyRandom(`v${v}`, 'article-2'))!.id]! += 1;
    const chiSquare = Object.values(counts).reduce((s, c) => s + (c - n / 3) ** 2 / (n / 3), 0);
    expect(chiSquare).toBeLessThan(13.82);
  });

  it('the same visitor is assigned independently per article', () => {
    const seen = new Set(Array.from({ length: 60 }, (_, i) => selectVariant(variants, stickyRandom('one-visitor', `article-${i}`))!.id));
    expect(seen).toEqual(new Set(['a', 'b', 'c']));
  });
});

describe('which page requests are views that count', () => {
  const headers = (h: Record<string, string>) => (name: string) => h[name];
  const browser = 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0 Safari/537.36';

  it('a browser GET counts', () => {
    expect(countsAsView('GET', headers({ 'user-agent': browser }))).toBe(true);
  });

  it('HEAD, a prefetch or prerender, and a request without User-Agent do not', () => {
    expect(countsAsView('HEAD', headers({ 'user-agent': browser }))).toBe(false);
    expect(countsAsView('GET', headers({ 'user-agent': browser, 'sec-purpose': 'prefetch' }))).toBe(false);
    expect(countsAsView('GET', headers({ 'user-agent': browser, 'sec-purpose': 'prefetch;prerender' }))).toBe(false);
    expect(countsAsView('GET', headers({ 'user-agent': browser, purpose: 'prefetch' }))).toBe(false);
    expect(countsAsView('GET', headers({ 'user-agent': browser, 'x-moz': 'prefetch' }))).toBe(false);
    expect(countsAsView('GET', headers({}))).toBe(false);
  });

  it.each([
    'Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)',
    'Mozilla/5.0 (compatible; bingbot/2.0; +http://www.bing.com/bingbot.htm)',
    'facebookexternalhit/1.1 (+http://www.facebook.com/externalhit_uatext.php)',
    'Slackbot-LinkExpanding 1.0 (+https://api.slack.com/robots)',
    'Mozilla/5.0 (compatible; Yahoo! Slurp; http://help.yahoo.com/help/us/ysearch/slurp)',
    'Mozilla/5.0 (Linux; Android 11; moto g power (2022)) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/109.0 Mobile Safari/537.36 Chrome-Lighthouse',
    'curl/8.5.0',
    'python-requests/2.31.0',
  ])('a known crawler does not: %s', (agent) => {
    expect(countsAsView('GET', headers({ 'user-agent': agent }))).toBe(false);
  });
});

describe('why a page request is not a view (the uncounted reasons)', () => {
  const reason = (headers: Record<string, string>) => notAViewReason((name) => headers[name]);
  it('crawlers and requests without a User-Agent are bots; prefetches and prerenders are prefetch; a browser is none', () => {
    expect(reason({ 'user-agent': 'Googlebot/2.1' })).toBe('bot');
    expect(reason({})).toBe('bot');
    expect(reason({ 'user-agent': 'Mozilla/5.0', purpose: 'prefetch' })).toBe('prefetch');
    expect(reason({ 'user-agent': 'Mozilla/5.0', 'sec-purpose': 'prefetch;prerender' })).toBe('prefetch');
    // A crawler's prefetch is a prefetch: the reason checked first.
    expect(reason({ 'user-agent': 'Googlebot/2.1', 'x-moz': 'prefetch' })).toBe('prefetch');
    expect(reason({ 'user-agent': 'Mozilla/5.0 (X11; Linux x86_64) Firefox/133.0' })).toBeNull();
  });
});
