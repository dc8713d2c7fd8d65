import { mulberry32 } from './simulation.js';

/**
 * One variant per visitor (issue 24): the variant a reader sees is drawn from a generator seeded
 * by their visitor id and the article, so the same visitor gets the same variant of an article
 * for as long as the test's variants stay the same, and different visitors are spread evenly
 * (FNV-1a of the pair, then mulberry32: uniform enough for a split, and no secret is needed —
 * a visitor who picks their id picks only what they see, never what counts).
 */
export function stickyRandom(visitorId: string, articleId: string): () => number {
  let hash = 0x811c9dc5;
  const text = `${visitorId}\n${articleId}`;
  for (let i = 0; i < text.length; i++) {
    hash ^= text.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193);
  }
  return mulberry32(hash >>> 0);
}

/**
 * Crawlers, link previewers and monitors by their User-Agent: words they put there themselves.
 * One alternation of literal words, so the match runs in time linear in the header. A headless
 * browser counts like any browser: it can claim any User-Agent, so only the honest ones could be
 * told apart (and this project's own browser tests read the pages through one).
 */
const CRAWLER = /bot|crawl|spider|slurp|facebookexternalhit|embedly|preview|lighthouse|pingdom|monitor|validator|archiver|mediapartners|curl\/|wget\/|python-requests|go-http-client|okhttp|java\/|libwww|httpclient/i;

/**
 * Whether a request of a page is a reader looking at it, so that its impression may count: not
 * a HEAD (nothing is shown), not a prefetch or prerender (`Sec-Purpose: prefetch`, `Purpose:
 * prefetch`, `X-Moz: prefetch`, `X-Purpose: preview`: the browser fetches what the reader may
 * never see), not a known crawler, and not a request without a User-Agent (every browser sends
 * one).
 */
export function countsAsView(method: string, header: (name: string) => string | undefined): boolean {
  if (method !== 'GET') return false;
  for (const name of ['sec-purpose', 'purpose', 'x-moz', 'x-purpose']) {
    const value = header(name);
    if (value && /prefetch|prerender|preview/i.test(value.slice(0, 200))) return false;
  }
  const agent = header('user-agent');
  if (!agent) return false;
  return !CRAWLER.test(agent.slice(0, 512));
}
