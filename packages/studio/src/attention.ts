import { abResults, MIN_IMPRESSIONS, type AbResultsStore } from '@inntak/ab-testing';
import type { Caller } from '@inntak/access';
import { listJobs, type JobAdminStore, type JobRecord } from '@inntak/jobs';
import type { FailingWebhook, StudioReads } from './ports.js';

/**
 * The console's home page (issue 39, point 5): what needs the logged-in person now. Each part is
 * read through the use case or port that already answers it, with the person as the caller, so
 * each is filtered by their access and bounded:
 * - failing webhooks: those they administer with refused or failed requests in the last 24 hours
 *   (StudioReads.failingWebhooks), at most `webhooks` of them;
 * - tests waiting for a decision: A/B tests still testing in their publications (the A/B results
 *   use case, `abResults`, per publication, at most `publications` of them) whose variants all
 *   have enough impressions to decide on, or whose round has run `longRunningDays` or more;
 * - failed jobs (system administrators only, through `listJobs`): how many, and the newest few.
 */
export const ATTENTION = {
  windowHours: 24,
  webhooks: 10,
  publications: 20,
  tests: 10,
  longRunningDays: 7,
  jobs: 5,
} as const;

export interface WaitingTest {
  publicationId: string;
  publicationTitle: string;
  articleId: string;
  articleTitle: string | null;
  variantType: string;
  /** enough_data: every variant has MIN_IMPRESSIONS; long_running: the round is a week old or more. */
  why: 'enough_data' | 'long_running';
  /** The use case's own sentence: why nothing is decided yet. */
  explanation: string;
  impressions: number;
  roundStartedAt: Date | null;
}

export interface Attention {
  webhooks: { list: FailingWebhook[]; total: number; since: Date };
  tests: { list: WaitingTest[]; total: number };
  /** Null for anyone but a system administrator. */
  failedJobs: { total: number; newest: JobRecord[] } | null;
  /** Nothing to show: the page says "Alt ser bra ut". */
  calm: boolean;
}

export interface AttentionDeps {
  reads: Pick<StudioReads, 'failingWebhooks' | 'publications'>;
  abResults: AbResultsStore;
  jobs: JobAdminStore;
}

export async function whatNeedsAttention(deps: AttentionDeps, caller: Caller, now = new Date()): Promise<Attention> {
  const since = new Date(now.getTime() - ATTENTION.windowHours * 3600_000);
  const [webhooks, tests, failedJobs] = await Promise.all([
    deps.reads.failingWebhooks(caller, since, ATTENTION.webhooks),
    waitingTests(deps, caller, now),
    caller.isAdmin ? listJobs(deps.jobs, caller, { status: 'failed', limit: ATTENTION.jobs }) : undefined,
  ]);
  const jobs = failedJobs ? { total: failedJobs.counts.failed, newest: failedJobs.jobs } : null;
  return {
    webhooks: { list: webhooks.webhooks, total: webhooks.total, since },
    tests,
    failedJobs: jobs,
    calm: webhooks.total === 0 && tests.total === 0 && (jobs?.total ?? 0) === 0,
  };
}

async function waitingTests(deps: AttentionDeps, caller: Caller, now: Date): Promise<Attention['tests']> {
  const publications = await deps.reads.publications(caller, ATTENTION.publications);
  const longSince = now.getTime() - ATTENTION.longRunningDays * 86_400_000;
  const waiting: WaitingTest[] = [];
  // One publication at a time: each is a bounded read, and the page waits for them anyway.
  for (const publication of publications) {
    const { tests } = await abResults(deps.abResults, caller, publication.id);
    for (const test of tests) {
      if (test.state !== 'testing') continue;
      const testing = test.variants.filter((v) => v.ab_status === 'testing');
      const started = test.round_started_at ? new Date(test.round_started_at) : null;
      const enough = testing.length >= 2 && testing.every((v) => v.impressions >= MIN_IMPRESSIONS);
      const long = started !== null && started.getTime() <= longSince;
      if (!enough && !long) continue;
      waiting.push({
        publicationId: publication.id,
        publicationTitle: publication.title,
        articleId: test.article_id,
        articleTitle: test.article_title,
        variantType: test.variant_type,
        why: enough ? 'enough_data' : 'long_running',
        explanation: test.undecided?.explanation ?? 'Signifikant: evaluatoren kårer vinneren ved neste kjøring (hvert 5. minutt).',
        impressions: testing.reduce((sum, v) => sum + v.impressions, 0),
        roundStartedAt: started,
      });
    }
  }
  return { list: waiting.slice(0, ATTENTION.tests), total: waiting.length };
}
