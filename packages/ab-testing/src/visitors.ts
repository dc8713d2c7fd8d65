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
 * Why an impression shown to a client did not count (results' `uncounted`, ab_events'
 * uncounted_* columns): a crawler or a request without a User-Agent (`bot`), a prefetch or
 * prerender (`prefetch`), a network over AB_CLIENTS_PER_ADDRESS clients this window
 * (`address_cap`), a client already counted for the article this window (`repeat`).
 */
export const UNCOUNTED_REASONS = ['bot', 'prefetch', 'address_cap', 'repeat'] as const;
export type UncountedReason = (typeof UNCOUNTED_REASONS)[number];

/**
 * Why a GET of a page is not a reader looking at it: a prefetch or prerender (`Sec-Purpose:
 * prefetch`, `Purpose: prefetch`, `X-Moz: prefetch`, `X-Purpose: preview`: the browser fetches
 * what the reader may never see), a known crawler or a request without a User-Agent (every
 * browser sends one); null for a reader.
 */
export function notAViewReason(header: (name: string) => string | undefined): 'bot' | 'prefetch' | null {
  for (const name of ['sec-purpose', 'purpose', 'x-moz', 'x-purpose']) {
    const value = header(name);
    if (value && /prefetch|prerender|preview/i.test(value.slice(0, 200))) return 'prefetch';
  }
  const agent = header('user-agent');
  if (!agent) return 'bot';
  return CRAWLER.test(agent.slice(0, 512)) ? 'bot' : null;
}

/** Whether a request of a page is a reader looking at it, so that its impression may count: a GET (a HEAD shows nothing) with no notAViewReason. */
export function countsAsView(method: string, header: (name: string) => string | undefined): boolean {
  return method === 'GET' && notAViewReason(header) === null;
}
