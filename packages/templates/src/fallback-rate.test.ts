import { describe, expect, it } from '@jest/globals';
import { findTemplate } from './registry.js';
import type { Headers, TemplateResult } from './types.js';
import { allFixtures, loadFixtures } from './__tests__/fixtures.js';
import { allGithubExamples } from './__tests__/github-examples.js';

/**
 * The fallback rate over real payloads nobody here wrote: the kept fixtures, every GitHub example
 * of `@octokit/webhooks-examples` whose event belongs to a template, and (when TEMPLATES_CORPUS
 * names a folder with a MANIFEST.tsv of the same columns) a larger local corpus. Each payload is
 * rendered with its event header and without any, as a replayed or hand-posted body would be.
 */

interface Sample {
  name: string;
  templateId: string;
  headers: Headers;
  payload: unknown;
}

/** The template a GitHub event belongs to; events of no template (star, fork…) are not counted. */
function githubTemplateFor(event: string, payload: unknown): string | undefined {
  if (['push', 'create', 'delete', 'release', 'ping'].includes(event)) return 'forge-push';
  if (event === 'issues') return 'forge-issues';
  if (event === 'issue_comment') {
    const issue = (payload as { issue?: { pull_request?: unknown } }).issue;
    return issue?.pull_request ? 'forge-pull-request' : 'forge-issues';
  }
  if (['pull_request', 'pull_request_review', 'pull_request_review_comment', 'pull_request_review_thread'].includes(event)) return 'forge-pull-request';
  if (['check_run', 'check_suite', 'workflow_run', 'workflow_job', 'status'].includes(event)) return 'ci-build';
  return undefined;
}

function octokitSamples(): Sample[] {
  const samples: Sample[] = [];
  for (const { name, examples } of allGithubExamples()) {
    examples.forEach((payload, i) => {
      const templateId = githubTemplateFor(name, payload);
      if (templateId) samples.push({ name: `octokit ${name} #${i}`, templateId, headers: { 'x-github-event': name }, payload });
    });
  }
  return samples;
}

function keptSamples(): Sample[] {
  const local = process.env.TEMPLATES_CORPUS;
  const extra = local ? loadFixtures(new URL(`file://${local.replace(/\/?$/, '/')}`)) : [];
  return [...allFixtures(), ...extra].map((f) => ({ name: f.file, templateId: f.templateId, headers: f.headers, payload: f.payload }));
}

/** A render that says only "event `x`", "status unknown", "(no text)" or "someone". */
function fallbackReason(r: TemplateResult): string | undefined {
  if (r.unsupported_event !== undefined) return `unsupported ${r.unsupported_event}`;
  if (r.title.includes('status unknown')) return 'status unknown';
  if (r.title.includes('(no text)')) return 'no text';
  if (/\bsomeone\b/.test(r.title)) return 'actor lost';
  // Honest but undecided: a body that does not say which of two events it is.
  if (r.title.includes(' or deleted ') || r.title.includes(' or withdrew approval')) return 'ambiguous without header';
  return undefined;
}

describe('fallback renders over real payloads', () => {
  const samples = [...keptSamples(), ...octokitSamples()];

  it('are at most 5 % of all renders, with and without the event header', () => {
    const fallbacks: string[] = [];
    let renders = 0;
    for (const s of samples) {
      const template = findTemplate(s.templateId)!;
      for (const headers of [s.headers, {}]) {
        renders += 1;
        const reason = fallbackReason(template.render(s.payload, headers));
        if (reason) fallbacks.push(`${s.templateId} ${s.name} ${Object.keys(headers).length ? 'header' : 'no header'}: ${reason}`);
      }
    }
    const rate = fallbacks.length / renders;
    console.log(`${samples.length} payloads, ${renders} renders, ${fallbacks.length} fallbacks (${(rate * 100).toFixed(1)} %)\n${fallbacks.join('\n')}`);
    expect(rate).toBeLessThanOrEqual(0.05);
  });
});
